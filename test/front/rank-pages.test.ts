/**
 * Pages through the front against the cluster's and a reference order, with real processes: a
 * stand-in cluster (deeppage with `search.paging=top_k`, Elasticsearch's algorithm, and a small
 * `index.max_result_window`) and a front before it.
 *
 * Property: for random documents with heavy ties and missing values over 1–5 shards, random sorts
 * (numbers, dates, keywords, doubles; several keys; both orders; missing first or last) and
 * queries, every page through the front, at every depth, past the window too, has the sort values
 * the reference order puts there, the pages together hold every match once, and a page within the
 * window is the cluster's own page (same ids, same bytes of `_source`).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, start, type Started } from './processes.ts';

const WINDOW = 20;

let cluster: Started;
let front: Started;
/** A front whose memory budget keeps the keys of every few documents only (a sparse rank index). */
let sparse: Started;
beforeAll(async () => {
  cluster = await start(['-E', 'search.paging=top_k']);
  [front, sparse] = await Promise.all([start(['-E', `front.hosts=${cluster.url}`]), start(['-E', `front.hosts=${cluster.url}`, '-E', 'indices.sorted_runs.cache.size=300b'])]);
});
afterAll(killAll);

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(new URL(path, url), { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Waits until the front has no build under way. */
async function settled(url: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const stats = (await call(url, 'GET', '/_front/stats')).body;
    if (stats.rank_indices.building === 0) return stats;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('a build never ended');
}

type Field = 'n' | 'f' | 'd' | 'k';
interface Doc {
  n?: number;
  f?: number;
  d?: number;
  k?: string;
}

const docArb = fc.record({ n: fc.integer({ min: -3, max: 3 }), f: fc.constantFrom(-1.5, 0, 2.25, 1e10), d: fc.integer({ min: 0, max: 3 }).map((day) => Date.UTC(2024, 0, 1 + day)), k: fc.constantFrom('a', 'b', 'B', 'ab') }, { requiredKeys: [] });
const clauseArb = fc.record({ field: fc.constantFrom<Field>('n', 'f', 'd', 'k'), order: fc.constantFrom('asc', 'desc'), missing: fc.constantFrom('_first', '_last', undefined) });
const queryArb = fc.constantFrom<[string, unknown, (doc: Doc) => boolean]>(
  ['match_all', undefined, () => true],
  ['term', { term: { k: 'a' } }, (doc) => doc.k === 'a'],
  ['range', { range: { n: { gte: 0 } } }, (doc) => doc.n !== undefined && doc.n >= 0],
);

type Clause = { field: Field; order: string; missing?: string };

/** A clause's value for a document as the cluster shows it in `sort` (null: missing). */
function shown(doc: Doc, field: Field): number | string | null {
  return doc[field] ?? null;
}

function compare(a: Doc, b: Doc, sort: Clause[]): number {
  for (const { field, order, missing = '_last' } of sort) {
    const x = shown(a, field);
    const y = shown(b, field);
    if (x === y) continue;
    if (x === null || y === null) return (x === null) === (missing === '_first') ? -1 : 1;
    const c = x < y ? -1 : 1;
    return order === 'asc' ? c : -c;
  }
  return 0;
}

let indexCount = 0;

describe('pages through the front', () => {
  it('equal the reference order at every depth, past the window too, and the cluster within it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docArb, { minLength: 0, maxLength: 200, size: 'max' }), fc.integer({ min: 1, max: 5 }), fc.array(clauseArb, { minLength: 1, maxLength: 3 }), queryArb, fc.integer({ min: 4, max: 17 }), async (docs, shards, sort, [, query, matches], size) => {
        const index = `pages-${indexCount++}`;
        await call(cluster.url, 'PUT', `/${index}`, { settings: { number_of_shards: shards, max_result_window: WINDOW }, mappings: { properties: { n: { type: 'long' }, f: { type: 'double' }, d: { type: 'date' }, k: { type: 'keyword' } } } });
        if (docs.length > 0) {
          const lines = docs.flatMap((doc, i) => [JSON.stringify({ index: { _index: index, _id: String(i) } }), JSON.stringify(doc)]).join('\n') + '\n';
          const bulk = await fetch(new URL('/_bulk?refresh=true', cluster.url), { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
          expect(bulk.status).toBe(200);
        }
        const sortBody = sort.map(({ field, order, missing }) => ({ [field]: missing === undefined ? { order } : { order, missing } }));
        const expected = docs.filter(matches).sort((a, b) => compare(a, b, sort));
        for (const url of [front.url, sparse.url]) {
        const seen = new Set<string>();
        // The first deep page builds the rank index; then every page is read through it.
        await call(url, 'POST', `/${index}/_search`, { query, sort: sortBody, from: 1, size });
        await settled(url);
        for (let from = 0; from < expected.length + size; from += size) {
          const body = { query, sort: sortBody, from, size };
          const page = await call(url, 'POST', `/${index}/_search`, body);
          expect(page.status).toBe(200);
          const hits = page.body.hits.hits as { _id: string; _source: Doc; sort: unknown[] }[];
          expect(hits.map((hit) => hit.sort)).toEqual(expected.slice(from, from + size).map((doc) => sort.map(({ field }) => shown(doc, field))));
          expect(page.body.hits.total).toEqual({ value: expected.length, relation: 'eq' });
          expect(page.body.pit_id).toBeUndefined();
          for (const hit of hits) {
            expect(seen.has(hit._id)).toBe(false);
            seen.add(hit._id);
            expect(hit._source).toEqual(docs[Number(hit._id)]);
          }
          if (from > 0) expect(page.headers.get('x-deeppage-page')).toBe('warm');
          if (from + size <= WINDOW) {
            // The cluster's own page has the same hits in the same order where ties do not decide it.
            const own = await call(cluster.url, 'POST', `/${index}/_search`, body);
            expect(own.body.hits.hits.map((hit: { sort: unknown[] }) => hit.sort)).toEqual(hits.map((hit) => hit.sort));
          }
        }
        expect(seen.size).toBe(expected.length);
        }
        await call(cluster.url, 'DELETE', `/${index}`);
      }),
      { numRuns: 15 },
    );
    // Walks of more than four windows were sliced on this cluster, and merged.
    expect((await settled(front.url)).rank_indices.sliced_builds).toBeGreaterThan(0);
  }, 300_000);
});
