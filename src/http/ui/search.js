/**
 * What the page asks deeppage, through the same HTTP API any Elasticsearch client uses. URLs are
 * relative to the page's folder, so the page works behind a proxy that mounts deeppage under a prefix.
 */

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

async function getJson(path) {
  const response = await fetch(new URL(path, API_ROOT), { headers: { accept: 'application/json' } });
  const body = await response.json();
  if (!response.ok) throw new ApiError(response.status, body?.error?.reason ?? response.statusText);
  return body;
}

/** `./` keeps a name that looks like a scheme (`a:b`) a path. */
const indexPath = (index) => `./${encodeURIComponent(index)}`;

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
 * `top_k`, Elasticsearch's), and what it cost: `took` as the server reports it and the wall time
 * the page waited for the whole answer, both in milliseconds.
 */
export async function searchPage({ index, field, order, size, from }, paging) {
  const params = new URLSearchParams({ size: String(size), from: String(from), sort: `${field}:${order}`, track_total_hits: 'true', paging });
  const started = performance.now();
  const body = await getJson(`${indexPath(index)}/_search?${params}`);
  const wallMs = performance.now() - started;
  return { tookMs: body.took, wallMs, total: body.hits.total.value, hits: body.hits.hits };
}

/** The two ways deeppage can answer a page, by the value of the `paging` URI parameter. */
export const PAGING_STRATEGIES = Object.freeze([
  { paging: 'sorted_runs', label: 'sorted_runs (deeppage)' },
  { paging: 'top_k', label: 'top_k (Elasticsearch)' },
]);
