/**
 * What the page asks deeppage, through the same HTTP API any Elasticsearch client uses. URLs are
 * relative to the page's folder, so the page works behind a proxy that mounts deeppage under a prefix.
 * Over a front, the same questions reach the cluster through it, and pages come from the front.
 */
import { isFrontAnswer } from './depth.js';

/** Where the API is: the parent of `/_deeppage/`. */
const API_ROOT = new URL('../', import.meta.url);

/** ES's default `index.max_result_window`, for an index whose settings leave it out. */
const DEFAULT_RESULT_WINDOW = 10000;

/** Field types a search can sort on: every mapped type but `text` (objects only hold fields). */
const UNSORTABLE_TYPES = new Set(['text', 'object', 'nested']);

/** An error answer, with the reason ES gave for it. */
export class ApiError extends Error {
  constructor(status, reason) {
    super(`${status}: ${reason}`);
    this.status = status;
  }
}

const getJson = async (path) => (await fetchJson(path)).body;

async function fetchJson(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) };
  const response = await fetch(new URL(path, API_ROOT), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new ApiError(response.status, answer?.error?.reason ?? response.statusText);
  return { body: answer, headers: response.headers };
}

/** `./` keeps a name that looks like a scheme (`a:b`) a path. */
const indexPath = (index) => `./${encodeURIComponent(index)}`;

/**
 * Whether the page runs over a front of a cluster. Asked of `_nodes/stats`, which every server the
 * page can run on answers with 200 (a 4xx would be an error in the browser's console on each load);
 * `filter_path` keeps the cluster's answer down to nothing but the front's own figures.
 */
export async function isFront() {
  try {
    return isFrontAnswer(await getJson('_nodes/stats?filter_path=front'));
  } catch {
    return false;
  }
}

/** The name of every open index, in order (`GET /_stats`). */
export async function listIndices() {
  const stats = await getJson('_stats');
  return Object.keys(stats.indices ?? {}).sort();
}

/** What paging an index needs: its sortable fields (`GET /{index}`) and its document count (`GET /{index}/_count`). */
export async function describeIndex(index) {
  const [info, count] = await Promise.all([getJson(indexPath(index)), getJson(`${indexPath(index)}/_count`)]);
  const { mappings, settings } = info[index];
  return {
    sortFields: sortableFields(mappings.properties ?? {}),
    maxResultWindow: Number(settings.index.max_result_window ?? DEFAULT_RESULT_WINDOW),
    total: count.count,
  };
}

/** The full name of each sortable field (`location.lat`, `name.keyword`), in mapping order. */
function sortableFields(properties, prefix = '') {
  return Object.entries(properties).flatMap(([name, spec]) => {
    const path = `${prefix}${name}`;
    if (spec.properties) return sortableFields(spec.properties, `${path}.`);
    const own = UNSORTABLE_TYPES.has(spec.type) ? [] : [path];
    return [...own, ...sortableFields(spec.fields ?? {}, `${path}.`)];
  });
}

/**
 * One page of `index` sorted on one field, with `paging` (`sorted_runs`, deeppage's own, or
 * `top_k`, Elasticsearch's, or `front`: the front's), and what it cost: `took` as the server reports
 * it and the wall time the page waited for the whole answer, both in milliseconds; over a front, how
 * the front made it ({@link servedBy}).
 */
export async function searchPage({ index, field, order, size, from }, paging) {
  const params = new URLSearchParams({ size: String(size), from: String(from), sort: `${field}:${order}`, track_total_hits: 'true', paging });
  const started = performance.now();
  const { body, headers } = paging === FRONT.paging ? await frontSearch({ index, field, order, size, from }) : await fetchJson(`${indexPath(index)}/_search?${params}`);
  const wallMs = performance.now() - started;
  return { tookMs: body.took, wallMs, total: body.hits.total.value, hits: body.hits.hits, served: servedBy(headers) };
}

/**
 * A page through a front: the sort in the body and no `paging` parameter, as the front answers
 * such a search itself (a URI `sort=` passes through, and a cluster knows no `paging`).
 */
function frontSearch({ index, field, order, size, from }) {
  return fetchJson(`${indexPath(index)}/_search`, { method: 'POST', body: { from, size, sort: [{ [field]: { order } }], track_total_hits: true } });
}

/**
 * How a front made a page, from its answer's headers: `page` is `warm` (from its rank index) or
 * `cold` (before one was built), `snapshot` when the rank index's point in time was opened (an ISO
 * time), `clusterRequests` how many requests the page cost the cluster. Undefined for an answer a
 * front did not make (deeppage's own, or one the front passed through to the cluster).
 */
export function servedBy(headers) {
  const page = headers.get('x-deeppage-page');
  if (page === null) return undefined;
  const requests = headers.get('x-deeppage-cluster-requests');
  return { page, snapshot: headers.get('x-deeppage-snapshot') ?? undefined, clusterRequests: requests === null ? undefined : Number(requests) };
}

/** The two ways deeppage can answer a page, by the value of the `paging` URI parameter. */
export const PAGING_STRATEGIES = Object.freeze([
  { paging: 'sorted_runs', label: 'sorted_runs (deeppage)' },
  { paging: 'top_k', label: 'top_k (Elasticsearch)' },
]);

const FRONT = Object.freeze({ paging: 'front', label: 'front (deeppage)' });

/** The ways a page is asked for: over a front, the front's one way (the cluster's `paging` is its own). */
export const strategiesFor = (front) => (front ? Object.freeze([FRONT]) : PAGING_STRATEGIES);
