/**
 * A page of `GET /{index}/_search?from=F&size=S&sort={field}:desc` on a target, and what it must
 * be before it is timed: status 200, min(S, max(0, total − F)) hits, sort values (`hit.sort[0]`)
 * numeric and non-increasing, and, where the data set is known, the values at ranks F… exactly.
 */
import { WrongAnswer } from '../lib/suite.ts';
import { esOk } from '../lib/es-client.ts';

/** An Elasticsearch-compatible endpoint and the index and numeric field it is swept on. */
export interface Target {
  /** The rows' strategy: `deeppage`, or `remote <host:port>`. */
  name: string;
  url: string;
  index: string;
  field: string;
  /** Every document's `field`, descending, when the data set is known: `ranked[r]` is the value at rank r. */
  ranked?: Float64Array;
}


export function pagePath(target: Target, from: number, size: number): string {
  return `/${encodeURIComponent(target.index)}/_search?from=${from}&size=${size}&sort=${encodeURIComponent(target.field)}:desc`;
}

/** Fetches and checks one page, `total` being the index's `_count`; returns its sort values (`hit.sort[0]`). */
export async function checkedPage(target: Target, from: number, size: number, total: number): Promise<number[]> {
  const path = pagePath(target, from, size);
  const what = `${target.name}: GET ${path}`;
  const { body } = await esOk<{ hits?: { hits?: { sort?: unknown[] }[] } }>(target.url, 'GET', path);
  const hits = body.hits?.hits;
  if (!Array.isArray(hits)) throw new WrongAnswer(`${what}: no hits.hits in the answer`);
  const want = Math.min(size, Math.max(0, total - from));
  if (hits.length !== want) throw new WrongAnswer(`${what}: ${hits.length} hits, expected ${want} (of ${total} documents)`);
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
  return values;
}
