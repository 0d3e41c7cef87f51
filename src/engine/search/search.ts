/**
 * A search over one or more indices: per-shard checks, the page (page.ts: every segment's sorted run
 * merged from global rank `from`, or Elasticsearch's top `from + size` per segment with
 * `paging=top_k`), then the fetch phase (`_source` for the page only). Everything runs on the
 * snapshots taken at the start, in one turn of the event loop, so no write can tear a page.
 */
import { allShardsFailed, badRequest, EsError, illegalArgument, shardFailure } from '../errors.ts';
import type { IndexSnapshot } from '../search-index/index-snapshot.ts';
import type { PageEntry } from './coordinator.ts';
import { afterKey, checkAfterValues, type AfterKey } from './after.ts';
import { layoutRank, sortedPage, unsortedPage } from './page.ts';
import { OrderKey } from './order-key.ts';
import { queryPage } from './query-page.ts';
import { sliceBy, sliceChecks, slicedLayout } from './slice.ts';
import type { Paging, SearchRequest } from './request.ts';
import type { RunCache } from './runs/run-cache.ts';
import type { SortPlan } from './sort/key.ts';
import { planSort } from './sort/plan.ts';
import { MATCH_ALL_SCORE, shownScore } from './sort/score-key.ts';
import { segmentsInTieOrder } from './sort/tie-break.ts';
import type { RawJson } from '../raw-json.ts';
import { docValueReaders, docValuesOf, type DocValueReader } from './doc-values.ts';
import { sourceOf } from './source-filter.ts';

/** Reads the `_source` of a target's documents at (`shards[i]`, `seqs[i]`) for the fetch phase, in that order: JSON text or its UTF-8 bytes. */
export type SourceLoader = (target: IndexSnapshot, shards: readonly number[], seqs: readonly number[]) => (string | Uint8Array | undefined)[];

export interface SearchResponse {
  took: number;
  timed_out: boolean;
  _shards: { total: number; successful: number; skipped: number; failed: number; failures?: unknown[] };
  hits: { total?: { value: number; relation: 'eq' | 'gte' } | number; max_score: number | null; hits: Hit[] };
}

/** A hit, its fields in the order ES writes them (search-response.ts writes them in this order too). */
export interface Hit {
  _index: string;
  /** Absent only under `stored_fields: _none_`, as in ES. */
  _id?: string;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  _score: number | null;
  _routing?: string;
  /** The stored text, spliced into the response as it is, or the parts a `_source` filter keeps. */
  _source?: Record<string, unknown> | RawJson;
  /** `docvalue_fields`: each field's values. */
  fields?: Record<string, unknown[]>;
  sort?: unknown[];
}

/** One node, never a failover: every primary is in its first term. */
const PRIMARY_TERM = 1;

/**
 * @param nodePaging the node's `search.paging`: how the page is found unless the request says.
 * @param key the request's {@link OrderKey}, when the caller keeps it (a scroll's batches).
 */
export function search(targets: readonly IndexSnapshot[], request: SearchRequest, load: SourceLoader, runs: RunCache, nodePaging: Paging, key = OrderKey.of(request)): SearchResponse {
  const started = performance.now();
  const paging = request.paging ?? nodePaging;
  const { from, size, slice } = request;
  const scroll = request.scroll !== undefined;
  const failures: (EsError | undefined)[] = targets.map((t) => (scroll ? batchCheck(t, size) : windowCheck(t, from, size)));
  if (slice) sliceChecks(targets, slice, scroll, failures);
  const plan = planSort(key, targets, failures);
  const readers = fetchChecks(targets, request, failures);
  const shardTotal = targets.reduce((n, t) => n + t.shards.length, 0);
  const failedTargets = targets.filter((_, t) => failures[t]);
  if (failedTargets.length === targets.length && targets.length > 0) {
    throw allShardsFailed(targets.map((target, t) => ({ index: target.index.name, error: failures[t]! })));
  }
  if (failedTargets.length > 0 && !request.allowPartial) {
    throw allShardsFailed(failedTargets.map((target) => ({ index: target.index.name, error: failures[targets.indexOf(target)]! })), 'Partial shards failure');
  }

  const { query } = request;
  // match_all without `min_score` pages the segments' own runs; other queries their matches
  // (query-page.ts), and so does match_all over an index an alias filters.
  const usesQueryPage = query.kind !== 'match_all' || request.minScore !== undefined || targets.some((target) => target.filter);
  // A query's page reads its own sort values, scores included; match_all's, the runs'.
  const after = request.after && searchAfter(request.after, plan, from, targets, !usesQueryPage);
  const layout = segmentsInTieOrder(targets, (t) => failures[t] !== undefined);
  const { segments, liveCount, shared } = slice ? slicedLayout(targets, layout, slice, sliceBy(slice, scroll)) : layout;

  // Hits carry scores when sorted by them, or asked for (`track_scores`).
  const showsScore = !plan.byField || plan.tracksScore || request.trackScores;
  // match_all scores every hit alike (its boost), so its pages need no scores.
  const matchAllScore = query.kind === 'match_all' ? query.boost : MATCH_ALL_SCORE;
  let page: PageEntry[];
  let scores: number[] | undefined;
  let totalHits = liveCount;
  let maxScore: number | null = null;
  try {
    if (usesQueryPage) {
      const found = queryPage({ query, scored: showsScore, minScore: request.minScore, from, size, paging, after: request.after }, segments, targets, plan, key, runs);
      ({ page, scores, total: totalHits, maxScore } = found);
    } else if (size === 0) page = [];
    else if (!plan.keyed) page = unsortedPage(segments, after ? layoutRank(segments, plan, after, paging, runs) : from, size, paging, runs);
    else page = sortedPage(segments, plan, from, size, paging, runs, after || undefined, shared);
  } finally {
    // Runs over the budget are evicted only now, so none is freed while this search reads it.
    runs.trim();
  }
  const docs = request.source === false ? [] : loadPage(page, targets, load);
  const hits = page.map((entry, i) => fetchHit(entry, targets[entry.target], request, plan, docs[i], showsScore ? shownScore(scores ? scores[i] : matchAllScore) : null, readers[entry.target]));
  if (!usesQueryPage && hits.length > 0 && showsScore) maxScore = matchAllScore;
  const failedShards = failedTargets.reduce((n, t) => n + t.shards.length, 0);
  // Plain literals, not spreads: a spread builds each response object field by field, which took
  // most of this function's time, and leaves objects whose keys are slow to walk (search-response.ts).
  const successful = shardTotal - failedShards;
  const _shards: SearchResponse['_shards'] =
    failedShards > 0
      ? { total: shardTotal, successful, skipped: 0, failed: failedShards, failures: shardFailures(targets, failures) }
      : { total: shardTotal, successful, skipped: 0, failed: 0 };
  const total = totalOf(totalHits, request);
  const max_score = maxScore === null ? null : shownScore(maxScore);
  return {
    took: Math.round(performance.now() - started),
    timed_out: false,
    _shards,
    hits: total === undefined ? { max_score, hits } : { total, max_score, hits },
  };
}

/**
 * The `search_after` position; ES checks it on every shard, so a bad one fails them all, and with
 * no shards (a pattern that matches no index) nothing checks it. A query's page reads the values
 * itself (query-page.ts), so for it they are only checked (`read` false).
 */
function searchAfter(raw: readonly unknown[], plan: SortPlan, from: number, targets: readonly IndexSnapshot[], read: boolean): AfterKey | undefined {
  if (targets.length === 0) return undefined;
  try {
    if (from > 0) throw badRequest('search_exception', '`from` parameter must be set to 0 when `search_after` is used.');
    if (read) return afterKey(plan, raw);
    checkAfterValues(plan, raw);
    return undefined;
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    throw allShardsFailed(targets.map((target) => ({ index: target.index.name, error: e })));
  }
}

/** A scroll's batches may reach any depth: ES checks only their size against the window. */
function batchCheck(target: IndexSnapshot, size: number): EsError | undefined {
  const window = target.index.settings.maxResultWindow;
  if (size <= window) return undefined;
  return illegalArgument(
    `Batch size is too large, size must be less than or equal to: [${window}] but was [${size}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.`,
  );
}

/** ES checks the window on every shard against that shard's index, so it is a shard failure. */
function windowCheck(target: IndexSnapshot, from: number, size: number): EsError | undefined {
  const window = target.index.settings.maxResultWindow;
  if (from + size <= window) return undefined;
  return illegalArgument(
    `Result window is too large, from + size must be less than or equal to: [${window}] but was [${from + size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`,
  );
}

/** The page's stored documents, read target by target (a page of one index, the usual one, in one read). */
function loadPage(page: readonly PageEntry[], targets: readonly IndexSnapshot[], load: SourceLoader): (string | Uint8Array | undefined)[] {
  if (targets.length === 1) return loadTarget(page, targets[0], load);
  const docs: (string | Uint8Array | undefined)[] = new Array(page.length);
  targets.forEach((target, t) => {
    const entries = page.flatMap((entry, i) => (entry.target === t ? [i] : []));
    if (entries.length === 0) return;
    const loaded = loadTarget(entries.map((i) => page[i]), target, load);
    entries.forEach((i, j) => (docs[i] = loaded[j]));
  });
  return docs;
}

/** The stored documents of entries that all belong to `target`, in their order. */
function loadTarget(entries: readonly PageEntry[], target: IndexSnapshot, load: SourceLoader): (string | Uint8Array | undefined)[] {
  const shards = new Array<number>(entries.length);
  const seqs = new Array<number>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const { shard, live, local } = entries[i];
    shards[i] = shard;
    seqs[i] = live.segment.seqs[local];
  }
  return load(target, shards, seqs);
}

/**
 * What the fetch phase checks on every shard before it reads a hit: `stored_fields: _none_` with a
 * `_source` asked for, and the `docvalue_fields` each index can give (their failures join `failures`).
 * @returns per target, the readers of its doc value fields.
 */
function fetchChecks(targets: readonly IndexSnapshot[], request: SearchRequest, failures: (EsError | undefined)[]): (DocValueReader[] | undefined)[] {
  return targets.map((target, t) => {
    if (failures[t]) return undefined;
    if (request.storedFields === false && request.source !== false) {
      failures[t] = badRequest('search_exception', '[stored_fields] cannot be disabled if [_source] is requested');
      return undefined;
    }
    if (request.docValueFields.length === 0) return undefined;
    const readers = docValueReaders(target, request.docValueFields);
    if (readers instanceof EsError) failures[t] = readers;
    else return readers;
    return undefined;
  });
}

function fetchHit(entry: PageEntry, target: IndexSnapshot, request: SearchRequest, plan: SortPlan, source: string | Uint8Array | undefined, score: number | null, readers?: readonly DocValueReader[]): Hit {
  const { segment } = entry.live;
  const local = entry.local;
  // `_routing` is a stored field: `stored_fields: _none_` loads none.
  const routing = request.storedFields === false ? undefined : segment.routings.get(local);
  // Storage is read for `_source` only: everything else a hit carries lives in the segment.
  const _source = request.source === false ? undefined : sourceOf(source ?? '{}', request.source);
  const sort = plan.byField ? plan.values(entry, local, score ?? MATCH_ALL_SCORE) : undefined;
  // The usual hit (no routing, version or doc values) is one literal, its fields in ES's order.
  if (request.storedFields === undefined && !request.version && !request.seqNoPrimaryTerm && routing === undefined && !readers) {
    const _index = target.index.name, _id = segment.ids.id(local);
    if (_source !== undefined) return sort ? { _index, _id, _score: score, _source, sort } : { _index, _id, _score: score, _source };
    return sort ? { _index, _id, _score: score, sort } : { _index, _id, _score: score };
  }
  const hit: Hit = {
    _index: target.index.name,
    ...(request.storedFields !== false && { _id: segment.ids.id(local) }),
    ...(request.version && { _version: segment.versions[local] }),
    ...(request.seqNoPrimaryTerm && { _seq_no: segment.seqs[local], _primary_term: PRIMARY_TERM }),
    _score: score,
  };
  if (routing !== undefined) hit._routing = routing;
  if (_source !== undefined) hit._source = _source;
  const fields = readers && docValuesOf(readers, segment, local);
  if (fields) hit.fields = fields;
  if (sort) hit.sort = sort;
  return hit;
}

/** `hits.total` as the request asks for it; undefined leaves it out (`track_total_hits: false`). */
function totalOf(total: number, request: SearchRequest): SearchResponse['hits']['total'] {
  const track = request.trackTotalHits;
  if (request.restTotalHitsAsInt) return track === false ? -1 : total;
  if (track === false) return undefined;
  if (track === true || total <= track) return { value: total, relation: 'eq' };
  return { value: track, relation: 'gte' };
}

/** ES groups identical shard failures: one entry per failing index. */
function shardFailures(targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): unknown[] {
  return targets.flatMap((target, t) => {
    const failure = failures[t];
    return failure ? [shardFailure(target.index.name, failure, target.shards[0]?.shard ?? 0)] : [];
  });
}
