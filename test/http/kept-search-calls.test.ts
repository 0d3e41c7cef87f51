/** Searches stated by their URI alone, read once per URL (kept-search-calls.ts): the reading is kept, never the answer. */
import { afterEach, describe, expect, it } from 'vitest';
import { searchCall } from '../../src/engine/request/search-call.ts';
import { KeptSearchCalls } from '../../src/http/kept-search-calls.ts';
import { expectError, testApp, type TestApp } from './app-helpers.ts';

describe('KeptSearchCalls', () => {
  const url = (query: string) => `http://127.0.0.1:9200/books/_search?${query}`;
  const read = (params: Record<string, string>) => () => searchCall(params, undefined, '/books/_search', 'books');

  it('reads a URL once and serves the same frozen call after', () => {
    const kept = new KeptSearchCalls();
    let reads = 0;
    const first = kept.read(url('size=5&sort=price:desc'), () => (reads++, read({ size: '5', sort: 'price:desc' })()));
    const second = kept.read(url('size=5&sort=price:desc'), () => (reads++, read({ size: '5', sort: 'price:desc' })()));
    expect(reads).toBe(1);
    expect(second).toBe(first);
    expect(first.request.size).toBe(5);
    // The engine only reads a request: a kept one cannot be changed by accident.
    expect(Object.isFrozen(first.request)).toBe(true);
    expect(Object.isFrozen(first.request.sort[0])).toBe(true);
    expect(Object.isFrozen(first.params)).toBe(true);
    expect(() => {
      (first.request as { from: number }).from = 3;
    }).toThrow(TypeError);
  });

  it('keeps nothing a read refused, and each URL on its own', () => {
    const kept = new KeptSearchCalls();
    let reads = 0;
    const bad = () => {
      reads++;
      return read({ size: 'ten' })();
    };
    expect(() => kept.read(url('size=ten'), bad)).toThrow(/size/);
    expect(() => kept.read(url('size=ten'), bad)).toThrow(/size/);
    expect(reads).toBe(2);
    expect(kept.read(url('size=1'), read({ size: '1' })).request.size).toBe(1);
    expect(kept.read(url('size=2'), read({ size: '2' })).request.size).toBe(2);
  });

  it('lets every call go once it holds many, and never keeps a very long URL', () => {
    const kept = new KeptSearchCalls();
    let reads = 0;
    const counted = () => (reads++, read({})());
    for (let i = 0; i <= 1024; i++) kept.read(url(`from=${i}`), counted);
    expect(reads).toBe(1025);
    kept.read(url('from=0'), counted); // let go when the 1025th came in
    expect(reads).toBe(1026);
    const long = url(`q=${'a'.repeat(3000)}`);
    kept.read(long, counted);
    kept.read(long, counted);
    expect(reads).toBe(1028);
  });
});

describe('GET _search read from a kept call', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('answers from the index as it is now, not as it was when the URL was first read', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 2 }, { properties: { price: { type: 'long' } } });
    await t.bulk('/_bulk', [{ index: { _index: 'books', _id: 'a' } }, { price: 1 }], '?refresh=true');
    const path = '/books/_search?sort=price:desc&size=2';
    const before = await t.json('GET', path);
    expect(before.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['a']);
    await t.bulk('/_bulk', [{ index: { _index: 'books', _id: 'b' } }, { price: 2 }], '?refresh=true');
    const after = await t.json('GET', path);
    expect(after.body.hits.total.value).toBe(2);
    expect(after.body.hits.hits.map((h: { _id: string; sort: unknown[] }) => [h._id, h.sort])).toEqual([['b', [2]], ['a', [1]]]);
  });

  it('refuses a bad URL every time it is sent, and a body still counts', async () => {
    t = testApp();
    await t.createIndex('books', {}, { properties: { price: { type: 'long' } } });
    await t.bulk('/_bulk', [{ index: { _index: 'books', _id: 'a' } }, { price: 1 }, { index: { _index: 'books', _id: 'b' } }, { price: 2 }], '?refresh=true');
    for (let i = 0; i < 2; i++) expectError(await t.json('GET', '/books/_search?size=ten'), 400, 'illegal_argument_exception');
    expect((await t.json('GET', '/books/_search?sort=price:asc')).body.hits.hits[0]._id).toBe('a');
    // The same URL with a body is read with it, not taken from what the URL alone said.
    const withBody = await t.json('POST', '/books/_search?sort=price:asc', { size: 0 });
    expect(withBody.body.hits.hits).toEqual([]);
    expect((await t.json('GET', '/books/_search?sort=price:asc')).body.hits.hits.length).toBe(2);
    // A body sent along with the `source` parameter: the parameter is the search, read at once.
    const source = encodeURIComponent(JSON.stringify({ size: 1, sort: [{ price: 'desc' }] }));
    const fromSource = await t.json('POST', `/books/_search?source=${source}&source_content_type=application/json`, '');
    expect(fromSource.status, fromSource.text).toBe(200);
    expect(fromSource.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['b']);
  });
});
