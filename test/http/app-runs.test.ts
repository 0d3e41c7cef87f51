/**
 * What HTTP users see of sorted runs: the `paging` parameter (both strategies, same pages), the
 * node and index statistics, index sorting settings in ES's words, and `_cache/clear` emptying runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatByteSize } from '../../src/engine/byte-size.ts';
import { expectError, testApp, type TestApp } from './app-helpers.ts';

describe('sorted runs over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 3, max_result_window: 50_000, refresh_interval: -1 }, { properties: { year: { type: 'integer' }, tag: { type: 'keyword' } } });
    const lines = Array.from({ length: 400 }, (_, i) => [{ index: { _index: 'books', _id: String(i) } }, { year: 1900 + ((i * 7) % 53), tag: `t${i % 5}` }]).flat();
    expect((await t.bulk('/_bulk', lines, '?refresh=true')).status).toBe(200);
  });
  afterAll(() => t.close());

  const ids = async (query: string) => {
    const res = await t.json('GET', `/books/_search?${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.hits.hits.map((h: { _id: string; sort: unknown[] }) => [h._id, h.sort]);
  };

  it('paging=top_k and paging=sorted_runs give the same pages at any depth', async () => {
    for (const from of [0, 10, 200, 390]) {
      for (const sort of ['year:desc', 'tag:asc,year:asc', '_doc:desc']) {
        expect(await ids(`from=${from}&size=10&sort=${sort}&paging=top_k`)).toEqual(await ids(`from=${from}&size=10&sort=${sort}`));
      }
    }
  });

  it('sorts a keyword field twice over several indices (one map per segment, none freed mid-search)', async () => {
    await t.createIndex('more', { number_of_shards: 2 }, { properties: { year: { type: 'integer' }, tag: { type: 'keyword' } } });
    const lines = Array.from({ length: 50 }, (_, i) => [{ index: { _index: 'more', _id: `m${i}` } }, { year: 1950 + (i % 7), tag: `t${i % 9}` }]).flat();
    expect((await t.bulk('/_bulk', lines, '?refresh=true')).status).toBe(200);
    for (const paging of ['sorted_runs', 'top_k']) {
      const res = await t.json('GET', `/books,more/_search?size=20&from=100&sort=tag:asc,tag:desc,year:asc&paging=${paging}`);
      expect(res.status, res.text).toBe(200);
    }
    const one = (await t.json('GET', '/books,more/_search?size=450&sort=tag:asc,year:desc')).body.hits.hits.map((h: { _id: string }) => h._id);
    const both = (await t.json('GET', '/books,more/_search?size=450&sort=tag:asc,tag:desc,year:desc')).body.hits.hits.map((h: { _id: string }) => h._id);
    expect(both).toEqual(one);
    await t.json('DELETE', '/more');
  });

  it('refuses an unknown paging strategy', async () => {
    expectError(await t.json('GET', '/books/_search?paging=fast'), 400, 'illegal_argument_exception', '[paging] must be one of [sorted_runs, top_k], got [fast]');
  });

  it('reports runs in _nodes/stats and _stats, and _cache/clear empties them', async () => {
    await ids('from=300&size=10&sort=year:desc');
    const node = (await t.json('GET', '/_nodes/stats')).body;
    expect(node._nodes).toEqual({ total: 1, successful: 1, failed: 0 });
    const [id] = Object.keys(node.nodes);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(node.nodes[id].indices.sorted_runs.count).toBeGreaterThan(0);
    expect((await t.json('GET', '/_nodes/_local/stats')).body.nodes[id]).toBeDefined();
    const index = (await t.json('GET', '/books/_stats')).body;
    expect(index.indices.books.primaries.docs).toEqual({ count: 400, deleted: 0 });
    expect(index.indices.books.total.sorted_runs.memory_size_in_bytes).toBeGreaterThan(0);
    expect(index._all.primaries.sorted_runs.count).toBe(index.indices.books.primaries.sorted_runs.count);
    expect((await t.json('POST', '/books/_cache/clear')).status).toBe(200);
    expect((await t.json('GET', '/books/_stats')).body.indices.books.total.sorted_runs.count).toBe(0);
    const human = (await t.json('GET', '/_nodes/stats?human')).body.nodes[id].indices.sorted_runs;
    expect(human.memory_size).toMatch(/^\d+(\.\d)?(b|kb|mb|gb)$/);
    // The readable size is ES's, cut rather than rounded, as breaker messages and _cat write it.
    expect(human.memory_size).toBe(formatByteSize(human.memory_size_in_bytes));
    expect(Object.keys(human).indexOf('memory_size')).toBe(Object.keys(human).indexOf('memory_size_in_bytes') - 1);
    // `human` is a flag as every other (RestRequest.paramAsBoolean): false leaves sizes raw, another word is refused.
    expect((await t.json('GET', '/_nodes/stats?human=false')).body.nodes[id].indices.sorted_runs.memory_size).toBeUndefined();
    expect((await t.json('GET', '/_nodes/stats?human=yes')).status).toBe(400);
    expect(Object.keys((await t.json('GET', '/books/_stats?level=shards')).body.indices.books.shards)).toEqual(t.engine.resolve('books')[0].shards.map((s) => String(s.number)));
  });

  it('takes index sorting at creation, in ES words when wrong, and never as an update', async () => {
    await t.createIndex('sorted', { index: { sort: { field: ['tag', 'year'], order: ['asc', 'desc'] } } }, { properties: { year: { type: 'integer' }, tag: { type: 'keyword' }, title: { type: 'text' } } });
    const settings = (await t.json('GET', '/sorted/_settings')).body.sorted.settings.index;
    expect(settings.sort).toEqual({ field: ['tag', 'year'], order: ['asc', 'desc'], mode: ['min', 'max'], missing: ['_last', '_last'] });
    const put = (name: string, sort: unknown) => t.json('PUT', `/${name}`, { settings: { index: { sort } }, mappings: { properties: { year: { type: 'integer' }, title: { type: 'text' } } } });
    expectError(await put('bad1', { field: 'nope' }), 400, 'illegal_argument_exception', 'unknown index sort field:[nope]');
    expectError(await put('bad2', { field: 'title' }), 400, 'illegal_argument_exception', 'docvalues not found for index sort field:[title]');
    expectError(await put('bad3', { field: 'year', order: 'up' }), 400, 'illegal_argument_exception', 'Illegal sort order:up');
    expectError(await put('bad4', { field: ['year'], order: ['asc', 'desc'] }), 400, 'illegal_argument_exception', 'index.sort.field:[year] index.sort.order:[asc, desc], size mismatch');
    expectError(await put('bad5', { field: 'year', missing: 'middle' }), 400, 'illegal_argument_exception', 'Illegal missing value:[middle], must be one of [_last, _first]');
    expectError(await put('bad6', { field: 'year', mode: 'avg' }), 400, 'illegal_argument_exception', 'Illegal index sort mode:[AVG], must be one of [MAX, MIN]');
    expectError(await put('bad7', { order: 'asc' }), 400, 'illegal_argument_exception', 'setting [index.sort.order] requires [index.sort.field] to be configured');
    expect((await put('good1', { field: 'year', order: 'DESC', mode: 'Max' })).status).toBe(200);
    expect((await t.json('GET', '/good1/_settings')).body.good1.settings.index.sort).toEqual({ field: ['year'], order: ['desc'], mode: ['max'], missing: ['_last'] });
    await t.createIndex('good2', { 'index.sort.field': 'tag,year' }, { properties: { year: { type: 'integer' }, tag: { type: 'keyword' } } });
    expect((await t.json('GET', '/good2/_settings')).body.good2.settings.index.sort.field).toEqual(['tag', 'year']);
    const uuid = (await t.json('GET', '/sorted/_settings')).body.sorted.settings.index.uuid;
    expectError(await t.json('PUT', '/sorted/_settings', { 'index.sort.field': 'year' }), 400, 'illegal_argument_exception', `Can't update non dynamic settings [[index.sort.field]] for open indices [[sorted/${uuid}]]`);
  });
});
