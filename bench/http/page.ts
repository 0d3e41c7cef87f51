/**
 * A page of `GET /{index}/_search?from=F&size=S&sort={field}:desc[&paging=top_k]` on a target, and
 * what it must be before it is timed: status 200, min(S, max(0, total − F)) hits, each with an
 * `_id`, sort values (`hit.sort[0]`) numeric and non-increasing, and, where the data set is known,
 * the values at ranks F… exactly.
 */
import { WrongAnswer } from '../lib/suite.ts';
import { esOk } from '../lib/es-client.ts';

/** An Elasticsearch-compatible endpoint and the index and numeric field it is swept on. */
export interface Target {
  /** The rows' strategy: `deeppage`, `deeppage-top-k`, or `remote <host:port>`. */
  name: string;
  url: string;
  index: string;
  field: string;
  /** Every document's `field`, descending, when the data set is known: `ranked[r]` is the value at rank r. */
  ranked?: Float64Array;
  /** deeppage's own URI parameter (`paging=top_k`: Elasticsearch's algorithm); never sent to a remote. */
  paging?: 'top_k';
}

/** What a checked page held: its hits' `_id`s and sort values, in order. */
export interface Page {
  ids: string[];
  values: number[];
}

export function pagePath(target: Target, from: number, size: number): string {
  const paging = target.paging ? `&paging=${target.paging}` : '';
  return `/${encodeURIComponent(target.index)}/_search?from=${from}&size=${size}&sort=${encodeURIComponent(target.field)}:desc${paging}`;
}

/** Fetches and checks one page, `total` being the index's `_count`. */
export async function checkedPage(target: Target, from: number, size: number, total: number): Promise<Page> {
  const path = pagePath(target, from, size);
  const what = `${target.name}: GET ${path}`;
  const { body } = await esOk<{ hits?: { hits?: { _id?: unknown; sort?: unknown[] }[] } }>(target.url, 'GET', path);
  const hits = body.hits?.hits;
  if (!Array.isArray(hits)) throw new WrongAnswer(`${what}: no hits.hits in the answer`);
  const want = Math.min(size, Math.max(0, total - from));
  if (hits.length !== want) throw new WrongAnswer(`${what}: ${hits.length} hits, expected ${want} (of ${total} documents)`);
  const ids = hits.map((hit, i) => {
    if (typeof hit._id !== 'string') throw new WrongAnswer(`${what}: hit ${i} has _id ${JSON.stringify(hit._id)}, expected a string`);
    return hit._id;
  });
  const values = hits.map((hit, i) => {
    const value = hit.sort?.[0];
    if (typeof value !== 'number') throw new WrongAnswer(`${what}: hit ${i} has sort ${JSON.stringify(hit.sort)}, expected a number`);
    return value;
  });
  for (let i = 1; i < values.length; i++) {
    if (values[i] > values[i - 1]) throw new WrongAnswer(`${what}: sort values rise at hit ${i}: ${values[i - 1]} then ${values[i]}`);
  }
  if (target.ranked) {
    for (let i = 0; i < values.length; i++) {
      const expected = target.ranked[from + i];
      if (values[i] !== expected) throw new WrongAnswer(`${what}: rank ${from + i} has ${target.field} ${values[i]}, expected ${expected}`);
    }
  }
  return { ids, values };
}

/**
 * Refuses unless `got` (from `what`) equals `want` (from `against`) hit for hit: the sort values,
 * and with `ids` the `_id`s too (two strategies of one server must pick the same documents, ties
 * included; another engine may break ties its own way).
 */
export function assertSamePage(what: string, got: Page, against: string, want: Page, ids: boolean): void {
  if (got.values.length !== want.values.length) throw new WrongAnswer(`${what}: ${got.values.length} hits, ${against} has ${want.values.length}`);
  for (let i = 0; i < want.values.length; i++) {
    if (got.values[i] !== want.values[i] || (ids && got.ids[i] !== want.ids[i])) {
      throw new WrongAnswer(`${what}: hit ${i} is ${got.ids[i]} sort [${got.values[i]}], ${against} has ${want.ids[i]} sort [${want.values[i]}]`);
    }
  }
}

/**
 * A cheap check of every timed answer against its checked page: the body names the page's first and
 * last `_id` (undefined for an empty page, which has nothing to look for).
 */
export function pageVerifier(page: Page): ((body: string) => boolean) | undefined {
  if (page.ids.length === 0) return undefined;
  const first = `"_id":${JSON.stringify(page.ids[0])}`;
  const last = `"_id":${JSON.stringify(page.ids[page.ids.length - 1])}`;
  return (body) => body.includes(first) && body.includes(last);
}
