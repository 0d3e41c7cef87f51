/**
 * A reindex as the engine takes it: parsed and checked by the request language (src/engine/request/reindex-params.ts),
 * with Elasticsearch's defaults filled in.
 */
import type { Query, SourceFilter } from '../search/request.ts';
import type { RemoteInfo } from './remote-info.ts';

export interface ReindexRequest {
  source: {
    /** Index expression (comma list, wildcards); for a remote, as the remote takes it. */
    indices: string[];
    /** Documents per batch (`source.size`, ES: 1000). */
    size: number;
    filter: Exclude<SourceFilter, false>;
    /** Which documents to copy (a local source; match_all when absent). */
    query?: Query;
    /** The `_source` filter and query as given, for a remote, which receives them unchanged. */
    rawSource?: unknown;
    rawQuery?: unknown;
    remote?: RemoteInfo;
  };
  dest: {
    index: string;
    opType: 'index' | 'create';
    /** `keep` the source's routing (ES's default), `discard` it, or set every document's to a value. */
    routing: { kind: 'keep' } | { kind: 'discard' } | { kind: 'value'; value: string };
  };
  /** Stop after this many documents. */
  maxDocs?: number;
  conflicts: 'abort' | 'proceed';
  refresh: boolean;
  /** Parallel slices, by shard; `auto`: one per shard of the source. */
  slices: number | 'auto';
  /** Documents per second, Infinity for no throttling (ES's -1). */
  requestsPerSecond: number;
  /** How long the source's point in time (or remote scroll) lives between batches (ES's `scroll`, 5m). */
  keepAliveMs: number;
}

/** Documents per batch when `source.size` is not given (ES's). */
export const DEFAULT_BATCH = 1000;
/** The source's keep-alive when `scroll` is not given (ES's 5m). */
export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;

/** A reindex from `source` into `dest` with ES's defaults for everything not given. */
export function reindexRequest(source: string[], dest: string, overrides: Partial<ReindexRequest> = {}): ReindexRequest {
  return {
    source: { indices: source, size: DEFAULT_BATCH, filter: { includes: [], excludes: [] } },
    dest: { index: dest, opType: 'index', routing: { kind: 'keep' } },
    conflicts: 'abort',
    refresh: false,
    slices: 1,
    requestsPerSecond: Infinity,
    keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
    ...overrides,
  };
}
