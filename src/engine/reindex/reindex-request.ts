/**
 * A reindex as the engine takes it: parsed and checked by the HTTP layer (src/http/reindex-params.ts),
 * with Elasticsearch's defaults filled in.
 */
import type { SourceFilter } from '../search/request.ts';
import type { RemoteInfo } from './remote-info.ts';

export interface ReindexRequest {
  source: {
    /** Index expression (comma list, wildcards); for a remote, as the remote takes it. */
    indices: string[];
    /** Documents per batch (`source.size`, ES: 1000). */
    size: number;
    filter: Exclude<SourceFilter, false>;
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
