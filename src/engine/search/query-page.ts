/**
 * The page of a search with a query other than `match_all`. Each segment's live matches (and, when
 * the search scores, their BM25 scores) come from the query executor; `_score` is a real key here,
 * descending by default, and ties go by shard and ordinal as on every other page.
 *
 * With `paging: sorted_runs` (the default) a query's matches, sorted, are kept per segment as a
 * query run in the run cache, under the same budget as the segments' own runs, so every later page
 * of the same search, at any depth, is a rank selection over runs and costs what a first page
 * costs. The run is keyed by the query, the order, the deletes it leaves out and, when it holds
 * scores, the shard's snapshot (its term statistics). A first page costs one pass over the matches
 * and a top-k (a `match` ordered by score: both in one call of the core, which never lists the
 * matches). A page that reaches deep into the matches sorts a segment's run at once, unless the
 * segments that would do so hold more than `runs.pivotMinDocs` matches: then pivots on the first
 * key (or the score) find it (query-pivot-page.ts). Runs a page does not build are built between
 * requests once there is demand for them: the query asked again, or a page past its first (a query asked once
 * builds nothing). A filter over a sort whose segment run is kept takes the run's entries that
 * match, in order, and sorts nothing. Queries that read the clock (`now` in date math) are never kept.
 *
 * With `paging: top_k` it is Elasticsearch's algorithm: every segment's best `from + size` (after a
 * position, its best `size` after it) by a scan of its matches, merged; no run is read or built.
 */
import type { Column, KeyOrder, RunKey, WasmKernels } from '../../core/index.ts';
import { allShardsFailed, badRequest, EsError } from '../errors.ts';
import { filterMatches, matchCount, NO_MATCHES, type Matches } from '../query/matches.ts';
import type { FieldRun } from '../query/column-ranges.ts';
import { bestMatches, matchSegment, scoredInCore, TooManyClauses, type SegmentContext } from '../query/execute.ts';
import type { TermScorer, TermStatistics } from '../query/bm25.ts';
import { readsNow, type Query } from '../query/query.ts';
import { checkQueryStrings } from '../query/query-string.ts';
import type { IndexSnapshot } from '../search-index/index-snapshot.ts';
import { mergePage, type MergeInput, type PageEntry } from './coordinator.ts';
import { scoredPivotPage, sortedPivotPage, type QueryPart } from './query-pivot-page.ts';
import { countThrough, segmentPosition, type AfterKey } from './after.ts';
import type { SegmentRef } from './layout.ts';
import { inGeneration, inSlice, orderName, type OrderKey, type RunName } from './order-key.ts';
import { SORT_WHOLE_RATIO } from './page.ts';
import type { Paging } from './request.ts';
import type { RunCache } from './runs/run-cache.ts';
import { gather, runSpec, SortedRun, topPositions, topPositionsAfter, type RunSpec } from './runs/sorted-run.ts';
import { numberKey } from './sort/number-key.ts';
import type { SortKeySource, SortPlan } from './sort/key.ts';
import { afterScore, isScore } from './sort/score-key.ts';
import { lowerBound } from '../binary-search.ts';

export interface QueryPage {
  page: PageEntry[];
  /** Each page entry's score, when the search shows scores (else empty). */
  scores: number[];
  /** Live matches over every segment. */
  total: number;
  /** The best score of any match, when the search shows scores. */
  maxScore: number | null;
}

export interface QueryPageRequest {
  query: Query;
  /** Hits carry scores (sorted by them, a `_score` clause, or `track_scores`). */
  scored: boolean;
  /** Matches scoring less are left out (`min_score`). */
  minScore?: number;
  from: number;
  size: number;
  paging: Paging;
  /** `search_after` values as the client sent them (checked by the caller against the sort). */
  after?: readonly unknown[];
}

type ReadAs = { map?: Column; offset?: number };

/** One key of a query's page: a field's (or `_doc`'s) key source, or the score. */
type PageKey = { clause: { order: 'asc' | 'desc' }; source?: SortKeySource; score: boolean };

/** @param orderKey names the sort under the request's query: the segments' query runs are kept by it. */
export function queryPage(request: QueryPageRequest, segments: readonly SegmentRef[], targets: readonly IndexSnapshot[], plan: SortPlan, orderKey: OrderKey, runs: RunCache): QueryPage {
  const { scored, minScore, from, size, after } = request;
  const query = request.query;
  const want = from + size;
  // The order: the plan's clauses, `_score` ones included as real keys; `_score` descending when none.
  const keys: PageKey[] = plan.clauses.length > 0 ? plan.clauses.map(({ clause, source }) => ({ clause, source, score: isScore(clause) })) : [{ clause: { order: 'desc' }, score: true }];
  const order: KeyOrder[] = keys.map(({ clause, source, score }) => (score ? { order: clause.order } : source!.order));
  const afterKey: AfterKey | undefined = after && { values: after.map((raw, j) => (keys[j].source ? keys[j].source!.afterValue(raw) : afterScore(raw))), tie: 0 };
  const scoreAt = keys.findIndex((key) => key.score);
  // Scores are computed when hits show them or are ordered by them (with size 0 there are no hits:
  // Elasticsearch only counts, and its max_score is null), or when `min_score` reads them.
  const scoring = (size > 0 && (scored || scoreAt >= 0)) || minScore !== undefined;
  // Where a query run keeps scores: its `_score` key, or one more array after the keys.
  const runScoreKey = scoreAt >= 0 ? scoreAt : scored ? keys.length : undefined;
  // Per target: the query, with the filter of the aliases it was reached through, and its runs' name.
  const runOrder = keys.map(({ clause, source }) => source?.id ?? `_score ${clause.order}`);
  const perTarget = targets.map((target) => {
    const q: Query = target.filter ? { kind: 'bool', must: [query], filter: [target.filter], should: [], mustNot: [], boost: 1 } : query;
    const cacheKey = request.paging === 'sorted_runs' && !readsNow(q) ? orderKey.queryRun(runOrder, scored, target.filter) : undefined;
    // Runs are built between requests on demand: a page past the first, or the query asked again.
    const demand = cacheKey !== undefined && (runs.askedBefore(cacheKey) || from > 0 || afterKey !== undefined);
    return { query: q, cacheKey, demand };
  });

  if (targets.some((target) => target.shards.length > 0)) shardFailures(targets, () => checkQueryStrings(query));
  const now = Date.now();
  const searches = perTarget.map(({ query, demand }): QuerySearch => ({ query, scored, scoring, minScore, want, size, plan, runs, keys, order, afterKey, scoreAt, runScoreKey, paging: request.paging, demand }));
  // In segment order (a deferred segment's slot stays empty until it is collected).
  const inputs: (MergeInput | undefined)[] = [];
  let total = 0, maxScore = -Infinity, skipped = 0;
  // Ordered by score alone, best first, from the top: each segment's share can come from the core at once.
  const byScoreOnly = size > 0 && keys.length === 1 && keys[0].score && keys[0].clause.order === 'desc' && !afterKey && minScore === undefined;
  // Term statistics and scorers are the shard's: each is made once per shard, whichever segment asks first.
  const memoByShard = new Map<object, { statistics: Map<string, TermStatistics>; scorers: Map<string, TermScorer> }>();
  const analyzed = new Map<string, string[]>();
  const keyByShard = new Map<object, RunName>();
  const stored: ReadAs[] = keys.map(() => ({}));
  // A deep page by score alone, or by fields without scores: segments that would sort all their
  // matches now wait here, with the first key of every segment's matches, in case pivots find the
  // page instead (query-pivot-page.ts). Not in a slice, whose segments' parts are kept apart, nor
  // when a segment gave only its best entries.
  const byFields = scoreAt < 0 && plan.keys.length > 0 && !scored;
  let pivoting = size > 0 && !afterKey && minScore === undefined && (byScoreOnly || byFields) && request.paging === 'sorted_runs' && !segments.some((segment) => segment.only);
  // Each keeps its place among the merge's inputs (the merge breaks ties by input order).
  const deferred: { slot: number; segment: SegmentRef; context: SegmentContext; key: RunName; readAs: ReadAs[]; matched: number; part: () => QueryPart; matches: () => Matches }[] = [];
  // Matches the core scored and keeps in its memory for this page (freed when it is done).
  const held: { free(): void }[] = [];
  // Made only if the pivots are taken: a shallow page reads no part.
  const parts: (() => QueryPart)[] = [];
  // A segment's matches as a part: their scores, or their first key read at them (a range read from
  // a field's run gives its matches unsorted, without listing them in order).
  const partOf = (segment: SegmentRef, matches: Matches, readAs: ReadAs[]): QueryPart => {
    if (byScoreOnly) return { segment, key: { values: matches.scores! }, docs: matches.docs };
    const docs = matches.known?.unordered?.() ?? matches.docs;
    return { segment, key: { values: gather(plan.keys[0].column(segment.live), docs), ...readAs[0] }, docs };
  };
  const addRun = (segment: SegmentRef, run: SortedRun, readAs: ReadAs[], slot = inputs.length) => {
    if (run.length === 0) return;
    const shape = plan.asStored ? run.shape(keys.length) : { length: run.length, keys: run.keys.slice(0, keys.length).map((values, j): RunKey<Column> => ({ values, ...readAs[j] })) };
    if (afterKey) skipped += countThrough(shape, order, afterKey);
    inputs[slot] = { segment, run: shape, positions: run.positions, scores: scored ? run.keys[runScoreKey!] : undefined };
    if (pivoting) parts.push(() => ({ segment, key: { values: run.keys[0], ...readAs[0] }, docs: run.positions }));
  };
  const result = (page: PageEntry[]): QueryPage => ({ page, scores: scored ? page.map((entry) => entry.score!) : [], total, maxScore: scored && size > 0 && total > 0 ? maxScore : null });
  // A segment's page candidates, or its run when the page builds it now.
  const collectInto = (segment: SegmentRef, context: SegmentContext, matches: Matches, key: RunName | undefined, readAs: ReadAs[], slot = inputs.length) => {
    const found = collect(searches[segment.target], segment, context, matches, key, readAs);
    if (found instanceof SortedRun) addRun(segment, found, readAs, slot);
    else {
      if (found) inputs[slot] = found;
      if (pivoting && matchCount(matches) > 0) parts.push(() => partOf(segment, matches, readAs));
    }
  };
  try {
    for (const segment of segments) {
      const { live } = segment;
      const target = targets[segment.target];
      const { query, cacheKey } = perTarget[segment.target];
      const shard = target.shards.find((s) => s.shard === segment.shard)!;
      // Keys read as stored (numbers, scores) need nothing per segment.
      const readAs = plan.asStored ? stored : keys.map(({ source }) => (source ? source.readAs(segment, runs) : {}));
      // Scores depend on the shard's term statistics, so a run holding them belongs to its snapshot
      // (one key per shard: a long key is hashed once per string).
      let key = cacheKey;
      if (cacheKey !== undefined && scoring) {
        key = keyByShard.get(shard);
        if (key === undefined) keyByShard.set(shard, (key = inGeneration(cacheKey, shard.generation)));
      }
      // A slice's part of a segment: the matches among its documents, kept apart.
      if (key !== undefined && segment.only) key = inSlice(key, segment.only.name);

      const run = key === undefined ? undefined : runs.get(live, key);
      if (run) {
        total += run.length;
        if (scored && run.maxScore > maxScore) maxScore = run.maxScore;
        if (size > 0) addRun(segment, run, readAs);
        continue;
      }
      let memo = memoByShard.get(shard);
      if (!memo) memoByShard.set(shard, (memo = { statistics: new Map(), scorers: new Map() }));
      const context: SegmentContext = { live, shard: shard.segments, ...memo, analyzed, kernels: runs.kernels, mappings: target.index.mappings, index: target.index.name, now, sortedBy: (field) => sortedBy(field, live, runs) };
      const search = searches[segment.target];
      // A page of the best scores, when the core finds them without listing every match (and the
      // matches are surely too many for the page to build their run now).
      const best = byScoreOnly && !segment.only ? shardFailures(targets, () => bestMatches(query, context, want, key === undefined ? 0 : want * SORT_WHOLE_RATIO)) : undefined;
      if (best) {
        total += best.count;
        if (best.count === 0) continue;
        if (scored && best.scores[0] > maxScore) maxScore = best.scores[0];
        inputs.push({ segment, run: { length: best.docs.length, keys: [{ values: best.scores, ...readAs[0] }] }, positions: best.docs, scores: scored ? best.scores : undefined });
        if (key !== undefined && search.demand) scheduleRun(search, segment, context, key);
        pivoting = false;
        continue;
      }
      // A deep page's matches, scored where they lie in the core's memory when it can: pivots read
      // them in place, and they are copied out only if the page is found otherwise.
      const inCore = pivoting && byScoreOnly && key !== undefined ? shardFailures(targets, () => scoredInCore(query, context)) : undefined;
      if (inCore) {
        held.push(inCore.docs, inCore.scores);
        total += inCore.docs.length;
        maxScore = Math.max(maxScore, greatest(inCore.scores.view));
        const part = { segment, key: { values: inCore.scores }, docs: inCore.docs };
        const matches = () => ({ docs: inCore.docs.view.slice(), scores: inCore.scores.view.slice() });
        if (inCore.docs.length > 0 && want * SORT_WHOLE_RATIO >= inCore.docs.length) deferred.push({ slot: inputs.push(undefined) - 1, segment, context, key: key!, readAs, matched: inCore.docs.length, part: () => part, matches });
        else collectInto(segment, context, matches(), key, readAs);
        continue;
      }
      const matches = shardFailures(targets, () => liveMatches(query, context, scoring, minScore, segment.only?.docs));
      total += matchCount(matches);
      if (scored && size > 0 && matches.scores) maxScore = Math.max(maxScore, greatest(matches.scores));
      if (size === 0) continue;
      const m = matchCount(matches);
      if (pivoting && key !== undefined && m > 0 && want * SORT_WHOLE_RATIO >= m) {
        deferred.push({ slot: inputs.push(undefined) - 1, segment, context, key, readAs, matched: m, part: () => partOf(segment, matches, readAs), matches: () => matches });
        continue;
      }
      collectInto(segment, context, matches, key, readAs);
    }
    if (deferred.length > 0) {
      const sorting = deferred.reduce((n, { matched }) => n + matched, 0);
      const all = pivoting && sorting >= runs.pivotMinDocs ? inTieOrder([...parts, ...deferred.map(({ part }) => part)].map((part) => part()), segments) : undefined;
      const page = all && (byScoreOnly ? scoredPivotPage(all, from, size, runs.kernels) : sortedPivotPage(all, plan, from, size, runs));
      if (page) {
        for (const { segment, context, key } of deferred) if (searches[segment.target].demand) scheduleRun(searches[segment.target], segment, context, key);
        return result(page);
      }
      for (const { slot, segment, context, key, readAs, matches } of deferred) collectInto(segment, context, matches(), key, readAs, slot);
    }
    return result(size === 0 ? [] : mergePage(runs.kernels, inputs.filter((input) => input !== undefined), order, afterKey ? skipped : from, size));
  } finally {
    for (const array of held) array.free();
  }
}

/** The greatest of the values (-Infinity for none). */
function greatest(values: ArrayLike<number>): number {
  let most = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i] > most) most = values[i];
  return most;
}

/** The parts in the order of the search's segments (the merge's tie-break). */
function inTieOrder(parts: QueryPart[], segments: readonly SegmentRef[]): QueryPart[] {
  const rank = new Map(segments.map((segment, i) => [segment, i]));
  return parts.sort((a, b) => rank.get(a.segment)! - rank.get(b.segment)!);
}

/** What one search's segments share, for {@link collect}. */
interface QuerySearch {
  query: Query;
  scored: boolean;
  scoring: boolean;
  minScore?: number;
  want: number;
  size: number;
  plan: SortPlan;
  runs: RunCache;
  keys: PageKey[];
  order: KeyOrder[];
  afterKey?: AfterKey;
  scoreAt: number;
  runScoreKey?: number;
  paging: Paging;
  /** The query's runs are wanted: built between requests when a page does not build them at once. */
  demand: boolean;
}

/**
 * A segment whose query run is not kept (or never kept, `key` undefined): its run, made now when the
 * page reaches deep into the matches (or starts after a position); otherwise the page's candidates
 * from it, and the run made between requests when there is demand for it.
 */
function collect(search: QuerySearch, segment: SegmentRef, context: SegmentContext, matches: Matches, key: RunName | undefined, readAs: ReadAs[]): SortedRun | MergeInput | undefined {
  const { scored, want, plan, runs, keys, scoreAt } = search;
  const { live } = segment;
  const m = matchCount(matches);
  // The segment's own run for the sort, when kept, orders the matches without sorting them
  // (`top_k` paging reads no run: Elasticsearch's way, a scan of the matches).
  const base = search.paging === 'sorted_runs' && scoreAt < 0 && plan.keys.length > 0 ? runs.get(live, plan.runKey) : undefined;
  if (key !== undefined && (search.afterKey || want * SORT_WHOLE_RATIO >= m)) {
    // The whole run now: taken from the segment's run (a walk over all of it) when that costs less
    // than sorting the matches.
    const walk = base && walkBeatsSort(m, live.segment.count);
    return runs.add(live, key, (kernels) => (walk ? runFromBase(kernels, base, live, matches, scored) : sortedRun(kernels, search, live, matches)));
  }
  // A segment without matches keeps an empty run too, so later pages skip it.
  if (key !== undefined && search.demand) scheduleRun(search, segment, context, key);
  if (m === 0) return undefined;
  // The run's head is the page's only from its start, not after a position.
  return base && !search.afterKey ? headInput(segment, base, matches, want, readAs, scored) : topInput(segment, matches, keys, readAs, search.order, search.afterKey, want, runs.kernels, scored);
}

/**
 * The segment's query run, built between requests: the query runs again then, and the run comes
 * from the segment's own run for the sort when that is kept and walking it costs less than sorting.
 */
function scheduleRun(search: QuerySearch, segment: SegmentRef, context: SegmentContext, key: RunName): void {
  const { query, scored, scoring, minScore, plan, runs, scoreAt } = search;
  const { live } = segment;
  const withBase = search.paging === 'sorted_runs' && scoreAt < 0 && plan.keys.length > 0;
  runs.schedule(live, key, (kernels) => {
    const again = liveMatches(query, context, scoring, minScore, segment.only?.docs);
    // The segment's run may have been evicted since the page: it is looked up now.
    const base = withBase && walkBeatsSort(again.docs.length, live.segment.count) && runs.get(live, plan.runKey);
    return base ? runFromBase(kernels, base, live, again, scored) : sortedRun(kernels, search, live, again);
  });
}

/** A query run taken from the segment's run for the sort: its entries that match, in order, no sort. */
function runFromBase(kernels: WasmKernels, base: SortedRun, live: SegmentRef['live'], found: Matches, scored: boolean): SortedRun {
  return base.selected(kernels, live, marks(found, live.segment.count), found.docs.length, scored ? byPosition(found, live.segment.count) : undefined);
}

/** A query run of the matches, sorted. */
function sortedRun(kernels: WasmKernels, { keys, runScoreKey, scoreAt, scored }: QuerySearch, live: SegmentRef['live'], found: Matches): SortedRun {
  return SortedRun.ofMatches(kernels, live, found.docs, matchSpec(keys, live, found), runScoreKey, extraScores(found, scoreAt, scored));
}

/** Whether walking a segment's run of `count` to take `matches` entries costs less than sorting them. */
function walkBeatsSort(matches: number, count: number): boolean {
  return matches * Math.log2(matches + 1) >= count;
}

/**
 * Elasticsearch's collection in one segment: its best `want` matches (after the position, if any)
 * by top-k over the matches.
 */
function topInput(segment: SegmentRef, matches: Matches, keys: readonly PageKey[], readAs: ReadAs[], order: KeyOrder[], afterKey: AfterKey | undefined, want: number, kernels: WasmKernels, scored: boolean): MergeInput {
  const { live } = segment;
  // Every document of a segment without deletes, sorted by fields: its columns as they are, no list, no gather.
  const whole = matches.every !== undefined && !live.deleted && keys.every((key) => !key.score);
  const n = whole ? live.segment.count : matches.docs.length;
  const spec = whole ? runSpec(keys.map(({ source }) => source!), live) : matchSpec(keys, live, matches);
  const k = Math.min(want, n);
  const position = afterKey && segmentPosition(afterKey, spec.keys.map(({ column }, j): RunKey<Column> => ({ values: column, ...readAs[j] })), order, spec.keys.map((key) => key.order));
  const best = position ? topPositionsAfter(kernels, spec, n, k, position) : topPositions(kernels, spec, n, k);
  const runKeys = keys.map((_, j): RunKey<Column> => ({ values: gather(spec.keys[j].column, best), ...readAs[j] }));
  const { scores } = matches;
  return { segment, run: { length: best.length, keys: runKeys }, positions: whole ? best : best.map((i) => matches.docs[i]), ...(scored && scores && { scores: gather(scores, best) }) };
}

/** The first `want` matches in the order of the segment's own run: a walk that stops there, no sort. */
function headInput(segment: SegmentRef, base: SortedRun, matches: Matches, want: number, readAs: ReadAs[], scored: boolean): MergeInput {
  const head = base.head(memberTest(matches, want, segment.live.segment.count), want);
  const shape = { length: head.positions.length, keys: head.keys.map((values, j): RunKey<Column> => ({ values, ...readAs[j] })) };
  const { scores } = matches;
  if (!scored || !scores) return { segment, run: shape, positions: head.positions };
  // Scores (`track_scores`) by position: the matches are in position order.
  const { docs } = matches;
  return { segment, run: shape, positions: head.positions, scores: Float64Array.from(head.positions, (p) => scores[lowerBound(docs, p)]) };
}

/**
 * Whether a position matches, for a walk that reads about want × count / matches entries: the
 * matches' own test when they are known without a list, else a binary search among them for each,
 * unless that costs more than marking them all.
 */
function memberTest(matches: Matches, want: number, count: number): (p: number) => boolean {
  if (matches.known) return matches.known.has;
  const { docs } = matches;
  if (want * Math.log2(docs.length + 1) < docs.length) return (p) => docs[lowerBound(docs, p)] === p;
  const marked = marks(matches, count);
  return (p) => marked[p] === 1;
}

/**
 * The segment's run by a numeric field, ascending, for ranges over it: kept runs serve any range as
 * two binary searches. The first range on a field scans the column and builds the run between
 * requests, as a sort by the field would. `top_k` paging reads ranges from it too: Elasticsearch
 * finds a numeric range in the field's points (a BKD tree, sorted by value), not by a scan.
 */
function sortedBy(field: string, live: SegmentRef['live'], runs: RunCache): FieldRun | undefined {
  const key = numberKey({ kind: 'field', field, order: 'asc', missing: '_last' });
  const runKey = orderName([key.id]);
  const run = runs.get(live, runKey);
  if (!run) {
    runs.schedule(live, runKey, (kernels) => SortedRun.build(kernels, live, runSpec([key], live)));
    return undefined;
  }
  // The run is kept until the search ends (the cache trims between searches).
  return { positions: () => run.positions.view, values: () => run.keys[0].view };
}

/**
 * The segment's live matches (deletes and scores under `min_score` left out).
 * @param only a slice's documents of the segment: the matches among them (match_all reads only them).
 */
function liveMatches(query: Query, context: SegmentContext, scoring: boolean, minScore: number | undefined, only?: Uint32Array): Matches {
  if (only) {
    if (query.kind === 'match_all') return minScore !== undefined && Math.fround(query.boost) < minScore ? NO_MATCHES : { docs: only, ...(scoring && { scores: new Float64Array(only.length).fill(Math.fround(query.boost)) }) };
    const all = liveMatches(query, context, scoring, minScore);
    return filterMatches(all, (doc) => only[lowerBound(only, doc)] === doc);
  }
  const { live } = context;
  // A fresh clause count: a run built later runs the query again on the same context.
  const all = matchSegment(query, { ...context, clauses: { count: 0 } }, scoring);
  const deleted = live.deleted;
  // Known matches come from the snapshot's runs, which leave its deletes out already.
  if (minScore === undefined) return deleted && !all.known ? filterMatches(all, (doc) => deleted[doc] !== 1) : all;
  const scores = all.scores!;
  return filterMatches(all, (doc, i) => scores[i] >= minScore && !(deleted && deleted[doc] === 1));
}

/** The order's columns at the matches (index i is match i). */
function matchSpec(keys: readonly PageKey[], live: SegmentRef['live'], matches: Matches): RunSpec {
  return {
    keys: keys.map(({ clause, source, score }) =>
      score ? { column: matches.scores ?? new Float64Array(matches.docs.length), order: { order: clause.order } } : { column: gather(source!.column(live), matches.docs), order: source!.localOrder(live) },
    ),
  };
}

/** Scores a query run keeps after its keys: when hits show them and no key holds them. */
function extraScores(matches: Matches, scoreAt: number, scored: boolean): Float64Array | undefined {
  return scored && scoreAt < 0 ? (matches.scores ?? new Float64Array(matches.docs.length)) : undefined;
}

/** 1 at each matching position of a segment of `count`. */
function marks(matches: Matches, count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (const doc of matches.docs) out[doc] = 1;
  return out;
}

/** The matches' scores by position. */
function byPosition(matches: Matches, count: number): Float64Array {
  const out = new Float64Array(count);
  const { docs, scores } = matches;
  if (scores) for (let i = 0; i < docs.length; i++) out[docs[i]] = scores[i];
  return out;
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
    // A query too big to rewrite fails as itself; any other error is one in creating the query.
    const error = e.type === 'query_shard_exception' || e instanceof TooManyClauses ? e : badRequest('query_shard_exception', `failed to create query: ${e.reason}`, {}, e);
    throw allShardsFailed(targets.map((target) => ({ index: target.index.name, error: withIndex(error, target) })));
  }
}

/** The error with the index Elasticsearch names in a `query_shard_exception`. */
function withIndex(error: EsError, target: IndexSnapshot): EsError {
  if (error instanceof TooManyClauses) return error;
  return new EsError(error.status, error.type, error.reason, { ...error.fields, index_uuid: target.index.uuid, index: target.index.name }, error.causedBy);
}
