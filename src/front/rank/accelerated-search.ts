/**
 * Answers a search the front accelerates (search-shape.ts):
 * - **warm**, with a rank index: one `search_after` request in its point in time for the page (and,
 *   when the search has aggregations, one `size: 0` request for them in the same point in time,
 *   sent at the same time), joined into one answer (page-answer.ts);
 * - **cold**, before the index exists: a page within the cluster's default window passes through
 *   (the cluster's own from/size); a deeper one is found by bisecting the first sort key with
 *   `_count` (cold-page.ts), or, where that cannot be done, waits for the index. The index is
 *   built in the background either way.
 * A first page with no index passes through and builds nothing: most searches never go further.
 *
 * Accelerated answers say how they were made: `X-Deeppage-Page` (`warm` or `cold`),
 * `X-Deeppage-Snapshot` (when the point in time was opened, for warm pages) and
 * `X-Deeppage-Cluster-Requests` (cluster requests made for this answer).
 */
import type { ServerResponse } from 'node:http';
import type { ClusterAnswer, ClusterCalls } from '../cluster-calls.ts';
import { sendClusterAnswer } from '../client-answer.ts';
import { coldPage } from './cold-page.ts';
import { elements, member, stringifyExact } from '../json-text.ts';
import { pageAnswer } from './page-answer.ts';
import type { ResultWindows } from './result-windows.ts';
import { ClusterRefused, pointInTimeGone, type Distribution } from './point-in-time.ts';
import type { RankIndex } from './rank-index.ts';
import type { RankIndices } from './rank-indices.ts';
import type { FrontSearch } from './search-shape.ts';

export interface SearchContext {
  calls: ClusterCalls;
  indices: RankIndices;
  windows: ResultWindows;
  /** The cluster's point-in-time dialect (read once from its `GET /`). */
  distribution: (headers: readonly string[]) => Promise<Distribution>;
}

/** Answers the search, or returns false when it should pass through unchanged. A cluster's refusal is the client's answer. */
export async function answerSearch(search: FrontSearch, res: ServerResponse, context: SearchContext): Promise<boolean> {
  try {
    return await answer(search, res, context);
  } catch (error) {
    if (error instanceof ClusterRefused) return sendClusterAnswer(res, error.answer);
    throw error;
  }
}

async function answer(search: FrontSearch, res: ServerResponse, shared: SearchContext): Promise<boolean> {
  // This request's cluster requests, counted apart from a build's in the background.
  const context = { ...shared, calls: shared.calls.forRequest() };
  const { calls, indices } = context;
  if (indices.unwalkable(search)) return false;
  const counted = () => calls.made;
  const ready = indices.lookup(search, false);
  if (ready) {
    if (await warmPage(search, ready, context, res, counted)) return true;
    // Its point in time is gone: the page is answered cold, and a new index built.
  }
  if (search.from === 0) {
    // A first page passes through; an index whose point in time is gone is built again.
    if (ready) indices.lookup(search, true);
    return false;
  }
  try {
    return await coldAnswer(search, res, context, counted);
  } finally {
    // The index is built once the page is answered: the client's page first, then the walk, which on
    // a busy cluster would slow the page's few requests down (a page that waits for it starts it).
    indices.lookup(search, true);
  }
}

/** A page with no rank index: the cluster's own within its window, else bisected, else awaited from the index. */
async function coldAnswer(search: FrontSearch, res: ServerResponse, context: SearchContext, counted: () => number): Promise<boolean> {
  const { calls, indices, windows } = context;
  if (search.from + search.size <= windows.of(search.indices)) {
    // Within the window the cluster's own from/size answers (unless its window is smaller than known).
    const { method, target, body } = search.request;
    const own = await calls.call('page', method, target, search.headers, body);
    if (!windows.refused(search.indices, own)) return sendClusterAnswer(res, own, own.text, { 'X-Deeppage-Page': 'cold', 'X-Deeppage-Cluster-Requests': String(counted()) });
  }
  // A bisected page carries no aggregations: a search with some waits for its rank index instead.
  const cold = search.aggregations ? undefined : await coldPage(calls, search, windows.of(search.indices), await context.distribution(search.headers));
  if (cold) {
    if (cold.answer.status !== 200) return sendClusterAnswer(res, cold.answer);
    const text = pageAnswer(cold.answer.text, { ...totals(search, cold.total), skip: 0, size: search.size, dropTieBreaker: false });
    return sendClusterAnswer(res, cold.answer, text, { 'X-Deeppage-Page': 'cold', 'X-Deeppage-Cluster-Requests': String(counted()) });
  }
  const built = await indices.whenBuilt(search);
  if (!built) return false;
  return warmPage(search, built, context, res, counted, 'cold');
}

/** The page from a rank index; false when its point in time is gone (the index is dropped). */
async function warmPage(search: FrontSearch, index: RankIndex, { calls, indices, windows }: SearchContext, res: ServerResponse, counted: () => number, kind = 'warm'): Promise<boolean> {
  const pit = { id: index.pitId, keep_alive: indices.keepAlive };
  let { after, skip } = index.position(search.from);
  // A sparse index's nearest key may lie more than a window below the page: step up to it in windows of keys.
  const window = windows.of(search.indices);
  while (skip > 0 && skip + search.size > window) {
    const step = Math.min(skip, window);
    const body = stringifyExact({ ...search.walkBody, pit, size: step, _source: false, stored_fields: '_none_', track_total_hits: false });
    const keys = await calls.call('page', 'POST', '/_search', search.headers, after === undefined ? body : `${body.slice(0, -1)},"search_after":${after}}`);
    if (pointInTimeGone(keys)) {
      indices.dropReady(search.key, index);
      return false;
    }
    if (keys.status !== 200) return sendClusterAnswer(res, keys);
    const last = lastSortText(keys.text);
    if (last === undefined) break;
    after = last;
    skip -= step;
  }
  const body = stringifyExact({ ...search.walkBody, ...search.hitsBody, pit, size: search.size + skip, track_total_hits: false });
  const params = search.pageParams.toString();
  const [page, aggregations] = await Promise.all([
    calls.call('page', 'POST', `/_search${params === '' ? '' : `?${params}`}`, search.headers, after === undefined ? body : `${body.slice(0, -1)},"search_after":${after}}`),
    search.aggregations && aggregationsOf(search, pit, calls),
  ]);
  if (pointInTimeGone(page)) {
    indices.dropReady(search.key, index);
    return false;
  }
  const refused = page.status !== 200 ? page : aggregations && aggregations.status !== 200 ? aggregations : undefined;
  if (refused) return sendClusterAnswer(res, refused);
  const newest = /"pit_id"\s*:\s*"([^"]*)"/.exec(page.text.slice(0, 4096));
  if (newest) index.pitId = newest[1];
  const text = pageAnswer(page.text, { ...totals(search, index.documents), skip, size: search.size, dropTieBreaker: true, aggregations: aggregations && aggregationsText(aggregations.text) });
  return sendClusterAnswer(res, page, text, {
    'X-Deeppage-Page': kind,
    'X-Deeppage-Snapshot': index.openedAt.toISOString(),
    'X-Deeppage-Cluster-Requests': String(counted()),
  });
}

/** The search's aggregations over the same point in time: the query and what else decides the matches, `size: 0`. */
function aggregationsOf(search: FrontSearch, pit: { id: string; keep_alive: string }, calls: ClusterCalls): Promise<ClusterAnswer> {
  const { sort: _sort, post_filter: _postFilter, ...matches } = search.walkBody;
  const body = { ...matches, [search.aggregations!.name]: search.aggregations!.value, pit, size: 0, track_total_hits: false };
  return calls.call('aggregations', 'POST', `/_search${search.typedKeys ? '?typed_keys=true' : ''}`, search.headers, body);
}

/** The `sort` of an answer's last hit, as its text. */
function lastSortText(text: string): string | undefined {
  const hits = member(text, 0, 'hits');
  const list = hits && member(text, hits.start, 'hits');
  const last = list && elements(text, list.start).at(-1);
  const sort = last && member(text, last.start, 'sort');
  return sort && text.slice(sort.start, sort.end);
}

/** The `aggregations` of an answer, as its text (spans, not a parse: the cluster's numbers stay its own). */
function aggregationsText(text: string): string | undefined {
  const found = member(text, 0, 'aggregations');
  return found && text.slice(found.start, found.end);
}

function totals(search: FrontSearch, total: number) {
  return { total, trackTotalHits: search.trackTotalHits, restTotalHitsAsInt: search.restTotalHitsAsInt };
}
