/**
 * A page as the front suite asks it, `POST /{index}/_search` with `{from, size, sort}` in the body
 * (the form clients send), and what an answer must be before it is timed: the cluster's 400 "Result
 * window is too large" past its window, or 200 with min(size, total − from) hits whose sort values
 * are the data set's at ranks from… exactly. The `X-Deeppage-*` headers say how the front answered.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer, Call } from './client.ts';

/** One sort key of the benchmark and every document's value of it in that order. */
export interface SortKey {
  /** For tables: `price desc`. */
  label: string;
  field: string;
  order: 'asc' | 'desc';
  /** `ranked[r]` is the value at rank r. */
  ranked: ArrayLike<number | string>;
}

export function pageCall(index: string, key: SortKey, from: number, size: number): Call {
  return { method: 'POST', path: `/${encodeURIComponent(index)}/_search`, body: JSON.stringify({ from, size, sort: [{ [key.field]: key.order }] }) };
}

/** What a checked page held, in order. */
export interface Page {
  ids: string[];
  values: (number | string)[];
}

/** The cluster's refusal of a page past `index.max_result_window`. */
export function isWindowRefusal(answer: Answer): boolean {
  return answer.status === 400 && answer.body.includes('Result window is too large');
}

/** The page in `answer`, or why it is wrong. */
export function readPage(answer: Answer, key: SortKey, from: number, size: number): Page | string {
  if (answer.status !== 200) return `status ${answer.status}: ${answer.body.slice(0, 200)}`;
  const hits = (JSON.parse(answer.body) as { hits?: { hits?: { _id?: unknown; sort?: unknown[] }[] } }).hits?.hits;
  if (!Array.isArray(hits)) return 'no hits.hits in the answer';
  const want = Math.min(size, Math.max(0, key.ranked.length - from));
  if (hits.length !== want) return `${hits.length} hits, expected ${want}`;
  const page: Page = { ids: [], values: [] };
  for (let i = 0; i < hits.length; i++) {
    const { _id: id, sort } = hits[i];
    if (typeof id !== 'string') return `hit ${i} has _id ${JSON.stringify(id)}`;
    const value = sort?.[0];
    if (value !== key.ranked[from + i]) return `rank ${from + i} has ${key.field} ${JSON.stringify(value)}, expected ${JSON.stringify(key.ranked[from + i])}`;
    page.ids.push(id);
    page.values.push(value as number | string);
  }
  return page;
}

/** Where two pages of the same request differ (the front's page against the cluster's), or undefined. */
export function pageDifference(got: Page, want: Page): string | undefined {
  for (let i = 0; i < want.ids.length; i++) {
    if (got.ids[i] !== want.ids[i]) return `hit ${i} is ${got.ids[i]}, the cluster's is ${want.ids[i]}`;
  }
  return got.ids.length === want.ids.length ? undefined : `${got.ids.length} hits, the cluster's page has ${want.ids.length}`;
}

/** How the front says it answered: `X-Deeppage-Page` (warm or cold; none when it passed the request through). */
export interface FrontMark {
  page?: string;
  clusterRequests?: number;
  snapshot?: string;
}

export function frontMark(headers: IncomingHttpHeaders): FrontMark {
  const one = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const requests = one('x-deeppage-cluster-requests');
  return { page: one('x-deeppage-page'), clusterRequests: requests === undefined ? undefined : Number(requests), snapshot: one('x-deeppage-snapshot') };
}

/** A cheap check of a timed answer against its checked page: the body names the page's first and last `_id`. */
export function namesPage(page: Page): (answer: Answer) => boolean {
  if (page.ids.length === 0) return (answer) => answer.status === 200;
  const first = `"_id":${JSON.stringify(page.ids[0])}`;
  const last = `"_id":${JSON.stringify(page.ids[page.ids.length - 1])}`;
  return (answer) => answer.status === 200 && answer.body.includes(first) && answer.body.includes(last);
}
