/**
 * Builds a rank index: opens a point in time on the cluster and walks the matches' sort values in
 * order with `search_after` (`_source: false`, no stored fields: only `sort` comes back), keeping
 * every `stride`-th document's keys and the point in time's `_shard_doc` tie-breaker.
 *
 * A walk never makes a half index: an answer with failed shards, a refusal, or a point in time
 * lost midway fails the whole walk (and closes the point in time it opened).
 */
import type { WasmKernels } from '../../core/index.ts';
import type { ClusterCalls } from '../cluster-calls.ts';
import { EXACT_INTEGER, exactText, parseExact } from './json-text.ts';
import { KeyColumnBuilder } from './key-columns.ts';
import { ClusterRefused, closePointInTime, openPointInTime, type Distribution } from './point-in-time.ts';
import { RankIndex } from './rank-index.ts';
import type { ResultWindows } from './result-windows.ts';
import type { FrontSearch } from './search-shape.ts';

/** Hits per walk request: the most a search may ask for under the default `max_result_window`. */
export const WALK_BATCH = 10_000;

/** Bytes a document's keys take in a dense index, per key: an f64 (or a u32 ordinal and its share of the dictionary). */
const BYTES_PER_KEY = 8;

export interface WalkOptions {
  calls: ClusterCalls;
  distribution: Distribution;
  kernels: WasmKernels;
  /** Bytes this index may hold; past it, keys are kept for every stride-th document only. */
  budgetBytes: number;
  /** The point in time's `keep_alive` (an Elasticsearch time value). */
  keepAlive: string;
  /** The cluster's result windows: a walk request asks for at most one window of hits. */
  windows: ResultWindows;
  /** Told the point in time's id as soon as it is open, so that it can be closed if the walk is abandoned. */
  opened?: (id: string) => void;
}

/** Thrown when a search's order has no tie-breaker in a point in time (a cluster that adds no `_shard_doc`): it passes through. */
export class NotWalkable extends Error {}

/** Thrown when an answer of the walk reports failed shards: no partial index is ever made. */
export class ShardsFailed extends Error {}

export async function walk(search: FrontSearch, { calls, distribution, kernels, budgetBytes, keepAlive, windows, opened }: WalkOptions): Promise<RankIndex> {
  const started = performance.now();
  const openedAt = new Date();
  let pitId = await openPointInTime(calls, distribution, search.indices, search.pitParams, keepAlive, search.headers);
  opened?.(pitId);
  try {
    let builders: KeyColumnBuilder[] | undefined;
    let stride = 1;
    let rank = 0;
    let after: string | undefined;
    let total = 0;
    let batch = Math.min(WALK_BATCH, windows.of(search.indices));
    let first = true;
    for (;;) {
      const body = JSON.stringify({ ...search.walkBody, pit: { id: pitId, keep_alive: keepAlive }, size: batch, _source: false, stored_fields: '_none_', track_total_hits: first });
      const answer = await calls.call('walk', 'POST', '/_search', search.headers, after === undefined ? body : `${body.slice(0, -1)},"search_after":${after}}`);
      if (first && windows.refused(search.indices, answer) && windows.of(search.indices) < batch) {
        // A window smaller than the batch: walk again in batches of the window.
        batch = windows.of(search.indices);
        continue;
      }
      if (answer.status !== 200) throw new ClusterRefused(answer);
      const parsed = parseExact(answer.text) as WalkAnswer;
      if ((parsed._shards?.failed ?? 0) > 0) throw new ShardsFailed(`the cluster's walk answer has ${parsed._shards!.failed} failed shards`);
      if (typeof parsed.pit_id === 'string') pitId = parsed.pit_id;
      const hits = parsed.hits.hits;
      if (first) {
        total = totalOf(parsed.hits.total);
        const keys = hits.length === 0 ? search.sortKeys + 1 : hits[0].sort.length;
        if (keys !== search.sortKeys + 1) throw new NotWalkable('the cluster adds no tie-breaker to a sort in a point in time');
        stride = Math.max(1, Math.ceil((total * keys * BYTES_PER_KEY) / Math.max(budgetBytes, 1)));
        builders = Array.from({ length: keys }, () => new KeyColumnBuilder(Math.ceil(total / stride) + 1));
      }
      for (const hit of hits) {
        rank++;
        if (rank % stride === 0) hit.sort.forEach((value, key) => builders![key].push(value));
      }
      if (hits.length > 0) after = `[${hits.at(-1)!.sort.map(exactText).join(',')}]`;
      if (hits.length < batch) break;
      first = false;
    }
    const columns = builders!.map((builder) => builder.build(kernels));
    return new RankIndex(rank, stride, columns, after, pitId, openedAt, performance.now() - started);
  } catch (error) {
    await closePointInTime(calls, distribution, pitId, search.headers).catch(() => undefined);
    throw error;
  }
}

interface WalkAnswer {
  pit_id?: string;
  _shards?: { failed?: number };
  hits: { total?: number | { value: number }; hits: { sort: unknown[] }[] };
}

function totalOf(total: WalkAnswer['hits']['total']): number {
  if (typeof total === 'number') return total;
  if (typeof total === 'string' && (total as string).startsWith(EXACT_INTEGER)) return Number((total as string).slice(1));
  return total?.value ?? 0;
}
