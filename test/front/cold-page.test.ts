/**
 * Cold pages (issue 38) against a real stand-in cluster (`search.paging: top_k`, `max_result_window`
 * 50): at any `from`, `coldPage` gives exactly the ranks the cluster's own order has there, read as a
 * `search_after` walk in a point in time over the whole order. Random numeric, date and double keys
 * with heavy ties (one value held by more documents than the window), values missing from more
 * documents than the window, multi-valued fields, 1, 3 and 5 shards and two indices at once, both
 * orders, missing first and last, with and without a term filter; and the requests it took, against
 * log2 of the key range. The walk inside a tie in both dialects' points in time.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterCalls } from '../../src/front/cluster-calls.ts';
import { ClusterHosts } from '../../src/front/cluster-hosts.ts';
import { coldPage, firstKey, mappedType } from '../../src/front/rank/cold-page.ts';
import { frontSearch } from '../../src/front/rank/search-shape.ts';
import { compareCodePoints } from '../../src/front/rank/sort-order.ts';
import { exchange, killAll, start } from './processes.ts';

const WINDOW = 50;
const DOCS = 300;
const SHARDS = [1, 3, 5];
const DAY = 86_400_000;
const EPOCH_2020 = Date.UTC(2020, 0, 1);

type Value = number | number[] | undefined;
interface Doc {
  id: string;
  tag: string;
  kw: string;
  n: Value;
  d: Value;
  x: Value;
  /** A keyword: code points from several planes, a value held by more documents than the window, some multi-valued. */
  s: string | string[] | undefined;
}

/** A seeded generator, so that every run loads the same documents (fast-check varies the searches). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function documents(): Doc[] {
  const r = random(38);
  /** `tie` of the documents hold `value`, `missing` none, the rest one or two values of `other`. */
  const pick = (tie: number, value: number, missing: number, other: () => number): Value => {
    const u = r();
    if (u < missing) return undefined;
    if (u < missing + tie) return value;
    return r() < 0.15 ? [other(), other()] : other();
  };
  const wideLong = () => (r() < 0.5 ? Math.floor(r() * 20) : Math.floor(r() * 2_000_000) - 1_000_000);
  const day = () => EPOCH_2020 + Math.floor(r() * 10) * DAY + (r() < 0.3 ? Math.floor(r() * DAY) : 0);
  const wideDouble = () => (r() < 0.5 ? Math.floor(r() * 8) / 4 : r() * 200 - 100);
  const letters = ['a', 'b', 'z', 'é', 'ß', '中', '😃', '\u0000', 'A', '0'];
  const word = () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => letters[Math.floor(r() * letters.length)]).join('');
  const keyword = (): string | string[] | undefined => {
    const u = r();
    if (u < 0.15) return undefined;
    if (u < 0.45) return 'tie';
    return r() < 0.15 ? [word(), word()] : word();
  };
  return Array.from({ length: DOCS }, (_, i) => ({
    id: `d${i}`,
    tag: r() < 0.5 ? 'a' : 'b',
    kw: `k${Math.floor(r() * 30)}`,
    n: pick(0.35, 7, 0.2, wideLong),
    d: pick(0.3, EPOCH_2020 + 3 * DAY, 0.15, day),
    x: pick(0.3, 0.5, 0.2, wideDouble),
    s: keyword(),
  }));
}

const docs = documents();
/** The Elasticsearch-dialect stand-in; an OpenSearch-dialect one for the point-in-time walk. */
let url: string;
let openSearchUrl: string;

async function json(method: string, path: string, body?: unknown, at = url): Promise<any> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const answer = await exchange(at, method, path, text === undefined ? [] : ['Content-Type', 'application/json'], text);
  const parsed = JSON.parse(answer.body.toString('utf8'));
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.toString('utf8')}`);
  return parsed;
}

async function load(index: string, shards: number, at = url): Promise<void> {
  const mappings = { properties: { tag: { type: 'keyword' }, kw: { type: 'keyword' }, n: { type: 'long' }, d: { type: 'date' }, x: { type: 'double' }, s: { type: 'keyword' } } };
  await json('PUT', `/${index}`, { settings: { number_of_shards: shards, 'index.max_result_window': WINDOW }, mappings }, at);
  const lines = docs.flatMap(({ id, ...fields }) => {
    const source: Record<string, unknown> = { tag: fields.tag, kw: fields.kw };
    if (fields.s !== undefined) source.s = fields.s;
    for (const name of ['n', 'd', 'x'] as const) {
      const value = fields[name];
      // Dates go as ISO strings half the time, as a client would send them.
      if (value !== undefined) source[name] = name === 'd' && !Array.isArray(value) && id.length % 2 === 0 ? new Date(value).toISOString() : value;
    }
    return [JSON.stringify({ index: { _id: id } }), JSON.stringify(source)];
  });
  const bulk = await json('POST', `/${index}/_bulk?refresh=true`, `${lines.join('\n')}\n`, at);
  expect(bulk.errors).toBe(false);
}

beforeAll(async () => {
  ({ url } = await start(['-E', 'search.paging=top_k']));
  ({ url: openSearchUrl } = await start(['-E', 'search.paging=top_k', '-E', 'compatibility.distribution=opensearch']));
  for (const shards of SHARDS) await load(`cold${shards}`, shards);
  await load('cold3', 3, openSearchUrl);
}, 60_000);
afterAll(killAll);

interface Case {
  /** The index expression: one index, or two holding the same documents. */
  indices: string;
  field: 'n' | 'd' | 'x' | 's';
  desc: boolean;
  missingFirst: boolean;
  filtered: boolean;
  /** A second key after the first: ties of the first are ordered by it (then by the cluster's tie-break). */
  second?: boolean;
}

function bodyOf(c: Case): Record<string, unknown> {
  const sort: unknown[] = [{ [c.field]: { order: c.desc ? 'desc' : 'asc', missing: c.missingFirst ? '_first' : '_last' } }];
  if (c.second) sort.push({ kw: 'desc' });
  return c.filtered ? { query: { term: { tag: 'a' } }, sort } : { sort };
}

/** A hit as the tests name it: its index and id. */
const named = (hit: { _index: string; _id: string }) => `${hit._index}/${hit._id}`;

/** The cluster's whole order: a search_after walk in a point in time, `_shard_doc` last. */
const orders = new Map<string, string[]>();
async function order(c: Case, at = url): Promise<string[]> {
  const key = JSON.stringify([c, at]);
  const known = orders.get(key);
  if (known) return known;
  const elastic = at === url;
  const opened = await json('POST', `/${c.indices}/${elastic ? '_pit' : '_search/point_in_time'}?keep_alive=1m`, undefined, at);
  const id = elastic ? opened.id : opened.pit_id;
  const body = bodyOf(c);
  const ids: string[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const page = await json('POST', '/_search', { ...body, sort: [...(body.sort as unknown[]), { _shard_doc: 'asc' }], pit: { id, keep_alive: '1m' }, size: WINDOW, _source: false, track_total_hits: false, ...(after ? { search_after: after } : {}) }, at);
    const hits = page.hits.hits as { _index: string; _id: string; sort: unknown[] }[];
    if (hits.length === 0) break;
    ids.push(...hits.map(named));
    after = hits.at(-1)!.sort;
  }
  await json('DELETE', elastic ? '/_pit' : '/_search/point_in_time', elastic ? { id } : { pit_id: [id] }, at);
  checkAgainstDocuments(c, ids);
  // Inside the window, the walk is the cluster's own from/size.
  const own = await json('POST', `/${c.indices}/_search`, { ...bodyOf(c), size: WINDOW, _source: false }, at);
  expect(own.hits.hits.map(named)).toEqual(ids.slice(0, WINDOW));
  orders.set(key, ids);
  return ids;
}

/** The walk is the order the documents loaded have: the matches, by min (asc) or max (desc), missing where asked. */
function checkAgainstDocuments(c: Case, ids: string[]): void {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const indices = c.indices.split(',');
  const matches = indices.flatMap((index) => docs.filter((d) => !c.filtered || d.tag === 'a').map((d) => `${index}/${d.id}`));
  expect([...ids].sort()).toEqual(matches.sort());
  const keyOf = (name: string): number | string | undefined => {
    const value = byId.get(name.slice(name.indexOf('/') + 1))![c.field];
    if (value === undefined) return undefined;
    const values = ([] as (number | string)[]).concat(value).sort(compareKeys);
    return c.desc ? values.at(-1) : values[0];
  };
  // Missing first or last; values in the key's order (keywords by code point).
  const compareRanks = (a: number | string | undefined, b: number | string | undefined): number => {
    if (a === undefined || b === undefined) return a === b ? 0 : (a === undefined) === c.missingFirst ? -1 : 1;
    return c.desc ? compareKeys(b, a) : compareKeys(a, b);
  };
  for (let i = 1; i < ids.length; i++) expect(compareRanks(keyOf(ids[i - 1]), keyOf(ids[i]))).toBeLessThanOrEqual(0);
}

function compareKeys(a: number | string, b: number | string): number {
  return typeof a === 'string' && typeof b === 'string' ? compareCodePoints(a, b) : (a as number) - (b as number);
}

/** The number of bounds bisected over for a field: max − min + 1, in whole numbers or in the order of doubles; a keyword's distinct values. */
function keyRange(field: 'n' | 'd' | 'x' | 's', filtered: boolean): number {
  if (field === 's') return new Set(docs.filter((d) => !filtered || d.tag === 'a').flatMap((d) => (d.s === undefined ? [] : ([] as string[]).concat(d.s)))).size;
  const values = docs.filter((d) => !filtered || d.tag === 'a').flatMap((d) => (d[field] === undefined ? [] : ([] as number[]).concat(d[field] as number | number[])));
  const [min, max] = [Math.min(...values), Math.max(...values)];
  if (field !== 'x') return max - min + 1;
  const view = new DataView(new ArrayBuffer(8));
  const ordered = (v: number) => {
    view.setFloat64(0, v);
    const bits = view.getBigUint64(0);
    return bits >> 63n ? ~bits & ((1n << 64n) - 1n) : bits | (1n << 63n);
  };
  return Number(ordered(max) - ordered(min)) + 1;
}

function calls(): ClusterCalls {
  return new ClusterCalls(new ClusterHosts({ hosts: [new URL(url)] }), {});
}

function search(index: string, body: Record<string, unknown>, from: number, size: number) {
  const shaped = frontSearch('POST', `/${index}/_search`, [], Buffer.from(JSON.stringify({ ...body, from, size })));
  if (!shaped) throw new Error('not a front search');
  return shaped;
}

const caseArbitrary = fc.record({
  indices: fc.constantFrom(...SHARDS.map((n) => `cold${n}`), 'cold1,cold5'),
  field: fc.constantFrom('n' as const, 'd' as const, 'x' as const, 's' as const),
  desc: fc.boolean(),
  missingFirst: fc.boolean(),
  filtered: fc.boolean(),
  second: fc.boolean(),
});

describe('coldPage', () => {
  /** The most requests a page took besides a walk inside a tie, by key, beside log2 of its range. */
  const most = new Map<string, { requests: number; log2Range: number }>();
  afterAll(() => console.log(`cold pages, most requests besides a walk inside a tie: ${JSON.stringify(Object.fromEntries(most))}`));

  it('gives the ranks of the cluster\'s order at any from, in about log2(key range) requests', async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, fc.nat(DOCS + 5), fc.integer({ min: 1, max: 20 }), async (c, fromSeed, size) => {
        const ids = await order(c);
        const from = Math.min(fromSeed, ids.length + 3);
        const cluster = calls();
        const page = await coldPage(cluster, search(c.indices, bodyOf(c), from, size), WINDOW);
        expect(page).toBeDefined();
        expect(page!.answer.status).toBe(200);
        expect(page!.total).toBe(ids.length);
        const answer = JSON.parse(page!.answer.text);
        expect(answer.pit_id).toBeUndefined();
        const hits = answer.hits.hits as { _index: string; _id: string; sort: unknown[] }[];
        expect(hits.map(named)).toEqual(ids.slice(from, from + size));
        for (const hit of hits) expect(hit.sort).toHaveLength(c.second ? 2 : 1);

        const { counts } = cluster;
        const besidesWalk = counts.total - counts.walk - counts.pit;
        const log2Range = Math.log2(keyRange(c.field, c.filtered));
        const known = most.get(c.field);
        if (!known || known.requests < besidesWalk) most.set(c.field, { requests: besidesWalk, log2Range: Math.round(log2Range * 10) / 10 });
        // A keyword's steps also halve the strings between two values (one request each, no count).
        expect(besidesWalk).toBeLessThanOrEqual(c.field === 's' ? 3 * Math.ceil(log2Range) + 8 : 2 * Math.ceil(log2Range) + 4);
        expect(counts.page).toBe(1);
        expect(counts.walk).toBeLessThanOrEqual(Math.ceil(from / WINDOW));
        expect(counts.pit).toBe(counts.walk > 0 ? 2 : 0);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it.each([
    ['Elasticsearch', () => url],
    ['OpenSearch', () => openSearchUrl],
  ])('walks inside a tie bigger than the window in %s\'s point in time: a value held by over 50 documents, and the block without values', async (_, at) => {
    for (const missingFirst of [false, true]) {
      const c: Case = { indices: 'cold3', field: 'n', desc: false, missingFirst, filtered: false };
      const ids = await order(c, at());
      const missing = docs.filter((d) => d.n === undefined).length;
      const sevens = docs.filter((d) => d.n === 7).length;
      expect(missing).toBeGreaterThan(WINDOW);
      expect(sevens).toBeGreaterThan(WINDOW);
      // Deep in the missing block, whichever end it is at, and deep in the 7s.
      const deepMissing = missingFirst ? missing - 5 : ids.length - 5;
      const below7 = docs.filter((d) => d.n !== undefined && Math.min(...([] as number[]).concat(d.n)) < 7).length;
      const deep7 = (missingFirst ? missing : 0) + below7 + sevens - 3;
      for (const from of [deepMissing, deep7]) {
        const cluster = new ClusterCalls(new ClusterHosts({ hosts: [new URL(at())] }), {});
        const page = await coldPage(cluster, search('cold3', bodyOf(c), from, 10), WINDOW);
        const answer = JSON.parse(page!.answer.text);
        expect(answer.hits.hits.map(named)).toEqual(ids.slice(from, from + 10));
        expect(answer.pit_id).toBeUndefined();
        for (const hit of answer.hits.hits) expect(hit.sort).toHaveLength(1);
        expect(cluster.counts.walk).toBeGreaterThan(0);
        expect(cluster.counts.pit).toBe(2);
        const header = page!.answer.rawHeaders.findIndex((line, i) => i % 2 === 0 && line.toLowerCase() === 'content-length');
        if (header >= 0) expect(Number(page!.answer.rawHeaders[header + 1])).toBe(Buffer.byteLength(page!.answer.text));
      }
    }
  });

  it('reads a deep page from between two bounds when the bisection found one the page lies before', async () => {
    /** The page's request bodies, as sent. */
    class Recorded extends ClusterCalls {
      pages: { query: { bool: { filter: unknown[]; must_not?: unknown[] } } }[] = [];
      override call(...args: Parameters<ClusterCalls['call']>): ReturnType<ClusterCalls['call']> {
        const [purpose, , , , body] = args;
        if (purpose === 'page') this.pages.push(JSON.parse(typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body)));
        return super.call(...args);
      }
    }
    let bounded = 0;
    for (const field of ['n', 'x', 'd', 's'] as const) {
      const c: Case = { indices: 'cold5', field, desc: field === 'x', missingFirst: false, filtered: false };
      const ids = await order(c);
      for (const from of [60, 120, 180]) {
        const cluster = new Recorded(new ClusterHosts({ hosts: [new URL(url)] }), {});
        const page = await coldPage(cluster, search('cold5', bodyOf(c), from, 10), WINDOW);
        expect(JSON.parse(page!.answer.text).hits.hits.map(named)).toEqual(ids.slice(from, from + 10));
        const [{ query }] = cluster.pages;
        const [q, ...upTo] = query.bool.filter;
        if (upTo.length === 0) continue;
        bounded++;
        // Fewer documents than the same search without the upper bound: the page's search is narrower.
        const count = async (body: unknown) => (await json('POST', '/cold5/_count', { query: body })).count as number;
        expect(await count(query)).toBeLessThan(await count({ bool: { filter: [q], ...(query.bool.must_not && { must_not: query.bool.must_not }) } }));
      }
    }
    expect(bounded).toBeGreaterThan(0);
  });

  it("answers a page inside the window with the cluster's own from/size", async () => {
    const c: Case = { indices: 'cold5', field: 'x', desc: true, missingFirst: false, filtered: true };
    const ids = await order(c);
    const cluster = calls();
    const page = await coldPage(cluster, search('cold5', bodyOf(c), 30, 20), WINDOW);
    expect(JSON.parse(page!.answer.text).hits.hits.map(named)).toEqual(ids.slice(30, 50));
    expect(page!.total).toBe(ids.length);
    expect(cluster.counts.total).toBe(1);
  });

  it.each([
    ['_score', { sort: ['_score', 'n'] }],
    ['a mode that is not the order\'s', { sort: [{ n: { order: 'asc', mode: 'max' } }] }],
    ['a custom missing value', { sort: [{ n: { missing: 0 } }] }],
    ['numeric_type', { sort: [{ n: { numeric_type: 'double' } }] }],
    ['an unmapped field', { sort: [{ nothing: { unmapped_type: 'long' } }] }],
    ['min_score', { sort: ['n'], min_score: 1 }],
    ['post_filter', { sort: ['n'], post_filter: { term: { tag: 'a' } } }],
    ['a runtime field', { sort: ['r'], runtime_mappings: { r: { type: 'long', script: 'emit(1)' } } }],
  ])('returns undefined for %s past the window', async (_, body) => {
    expect(await coldPage(calls(), search('cold3', body, 120, 10), WINDOW)).toBeUndefined();
  });

  it("passes on the cluster's refusal of a bad query", async () => {
    const page = await coldPage(calls(), search('cold3', { sort: ['n'], query: { range: { n: { lt: 'seven' } } } }, 120, 10), WINDOW);
    expect(page!.answer.status).toBe(400);
  });
});

describe('firstKey', () => {
  it.each([
    ['n', { field: 'n', desc: false, missingFirst: false }],
    [[{ n: 'desc' }, 'x'], { field: 'n', desc: true, missingFirst: false }],
    [{ 'a.b': { order: 'desc', missing: '_first', mode: 'max', format: 'epoch_millis', unmapped_type: 'long' } }, { field: 'a.b', desc: true, missingFirst: true, unmappedType: 'long' }],
    [[{ n: { mode: 'min' } }], { field: 'n', desc: false, missingFirst: false }],
  ])('reads %j', (sort, key) => {
    expect(firstKey(sort)).toEqual(key);
  });

  it.each([
    ['_score'], [[{ _geo_distance: {} }]], [[{ _script: {} }]], [[{ n: { mode: 'avg' } }]], [[{ n: { order: 'desc', mode: 'min' } }]], [[{ n: { missing: 3 } }]],
    [[{ n: { nested: { path: 'o' } } }]], [[{ n: { numeric_type: 'long' } }]], [[{ n: { order: 'up' } }]], [[{ n: 'desc', x: 'asc' }]], [[]], [[42]],
  ])('refuses %j', (sort) => {
    expect(firstKey(sort)).toBeUndefined();
  });
});

describe('mappedType', () => {
  const properties = {
    price: { type: 'scaled_float', scaling_factor: 100 },
    title: { type: 'text', fields: { length: { type: 'integer' }, raw: { type: 'keyword' } } },
    user: { properties: { age: { type: 'short' }, name: { properties: { first: { type: 'keyword' } } } } },
    'flat.dotted': { type: 'date' },
    items: { type: 'nested', properties: { n: { type: 'long' } } },
    alias: { type: 'alias', path: 'price' },
  };

  it.each([
    ['price', 'scaled_float'], ['title.length', 'integer'], ['title.raw', 'keyword'], ['user.age', 'short'], ['user.name.first', 'keyword'],
    ['user', 'object'], ['flat.dotted', 'date'], ['items.n', 'nested'], ['alias', 'alias'], ['title.nothing', undefined], ['nothing', undefined],
  ])('%s is %s', (path, type) => {
    expect(mappedType(properties, path)).toBe(type);
  });
});
