/**
 * The page of a search with a query other than `match_all`: each segment's live matches (and, in
 * query context, their BM25 scores) from the query executor, each segment's best `from + size` by
 * top-k under the search's order (`_score` descending by default, a real key here), then the same
 * coordinator merge as every other page, ties broken by shard and ordinal.
 *
 * This is Elasticsearch's algorithm, so a deep page of a query costs what it costs there; keeping a
 * query's sorted matches between pages (so every page costs a first page's) is still to come.
 */
import type { Column, KeyOrder, RunKey } from '../../core/index.ts';
import { allShardsFailed, badRequest, EsError } from '../errors.ts';
import { filterMatches, type Matches } from '../query/matches.ts';
import { matchSegment } from '../query/execute.ts';
import type { TermStatistics } from '../query/bm25.ts';
import type { Query } from '../query/query.ts';
import type { IndexSnapshot } from '../search-index.ts';
import { mergePage, type MergeInput, type PageEntry } from './coordinator.ts';
import { compareToAfter, views } from './after.ts';
import type { RunCache } from './runs/run-cache.ts';
import { afterNumber } from './sort/after-value.ts';
import { topPositions } from './runs/sorted-run.ts';
import type { SortPlan } from './sort/plan.ts';
import { isScore } from './sort/score-key.ts';
import type { SegmentRef } from './sort/tie-break.ts';

export interface QueryPage {
  page: PageEntry[];
  /** Each page entry's score, when the search scores (else empty). */
  scores: number[];
  /** Live matches over every segment. */
  total: number;
  /** The best score of any match, when the search scores. */
  maxScore: number | null;
}

/** @param after `search_after` values as the client sent them (checked by the caller against the sort). */
/** @param scored whether hits carry scores (sorted by them, a `_score` clause, or `track_scores`). */
export function queryPage(query: Query, segments: readonly SegmentRef[], targets: readonly IndexSnapshot[], plan: SortPlan, scored: boolean, from: number, size: number, runs: RunCache, after?: readonly unknown[]): QueryPage {
  const now = Date.now();
  const want = from + size;
  // The order: the plan's clauses, `_score` ones included as real keys; `_score` descending when none.
  const clauses = plan.clauses.length > 0 ? plan.clauses : [{ clause: { kind: 'score', order: 'desc' } as const, source: undefined }];
  const order: KeyOrder[] = clauses.map(({ clause, source }) => (isScore(clause) ? { order: clause.order } : source!.order));
  const afterValues = after?.map((raw, j) => {
    const { source } = clauses[j];
    return source ? source.afterValue(raw) : afterNumber('_score', raw);
  });
  const inputs: MergeInput[] = [];
  const scoreOf: Map<number, number>[] = [];
  let total = 0, maxScore = -Infinity;
  // Term statistics are the shard's: each is computed once per shard, whichever segment asks first.
  const statsByShard = new Map<object, Map<string, TermStatistics>>();
  for (const segment of segments) {
    const { live } = segment;
    const target = targets[segment.target];
    const shard = target.shards.find((s) => s.shard === segment.shard)!;
    let statistics = statsByShard.get(shard);
    if (!statistics) statsByShard.set(shard, (statistics = new Map()));
    const context = { live, shard: shard.segments, statistics, mappings: target.index.mappings, now };
    const all = shardFailures(targets, () => matchSegment(query, context, scored));
    const matches: Matches = live.deleted ? filterMatches(all, (doc) => live.deleted![doc] !== 1) : all;
    const n = matches.docs.length;
    if (n === 0) continue;
    total += n;
    const scores = matches.scores ?? new Float64Array(n);
    if (scored) for (let i = 0; i < n; i++) if (scores[i] > maxScore) maxScore = scores[i];
    if (size === 0) continue;
    // Per key: the values at the matches, and how they read across segments.
    const keys = clauses.map(({ clause, source }) => {
      if (isScore(clause) || !source) return { column: scores, local: { order: clause.order } as KeyOrder, readAs: {} as { map?: Column; offset?: number } };
      return { column: gather(source.column(live), matches.docs), local: source.localOrder(live), readAs: source.readAs(segment, runs) };
    });
    let candidates: Uint32Array | undefined; // indices into the matches, when search_after leaves some out
    if (afterValues) {
      const run = views({ length: n, keys: keys.map(({ column, readAs }): RunKey<Column> => ({ values: column, ...readAs })) });
      const kept: number[] = [];
      for (let i = 0; i < n; i++) if (compareToAfter(run, order, { values: afterValues, tie: 0 }, i) > 0) kept.push(i);
      candidates = Uint32Array.from(kept);
      for (const key of keys) key.column = gather(key.column, candidates);
    }
    const m = candidates ? candidates.length : n;
    const picked = topPositions(runs.kernels, { keys: keys.map(({ column, local }) => ({ column, order: local })) }, m, Math.min(want, m));
    const best = candidates ? Uint32Array.from(picked, (i) => candidates![i]) : picked;
    if (candidates) for (const key of keys) key.column = gatherBack(key.column, candidates, n);
    const runKeys: RunKey<Column>[] = keys.map(({ column, readAs }) => ({ values: gather(column, best), ...readAs }));
    inputs.push({ segment, run: { length: best.length, keys: runKeys }, positions: Uint32Array.from(best, (i) => matches.docs[i]) });
    scoreOf.push(new Map(Array.from(best, (i) => [matches.docs[i], scores[i]])));
  }
  const page = size === 0 ? [] : mergePage(runs.kernels, inputs, order, from, size);
  const scores = scored ? page.map((entry) => scoreOf[inputs.findIndex((input) => input.segment.live === entry.live)].get(entry.local)!) : [];
  return { page, scores, total, maxScore: scored && total > 0 ? maxScore : null };
}

/**
 * A query the shards cannot build (a value its field cannot read, a syntax error in `q=`) fails
 * them all, as Elasticsearch reports it: `search_phase_execution_exception` over the shard failures.
 */
function shardFailures<T>(targets: readonly IndexSnapshot[], run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (!(e instanceof EsError) || e.status >= 500) throw e;
    const error = e.type === 'query_shard_exception' ? e : badRequest('query_shard_exception', `failed to create query: ${e.reason}`, {}, e);
    throw allShardsFailed(targets.map((target) => ({ index: target.index.name, error: withIndex(error, target) })));
  }
}

/** The error with the index Elasticsearch names in a `query_shard_exception`. */
function withIndex(error: EsError, target: IndexSnapshot): EsError {
  return new EsError(error.status, error.type, error.reason, { ...error.fields, index_uuid: target.index.uuid, index: target.index.name }, error.causedBy);
}

/** The inverse of gathering at `at`: values back at their places among `n` (others unused). */
function gatherBack(column: Float64Array, at: Uint32Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < at.length; i++) out[at[i]] = column[i];
  return out;
}

function gather(column: ArrayLike<number>, at: ArrayLike<number>): Float64Array {
  const out = new Float64Array(at.length);
  for (let i = 0; i < at.length; i++) out[i] = column[at[i]];
  return out;
}
