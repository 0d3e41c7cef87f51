/**
 * The same requests sent over HTTP (the app, through `app.request()`) and in process (the engine's
 * request API, src/engine/request/api.ts) to one engine get the same answers: the same JSON, field
 * for field and in the same order, and the same error with the same status. What differs by nature
 * is left out: `took`, and the ids of scrolls and points in time, which are each side's own; what
 * follows from an id (the next pages, closing it) is compared instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import { clearScroll, closePointInTime, count, msearch, openPointInTime, reindex, scroll, search } from '../../src/engine/request/api.ts';
import { errorBody } from '../../src/http/error-response.ts';
import { testApp, type Json, type TestApp } from './app-helpers.ts';

type Params = Record<string, string>;

/** One request as a client states it: the API, the index expression of its path, its URI parameters and its body. */
type Ask =
  | { api: 'search' | 'count' | 'open_pit'; index?: string; params?: Params; body?: unknown }
  | { api: 'msearch'; index?: string; params?: Params; body: unknown[] }
  | { api: 'scroll' | 'clear_scroll' | 'close_pit' | 'reindex'; params?: Params; body?: unknown };

interface Answer {
  status: number;
  body: Json;
}

let t: TestApp;

beforeAll(async () => {
  t = testApp();
  await t.createIndex('books', { number_of_shards: 2 }, {
    properties: { title: { type: 'text' }, author: { type: 'keyword' }, price: { type: 'double' }, year: { type: 'integer' } },
  });
  await t.createIndex('authors', { number_of_shards: 1 }, { properties: { name: { type: 'keyword' }, born: { type: 'integer' } } });
  const authors = ['kim', 'lee', 'park', 'choi'];
  const words = ['quick', 'brown', 'fox', 'lazy', 'dog', 'jumps', 'over', 'river'];
  const books = Array.from({ length: 40 }, (_, i) => [
    { index: { _index: 'books', _id: `b${i}` } },
    {
      title: `${words[i % 8]} ${words[(i * 3 + 1) % 8]} ${words[(i * 5 + 2) % 8]}`,
      author: authors[i % 4],
      ...(i % 7 !== 3 && { price: ((i * 37) % 50) + 0.5 }),
      year: 1990 + ((i * 11) % 30),
    },
  ]).flat();
  const people = authors.flatMap((name, i) => [{ index: { _index: 'authors', _id: name } }, { name, born: 1950 + i * 7 }]);
  expect((await t.bulk('/_bulk', [...books, ...people], '?refresh=true')).body.errors).toBe(false);
});

afterAll(() => t.close());

/** The request over HTTP: GET when it has no body, as clients send URI searches. */
async function overHttp(ask: Ask): Promise<Answer> {
  const query = ask.params ? `?${new URLSearchParams(ask.params)}` : '';
  const at = 'index' in ask && ask.index !== undefined ? `/${ask.index}` : '';
  const send = (method: string, path: string, body = ask.body) => t.json(method, `${path}${query}`, body);
  let res;
  switch (ask.api) {
    case 'search':
    case 'count':
      res = await send(ask.body === undefined ? 'GET' : 'POST', `${at}/_${ask.api}`);
      break;
    case 'msearch':
      res = await t.json('POST', `${at}/_msearch${query}`, ask.body.map((line) => JSON.stringify(line)).join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
      break;
    case 'open_pit':
      res = await send('POST', `${at}/_pit`);
      break;
    case 'close_pit':
      res = await send('DELETE', '/_pit');
      break;
    case 'scroll':
      res = await send('POST', '/_search/scroll');
      break;
    case 'clear_scroll':
      res = await send('DELETE', '/_search/scroll');
      break;
    case 'reindex':
      res = await send('POST', '/_reindex');
      break;
  }
  return { status: res.status, body: res.body };
}

/**
 * The request in process, its answer as JSON (a stored `_source` as its value). The status is the
 * error's, or what HTTP answers a success with: 404 for a clear that freed nothing. An `_msearch`
 * item that failed is its EsError, which goes on the wire as ES's error body; a response, with
 * `"status": 200`.
 */
async function inProcess(ask: Ask): Promise<Answer> {
  const { engine } = t;
  const params = ask.params ?? {};
  try {
    let body: unknown;
    switch (ask.api) {
      case 'search':
        body = search(engine, ask.index, params, ask.body);
        break;
      case 'count':
        body = count(engine, ask.index, params, ask.body);
        break;
      case 'msearch': {
        const { took, responses } = await msearch(engine, ask.index, params, ask.body);
        body = { took, responses: responses.map((item) => (item instanceof EsError ? errorBody(item) : { ...item, status: 200 })) };
        break;
      }
      case 'open_pit':
        body = openPointInTime(engine, ask.index, params, ask.body);
        break;
      case 'close_pit':
        body = closePointInTime(engine, params, ask.body);
        break;
      case 'scroll':
        body = scroll(engine, params, ask.body);
        break;
      case 'clear_scroll': {
        const cleared = clearScroll(engine, params, ask.body);
        return { status: cleared.num_freed === 0 ? 404 : 200, body: JSON.parse(JSON.stringify(cleared)) };
      }
      case 'reindex':
        body = await reindex(engine, params, ask.body);
        break;
    }
    return { status: 200, body: JSON.parse(JSON.stringify(body)) };
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    return { status: e.status, body: errorBody(e) };
  }
}

/** What an answer says, without what is each side's own: `took`, and cursor ids (a point in time's `id` when one is opened). */
function said({ status, body }: Answer, api?: Ask['api']): string {
  const own = (key: string) => key === 'took' || key === '_scroll_id' || key === 'pit_id';
  return JSON.stringify({ status, body: api === 'open_pit' ? { ...body, id: undefined } : body }, (key, value) => (own(key) ? undefined : value));
}

/** Sends the request both ways (`ask` may differ by side, with ids from earlier answers), expects the same answer, and gives both. */
async function same(ask: Ask | ((side: 'http' | 'local') => Ask)): Promise<{ http: Answer; local: Answer }> {
  const of = typeof ask === 'function' ? ask : () => ask;
  const http = await overHttp(of('http'));
  const local = await inProcess(of('local'));
  const { api } = of('http');
  expect(said(http, api)).toBe(said(local, api));
  return { http, local };
}

describe('the same answers over HTTP and in process', () => {
  it('searches stated by their URI: q=, sort, from and size, _source, totals, index expressions', async () => {
    const asks: Ask[] = [
      { api: 'search', index: 'books', params: { q: 'title:fox' } },
      { api: 'search', index: 'books', params: { q: 'author:kim OR author:lee', sort: 'price:desc,year:asc', from: '2', size: '5' } },
      { api: 'search', index: 'books', params: { q: 'quick -dog', default_operator: 'AND', df: 'title', size: '3' } },
      { api: 'search', index: 'books', params: { sort: 'year:desc', _source_includes: 'title,year', size: '4' } },
      { api: 'search', index: 'books', params: { sort: 'price', _source: 'false', track_total_hits: '10', size: '2' } },
      { api: 'search', index: 'books', params: { q: 'fox', rest_total_hits_as_int: 'true', size: '1' } },
      { api: 'search', params: { sort: '_doc', size: '50' } },
      { api: 'search', index: 'b*,authors', params: { q: 'kim', size: '20' } },
      { api: 'search', index: 'authors', params: { sort: 'born:desc', version: 'true', seq_no_primary_term: 'true' } },
    ];
    for (const ask of asks) {
      const { http } = await same(ask);
      expect(http.status, JSON.stringify(ask)).toBe(200);
      // Asked again, the route answers from the call it kept for the URL: the same again.
      expect(said(await overHttp(ask))).toBe(said(http));
    }
  });

  it('searches with a body: the query DSL, sort, search_after, _source filters, docvalue_fields', async () => {
    const asks: Ask[] = [
      { api: 'search', index: 'books', body: { query: { match: { title: 'quick fox' } } } },
      { api: 'search', index: 'books', body: { query: { bool: { must: [{ range: { price: { gte: 10, lt: 40 } } }], must_not: [{ term: { author: 'lee' } }] } }, sort: [{ price: 'asc' }, { year: 'desc' }], size: 6 } },
      { api: 'search', index: 'books', body: { sort: [{ price: { order: 'desc', missing: '_first' } }, { year: 'asc' }], search_after: [30.5, 2000], size: 4 } },
      { api: 'search', index: 'books', body: { query: { terms: { author: ['park', 'choi'] } }, _source: { includes: ['t*'], excludes: ['year'] }, size: 3 } },
      { api: 'search', index: 'books', params: { size: '2', sort: 'year:asc' }, body: { query: { exists: { field: 'price' } }, docvalue_fields: ['year'], _source: false } },
      { api: 'search', index: 'books', body: { query: { multi_match: { query: 'river dog', fields: ['title'] } }, min_score: 0.5, track_scores: true, sort: ['_score', { year: 'desc' }] } },
      { api: 'search', body: { query: { ids: { values: ['b1', 'b2', 'kim'] } }, sort: [{ _doc: 'asc' }] } },
    ];
    for (const ask of asks) expect((await same(ask)).http.status, JSON.stringify(ask)).toBe(200);
  });

  it('refusals: a bad query, an unknown parameter, bad values, a missing index, a sort a field cannot take', async () => {
    const asks: [Ask, number][] = [
      [{ api: 'search', index: 'books', body: { query: { boool: {} } } }, 400],
      [{ api: 'search', index: 'books', body: { query: { match: { title: 'x' } }, highlight: {} } }, 400],
      [{ api: 'search', index: 'books', params: { sizes: '3' } }, 400],
      [{ api: 'search', params: { q: 'x', colour: 'red', flavour: 'lime' } }, 400],
      [{ api: 'search', index: 'books', params: { size: 'ten' } }, 400],
      [{ api: 'search', index: 'books', params: { from: '-1' } }, 400],
      [{ api: 'search', index: 'books', params: { q: 'title:(fox' } }, 400],
      [{ api: 'search', index: 'books', params: { df: 'title' } }, 400],
      [{ api: 'search', index: 'nope', params: { q: 'fox' } }, 404],
      [{ api: 'search', index: 'books', params: { sort: 'title' } }, 400],
      [{ api: 'search', index: 'books', body: { search_after: [1] } }, 400],
      [{ api: 'search', index: 'books', params: { scroll: '1m', from: '5' } }, 400],
      [{ api: 'search', index: 'books', body: { from: 9990, size: 20 } }, 400],
    ];
    for (const [ask, status] of asks) expect((await same(ask)).http.status, JSON.stringify(ask)).toBe(status);
  });

  it('_count, by q= and by body, and its refusals', async () => {
    const asks: [Ask, number][] = [
      [{ api: 'count', index: 'books', params: { q: 'fox' } }, 200],
      [{ api: 'count', index: 'books', body: { query: { term: { author: 'kim' } } } }, 200],
      [{ api: 'count', params: { q: 'kim', min_score: '0.1' } }, 200],
      [{ api: 'count', index: 'b*', params: { routing: 'x', expand_wildcards: 'all' } }, 200],
      [{ api: 'count', index: 'books', body: { query: { match_all: {} }, size: 1 } }, 400],
      [{ api: 'count', index: 'books', params: { sort: 'year' } }, 400],
      [{ api: 'count', index: 'nope' }, 404],
    ];
    for (const [ask, status] of asks) expect((await same(ask)).http.status, JSON.stringify(ask)).toBe(status);
  });

  it('_msearch: items in order, an item failing alone, a request refused whole', async () => {
    const asks: [Ask, number][] = [
      [{ api: 'msearch', body: [{ index: 'books' }, { query: { match: { title: 'fox' } }, size: 2 }, { index: 'nope' }, {}, { index: 'authors' }, { sort: ['born'] }] }, 200],
      [{ api: 'msearch', index: 'books', params: { rest_total_hits_as_int: 'true' }, body: [{}, { size: 1 }, { routing: 'kim', preference: '_shards:0' }, { size: 0 }] }, 200],
      [{ api: 'msearch', body: [{ index: 'books', size: 1 }, {}] }, 400],
      [{ api: 'msearch', body: [[], {}] }, 400],
      [{ api: 'msearch', body: [{ index: 'books' }, { query: { boool: {} } }] }, 400],
      [{ api: 'msearch', params: { max_concurrent_searches: '0' }, body: [{}, {}] }, 400],
      [{ api: 'msearch', body: [] }, 400],
    ];
    for (const [ask, status] of asks) expect((await same(ask)).http.status, JSON.stringify(ask)).toBe(status);
  });

  it('a scroll: its batches, a bad id, clearing it once and again', async () => {
    let { http, local } = await same({ api: 'search', index: 'books', params: { scroll: '1m', size: '7' }, body: { sort: [{ year: 'asc' }, { price: 'desc' }] } });
    const ids = { http: http.body._scroll_id as string, local: local.body._scroll_id as string };
    expect(ids.http).not.toBe(ids.local);
    let batches = 1;
    while (http.body.hits.hits.length > 0) {
      ({ http, local } = await same((side) => ({ api: 'scroll', params: { rest_total_hits_as_int: 'true' }, body: { scroll_id: ids[side], scroll: '1m' } })));
      batches++;
    }
    expect(batches).toBe(7);
    await same({ api: 'scroll', body: { scroll_id: 'not-a-scroll' } });
    await same({ api: 'scroll', params: { scroll: '1m' } });
    expect((await same((side) => ({ api: 'clear_scroll', body: { scroll_id: [ids[side]] } }))).http.body).toEqual({ succeeded: true, num_freed: 1 });
    expect((await same((side) => ({ api: 'clear_scroll', body: { scroll_id: ids[side] } }))).http.status).toBe(404);
    await same({ api: 'clear_scroll', body: { scroll_id: 5 } });
  });

  it('a point in time: opened, paged with search_after to the end, closed; and its refusals', async () => {
    const opened = await same({ api: 'open_pit', index: 'books', params: { keep_alive: '1m' } });
    const pits = { http: opened.http.body.id as string, local: opened.local.body.id as string };
    const sort = [{ price: 'asc' }, { _shard_doc: 'desc' }];
    let after: { http?: unknown[]; local?: unknown[] } = {};
    let seen = 0;
    for (;;) {
      const { http, local } = await same((side) => ({ api: 'search', body: { pit: { id: pits[side], keep_alive: '1m' }, sort, size: 6, ...(after[side] && { search_after: after[side] }) } }));
      const hits = http.body.hits.hits;
      if (hits.length === 0) break;
      seen += hits.length;
      after = { http: hits.at(-1).sort, local: local.body.hits.hits.at(-1).sort };
    }
    expect(seen).toBe(40);
    await same((side) => ({ api: 'search', index: 'books', body: { pit: { id: pits[side] } } }));
    await same({ api: 'open_pit', index: 'books' });
    await same({ api: 'open_pit', index: 'books', params: { keep_alive: '1m' }, body: { index_filter: {} } });
    expect((await same((side) => ({ api: 'close_pit', body: { id: pits[side] } }))).http.body).toEqual({ succeeded: true, num_freed: 1 });
    // Closed, it is missing on either side; the error names each side's own context.
    const closed = [await overHttp({ api: 'search', body: { pit: { id: pits.http } } }), await inProcess({ api: 'search', body: { pit: { id: pits.local } } })];
    for (const { status, body } of closed) expect([status, body.error.root_cause[0].type]).toEqual([404, 'search_context_missing_exception']);
    await same({ api: 'close_pit', body: {} });
  });

  it('_reindex: the same counts into two copies that then answer alike, and its refusals', async () => {
    const copy = (side: 'http' | 'local') => `copy-${side}`;
    const { http } = await same((side) => ({ api: 'reindex', params: { refresh: 'true' }, body: { source: { index: 'books', query: { term: { author: 'park' } }, size: 3 }, dest: { index: copy(side) } } }));
    expect(http.body.created).toBe(10);
    const page = async (side: 'http' | 'local') => (await inProcess({ api: 'search', index: copy(side), params: { sort: 'year:asc,price:desc', size: '20' } })).body.hits.hits.map(({ _index, ...hit }: Json) => hit);
    expect(await page('http')).toEqual(await page('local'));
    await same({ api: 'reindex', body: { source: { index: 'books' } } });
    await same({ api: 'reindex', body: { source: { index: 'books' }, dest: { index: 'books' } } });
    await same({ api: 'reindex', params: { wait_for_active_shards: '2' }, body: { source: { index: 'books' }, dest: { index: 'x' } } });
    await same({ api: 'reindex', body: { source: { index: 'books' }, dest: { index: 'x' }, script: { source: '' } } });
  });
});
