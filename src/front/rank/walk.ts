/**
 * Builds a rank index: opens a point in time on the cluster and walks the matches' sort values in
 * order with `search_after` (`_source: false`, no stored fields: only `sort` comes back), each batch
 * as large as the cluster's result window allows, keeping every `stride`-th document's keys and the
 * point in time's `_shard_doc` tie-breaker.
 *
 * A large walk is sliced (`slice: {id, max}` in the point in time), the slices walked side by side
 * and merged by their sort values (sort-order.ts): on a cluster, a slice's requests touch only its
 * share of each shard, so slicing is cheaper as well as parallel. A cluster that refuses slices, or
 * values the front cannot order, make it walk unsliced.
 *
 * A walk never makes a half index: an answer with failed shards, a refusal, or a point in time
 * lost midway fails the whole walk (and closes the point in time it opened).
 */
import type { WasmKernels } from '../../core/index.ts';
import type { ClusterAnswer, ClusterCalls } from '../cluster-calls.ts';
import { EXACT_INTEGER, exactText, parseExact, stringifyExact } from '../json-text.ts';
import { KeyColumnBuilder, type KeyColumn } from './key-columns.ts';
import { ClusterRefused, closePointInTime, openPointInTime, type Distribution } from './point-in-time.ts';
import { RankIndex } from './rank-index.ts';
import type { ResultWindows } from './result-windows.ts';
import type { FrontSearch } from './search-shape.ts';
import { compareValues, sortOrders, Unordered, type KeyOrder } from './sort-order.ts';

/** Hits per walk request: the most a search may ask for under the default `max_result_window`. */
export const WALK_BATCH = 10_000;

/** A walk's answers hold only what it reads: the cluster writes, and the front parses, nothing else. */
const WALK_TARGET = `/_search?filter_path=${['pit_id', '_shards.failed', 'hits.total', 'hits.hits.sort'].join(',')}`;

/** Slices a walk is split into at most, and the matches each slice is given at least (in batches). */
const MAX_SLICES = 8;
const BATCHES_PER_SLICE = 2;

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

/** A slice refused by the cluster: the walk goes unsliced. */
class SlicesRefused extends Error {}

/** One slice's (or the whole walk's) sort values in order, column by column (the last column the tie-breaker). */
interface Run {
  length: number;
  columns: unknown[][];
}

export async function walk(search: FrontSearch, options: WalkOptions): Promise<RankIndex> {
  const { calls, distribution, kernels, budgetBytes, keepAlive, windows, opened } = options;
  const started = performance.now();
  const openedAt = new Date();
  const session = new WalkSession(search, calls, windows, keepAlive, await openPointInTime(calls, distribution, search.indices, search.pitParams, keepAlive, search.headers));
  opened?.(session.pitId);
  try {
    // The first batch, unsliced, tells the matches and the cluster's window: a walk of few batches goes on from it.
    const first = await session.first();
    const total = totalOf(first.hits.total);
    const keys = search.sortKeys + 1;
    const slices = Math.min(MAX_SLICES, Math.floor(total / (BATCHES_PER_SLICE * session.batch)));
    let built: Built | undefined;
    if (slices > 1) {
      try {
        const runs = await Promise.all(Array.from({ length: slices }, (_, id) => session.run(keys, { id, max: slices })));
        built = { slices, ...kept(merged(runs, sortOrders(search.walkBody.sort)), lengthOf(runs), keys, budgetBytes, kernels) };
      } catch (error) {
        if (!(error instanceof SlicesRefused) && !(error instanceof Unordered)) throw error;
      }
    }
    if (!built) {
      const run = await session.run(keys, undefined, slices > 1 ? undefined : first);
      built = { slices: 1, ...kept(rows(run), run.length, keys, budgetBytes, kernels) };
    }
    const { documents, stride, columns, lastKeys, slices: walked } = built;
    return new RankIndex(documents, stride, columns, lastKeys, session.pitId, openedAt, performance.now() - started, walked);
  } catch (error) {
    await closePointInTime(calls, distribution, session.pitId, search.headers).catch(() => undefined);
    throw error;
  }
}

/** The requests of one walk, in one point in time (whose id the newest answer gives). */
class WalkSession {
  batch: number;

  constructor(
    private readonly search: FrontSearch,
    private readonly calls: ClusterCalls,
    private readonly windows: ResultWindows,
    private readonly keepAlive: string,
    public pitId: string,
  ) {
    this.batch = Math.min(WALK_BATCH, windows.of(search.indices));
  }

  /** The first batch of the whole walk, with the number of matches. */
  async first(): Promise<WalkAnswer> {
    for (;;) {
      const batch = this.batch;
      const parsed = await this.request(this.batchBody(batch, true), undefined);
      // A window learnt smaller than the batch: ask again.
      if (batch === this.batch) return parsed;
    }
  }

  /** The sort values of a slice's matches (or all of them, from their first batch if given), in order. */
  async run(keys: number, slice?: { id: number; max: number }, first?: WalkAnswer): Promise<Run> {
    const columns: unknown[][] = Array.from({ length: keys }, () => []);
    let length = 0;
    let after: string | undefined;
    for (let given = first; ; given = undefined) {
      const batch = this.batch;
      const parsed = given ?? (await this.request({ ...this.batchBody(batch, false), ...(slice && { slice }) }, after, slice !== undefined));
      // A window learnt smaller than the batch: ask again.
      if (batch > this.batch) continue;
      const hits = parsed.hits.hits ?? [];
      for (const { sort } of hits) {
        if (sort.length !== keys) throw new NotWalkable('the cluster adds no tie-breaker to a sort in a point in time');
        for (let key = 0; key < keys; key++) columns[key].push(sort[key]);
      }
      length += hits.length;
      if (hits.length > 0) after = `[${hits.at(-1)!.sort.map(exactText).join(',')}]`;
      if (hits.length < batch) return { length, columns };
    }
  }

  private batchBody(size: number, count: boolean): Record<string, unknown> {
    return { size, _source: false, stored_fields: '_none_', track_total_hits: count };
  }

  private async request(own: Record<string, unknown>, after: string | undefined, sliced = false): Promise<WalkAnswer> {
    const body = stringifyExact({ ...this.search.walkBody, pit: { id: this.pitId, keep_alive: this.keepAlive }, ...own });
    const answer = await this.calls.call('walk', 'POST', WALK_TARGET, this.search.headers, after === undefined ? body : `${body.slice(0, -1)},"search_after":${after}}`);
    if (this.windows.refused(this.search.indices, answer)) {
      this.batch = Math.min(this.batch, this.windows.of(this.search.indices));
      return { hits: { hits: [] } };
    }
    if (answer.status !== 200) {
      if (sliced && answer.status === 400 && refusesSlices(answer)) throw new SlicesRefused();
      throw new ClusterRefused(answer);
    }
    const parsed = parseExact(answer.text) as WalkAnswer;
    // filter_path leaves out what is empty: no hits, no `hits.hits`.
    parsed.hits ??= {};
    parsed.hits.hits ??= [];
    if ((parsed._shards?.failed ?? 0) > 0) throw new ShardsFailed(`the cluster's walk answer has ${parsed._shards!.failed} failed shards`);
    if (typeof parsed.pit_id === 'string') this.pitId = parsed.pit_id;
    return parsed;
  }
}

function refusesSlices(answer: ClusterAnswer): boolean {
  return answer.text.includes('slice');
}

interface Built {
  /** Slices walked (1: one stream). */
  slices: number;
  documents: number;
  stride: number;
  columns: KeyColumn[];
  lastKeys: string | undefined;
}

function lengthOf(runs: Run[]): number {
  return runs.reduce((sum, run) => sum + run.length, 0);
}

/** The kept keys of `documents` rows in order: every one, or every stride-th past the budget. Nothing is allocated in wasm memory until every row is read. */
function kept(ordered: Iterable<unknown[]>, documents: number, keys: number, budgetBytes: number, kernels: WasmKernels): Omit<Built, 'slices'> {
  const stride = Math.max(1, Math.ceil((documents * keys * BYTES_PER_KEY) / Math.max(budgetBytes, 1)));
  const builders = Array.from({ length: keys }, () => new KeyColumnBuilder(Math.ceil(documents / stride) + 1));
  let rank = 0;
  let last: unknown[] | undefined;
  for (const row of ordered) {
    rank++;
    if (rank % stride === 0) row.forEach((value, key) => builders[key].push(value));
    last = row;
  }
  // The last match's keys, kept aside only when its rank's keys are not kept (a sparse index).
  const lastKeys = last && rank % stride !== 0 ? `[${last.map(exactText).join(',')}]` : undefined;
  return { documents: rank, stride, columns: builders.map((builder) => builder.build(kernels)), lastKeys };
}

/** A run's rows in order. */
function* rows(run: Run): Generator<unknown[]> {
  for (let i = 0; i < run.length; i++) yield run.columns.map((column) => column[i]);
}

/** The rows of sorted runs in one order: a heap of the runs' heads. */
function* merged(runs: Run[], orders: KeyOrder[]): Generator<unknown[]> {
  const at = runs.map(() => 0);
  const less = (a: number, b: number): boolean => {
    for (let key = 0; key < orders.length; key++) {
      const c = compareValues(runs[a].columns[key][at[a]], runs[b].columns[key][at[b]], orders[key]);
      if (c !== 0) return c < 0;
    }
    return a < b;
  };
  const heap = runs.map((_, i) => i).filter((i) => runs[i].length > 0);
  const down = (from: number) => {
    for (let i = from; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && less(heap[l], heap[best])) best = l;
      if (r < heap.length && less(heap[r], heap[best])) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best], heap[i]];
      i = best;
    }
  };
  for (let i = Math.floor(heap.length / 2) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const run = heap[0];
    yield runs[run].columns.map((column) => column[at[run]]);
    if (++at[run] === runs[run].length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    down(0);
  }
}

interface WalkAnswer {
  pit_id?: string;
  _shards?: { failed?: number };
  hits: { total?: number | { value: number }; hits?: { sort: unknown[] }[] };
}

function totalOf(total: WalkAnswer['hits']['total']): number {
  if (typeof total === 'number') return total;
  if (typeof total === 'string' && (total as string).startsWith(EXACT_INTEGER)) return Number((total as string).slice(1));
  return total?.value ?? 0;
}
