/** Single-document APIs through the app: index, create, get, delete, refresh, count, auto-create, mapping errors, routing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { expectError, expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

const count = async (index: string) => (await t.json('GET', `/${index}/_count`)).body.count;

describe('indexing', () => {
  it('PUT and POST /{index}/_doc/{id}: 201 created, then 200 updated with the version incremented', async () => {
    await t.createIndex('books');
    const created = await t.json('PUT', '/books/_doc/1', { title: 'Dune' });
    expect(created.status).toBe(201);
    expectEsHeaders(created);
    expect(created.body).toEqual({
      _index: 'books', _id: '1', _version: 1, result: 'created',
      _shards: { total: 2, successful: 1, failed: 0 }, _seq_no: expect.any(Number), _primary_term: 1,
    });
    const updated = await t.json('PUT', '/books/_doc/1', { title: 'Dune Messiah' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ _id: '1', _version: 2, result: 'updated' });
    const again = await t.json('POST', '/books/_doc/1', { title: 'Children of Dune' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _version: 3, result: 'updated' });
    expect(again.body._seq_no).toBeGreaterThan(updated.body._seq_no);
    expect((await t.json('GET', '/books/_doc/1')).body).toMatchObject({ _version: 3, _source: { title: 'Children of Dune' } });
  });

  it('continues the version of a just-deleted id, as ES tombstones do', async () => {
    await t.json('PUT', '/books/_doc/1', { n: 1 });
    expect((await t.json('DELETE', '/books/_doc/1')).body._version).toBe(2);
    const again = await t.json('PUT', '/books/_doc/1', { n: 2 });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ result: 'created', _version: 3 });
  });

  it('POST /{index}/_doc generates a 20-character URL-safe id', async () => {
    const res = await t.json('POST', '/books/_doc', { title: 'Dune' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ _index: 'books', _version: 1, result: 'created' });
    expect(res.body._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const other = await t.json('POST', '/books/_doc', { title: 'Emma' });
    expect(other.body._id).not.toBe(res.body._id);
    expect((await t.json('GET', `/books/_doc/${res.body._id}`)).body._source).toEqual({ title: 'Dune' });
  });

  it('_create and op_type=create refuse an existing id with 409 version_conflict_engine_exception', async () => {
    await t.createIndex('books');
    expect((await t.json('PUT', '/books/_create/1', { n: 1 })).status).toBe(201);
    expect((await t.json('POST', '/books/_create/2', { n: 2 })).status).toBe(201);
    const uuid = t.engine.resolve('books')[0].uuid;
    for (const [method, path] of [['PUT', '/books/_create/1'], ['POST', '/books/_create/1'], ['PUT', '/books/_doc/1?op_type=create']]) {
      const res = await t.json(method, path, { n: 3 });
      expectError(res, 409, 'version_conflict_engine_exception', '[1]: version conflict, document already exists (current version [1])');
      expect(res.body.error).toMatchObject({ index_uuid: uuid, shard: '0', index: 'books' });
      expectEsHeaders(res);
    }
    expect((await t.json('GET', '/books/_doc/1')).body._source).toEqual({ n: 1 });
  });

  it('creates a missing index on first write, with one shard', async () => {
    expect((await t.json('PUT', '/auto/_doc/1', { a: 1 })).status).toBe(201);
    expect((await t.json('PUT', '/made/_create/1', { a: 1 })).status).toBe(201);
    expect((await t.json('POST', '/posted/_doc', { a: 1 })).status).toBe(201);
    for (const name of ['auto', 'made', 'posted']) expect(t.engine.resolve(name)[0].shards).toHaveLength(1);
    expect((await t.json('HEAD', '/auto')).status).toBe(200);
  });

  it('refuses an invalid index name on auto-create', async () => {
    expectError(await t.json('PUT', '/Books/_doc/1', { a: 1 }), 400, 'invalid_index_name_exception', 'Invalid index name [Books], must be lowercase');
    expect(t.engine.indices()).toHaveLength(0);
  });

  it('refuses values that do not fit the mapping with 400 document_parsing_exception, storing nothing', async () => {
    await t.createIndex('books', undefined, { properties: { pages: { type: 'integer' }, published: { type: 'date' }, ok: { type: 'boolean' } } });
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ pages: 'many' }, "failed to parse field [pages] of type [integer] in document with id '1'. Preview of field's value: 'many'"],
      [{ pages: 2 ** 40 }, `failed to parse field [pages] of type [integer] in document with id '1'. Preview of field's value: '${2 ** 40}'`],
      [{ published: 'yesterday' }, "failed to parse field [published] of type [date] in document with id '1'. Preview of field's value: 'yesterday'"],
      [{ ok: 'yes' }, "failed to parse field [ok] of type [boolean] in document with id '1'. Preview of field's value: 'yes'"],
      [{ pages: { n: 1 } }, /^failed to parse field \[pages\] of type \[integer\]/],
    ];
    for (const [source, reason] of cases) expectError(await t.json('PUT', '/books/_doc/1', source), 400, 'document_parsing_exception', reason);
    // A dynamically mapped field takes its type from the first value.
    expect((await t.json('PUT', '/books/_doc/2', { year: 1965 })).status).toBe(201);
    expectError(await t.json('PUT', '/books/_doc/3', { year: 'sixties' }), 400, 'document_parsing_exception', /field \[year\] of type \[long\]/);
    expect((await t.json('GET', '/books/_doc/1')).status).toBe(404);
    expect((await t.json('GET', '/books/_doc/3')).status).toBe(404);
  });
});

describe('GET and DELETE /{index}/_doc/{id}', () => {
  beforeEach(async () => {
    await t.createIndex('books', { number_of_shards: 3 });
    await t.json('PUT', '/books/_doc/1', { title: 'Dune', author: { name: 'Herbert', born: 1920 } });
  });

  it('GET finds the document in real time, before any refresh', async () => {
    const res = await t.json('GET', '/books/_doc/1');
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(res.body).toEqual({
      _index: 'books', _id: '1', _version: 1, _seq_no: expect.any(Number), _primary_term: 1, found: true,
      _source: { title: 'Dune', author: { name: 'Herbert', born: 1920 } },
    });
  });

  it('GET filters _source', async () => {
    expect((await t.json('GET', '/books/_doc/1?_source=false')).body._source).toBeUndefined();
    expect((await t.json('GET', '/books/_doc/1?_source=title')).body._source).toEqual({ title: 'Dune' });
    expect((await t.json('GET', '/books/_doc/1?_source_excludes=author.born')).body._source).toEqual({ title: 'Dune', author: { name: 'Herbert' } });
  });

  it('GET of a missing document answers 404 {found: false}, without an error object', async () => {
    const res = await t.json('GET', '/books/_doc/2');
    expect(res.status).toBe(404);
    expectEsHeaders(res);
    expect(res.body).toEqual({ _index: 'books', _id: '2', found: false });
  });

  it('GET and DELETE in a missing index answer 404 index_not_found_exception', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.json(method, '/nope/_doc/1');
      expectError(res, 404, 'index_not_found_exception', 'no such index [nope]');
      expect(res.body.error).toMatchObject({ 'resource.id': 'nope', index_uuid: '_na_', index: 'nope' });
    }
    expect(t.engine.has('nope')).toBe(false);
  });

  it('DELETE answers deleted with the next version, then 404 not_found', async () => {
    const res = await t.json('DELETE', '/books/_doc/1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _index: 'books', _id: '1', _version: 2, result: 'deleted', _shards: { total: 2, successful: 1, failed: 0 }, _primary_term: 1 });
    expect((await t.json('GET', '/books/_doc/1')).body).toEqual({ _index: 'books', _id: '1', found: false });
    const again = await t.json('DELETE', '/books/_doc/1');
    expect(again.status).toBe(404);
    expectEsHeaders(again);
    expect(again.body).toMatchObject({ _index: 'books', _id: '1', result: 'not_found' });
    expect(again.body.error).toBeUndefined();
  });
});

describe('refresh and count', () => {
  beforeEach(() => t.createIndex('books', { number_of_shards: 2, refresh_interval: '-1' }));

  it('writes are invisible to count and search until a refresh, which _refresh performs', async () => {
    await t.json('PUT', '/books/_doc/1', { n: 1 });
    expect(await count('books')).toBe(0);
    expect((await t.json('GET', '/books/_search')).body.hits.total).toEqual({ value: 0, relation: 'eq' });
    const refreshed = await t.json('POST', '/books/_refresh');
    expect(refreshed.status).toBe(200);
    expectEsHeaders(refreshed);
    expect(refreshed.body).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
    expect(await count('books')).toBe(1);
    expect((await t.json('GET', '/books/_search')).body.hits.total).toEqual({ value: 1, relation: 'eq' });
  });

  it.each([['true'], ['']])('?refresh=%s refreshes before answering, with forced_refresh', async (value) => {
    const res = await t.json('PUT', `/books/_doc/1?refresh=${value}`, { n: 1 });
    expect(res.status).toBe(201);
    expect(res.body.forced_refresh).toBe(true);
    expect(await count('books')).toBe(1);
    const deleted = await t.json('DELETE', `/books/_doc/1?refresh=${value}`);
    expect(deleted.body.forced_refresh).toBe(true);
    expect(await count('books')).toBe(0);
  });

  it('?refresh=wait_for answers once the write is visible, without forced_refresh', async () => {
    const res = await t.json('PUT', '/books/_doc/1?refresh=wait_for', { n: 1 });
    expect(res.status).toBe(201);
    expect(res.body.forced_refresh).toBeUndefined();
    expect(await count('books')).toBe(1);
  });

  it('refuses an unknown refresh value', async () => {
    expectError(await t.json('PUT', '/books/_doc/1?refresh=soon', { n: 1 }), 400, 'illegal_argument_exception', 'Unknown value for refresh: [soon].');
  });

  it('_count answers count and _shards for GET and POST, one index or all', async () => {
    await t.json('PUT', '/films/_doc/1?refresh=true', { n: 1 });
    await t.json('PUT', '/books/_doc/1', { n: 1 });
    await t.json('PUT', '/books/_doc/2?refresh=true', { n: 2 });
    const get = await t.json('GET', '/books/_count');
    expect(get.status).toBe(200);
    expectEsHeaders(get);
    expect(get.body).toEqual({ count: 2, _shards: { total: 2, successful: 2, skipped: 0, failed: 0 } });
    expect((await t.json('POST', '/books/_count', { query: { match_all: {} } })).body.count).toBe(2);
    expect((await t.json('GET', '/_count')).body).toEqual({ count: 3, _shards: { total: 3, successful: 3, skipped: 0, failed: 0 } });
    expect((await t.json('POST', '/books,films/_count')).body.count).toBe(3);
  });

  it("min_score on _search and _count, as Elasticsearch's count/30_min_score test", async () => {
    await t.json('PUT', '/scored', { settings: { number_of_shards: 1 }, mappings: { properties: { field: { type: 'text' } } } });
    await t.json('PUT', '/scored/_doc/1', { field: 'foo bar' });
    await t.json('PUT', '/scored/_doc/2?refresh=true', { field: 'foo bar bar bar bar' });
    const query = { match: { field: 'foo' } };
    expect((await t.json('POST', '/scored/_count?min_score=0.2', { query })).body.count).toBe(1);
    expect((await t.json('POST', '/scored/_count?min_score=0.1', { query })).body.count).toBe(2);
    const found = (await t.json('POST', '/scored/_search', { query, min_score: '0.2' })).body;
    expect(found.hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(found.hits.hits.map((h: { _id: string; _score: number }) => [h._id, h._score])).toEqual([['1', 0.22108284]]);
    expectError(await t.json('POST', '/scored/_search', { query, min_score: 'high' }), 400, 'x_content_parse_exception', '[min_score] failed to parse field value [high]');
    expectError(await t.json('POST', '/scored/_count?min_score=high', { query }), 400, 'illegal_argument_exception', 'Failed to parse float parameter [min_score] with value [high]');
  });
});

describe('routing', () => {
  const SHARDS = 5;
  const shardCounts = (index: string) => t.engine.resolve(index)[0].shards.map((s) => s.writes.docCount);

  it('puts each document on the shard ES picks for its _id', async () => {
    await t.createIndex('spread', { number_of_shards: SHARDS });
    const expected = new Array(SHARDS).fill(0);
    const lines: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `doc-${i}`;
      expected[shardFor(id, SHARDS)]++;
      lines.push({ index: { _id: id } }, { i });
    }
    expect((await t.bulk('/spread/_bulk', lines)).body.errors).toBe(false);
    await t.json('PUT', '/spread/_doc/%C3%A9t%C3%A9-%F0%9F%98%80', { unicode: true });
    expected[shardFor('été-😀', SHARDS)]++;
    expect(shardCounts('spread')).toEqual(expected);
    expect(expected.filter((n) => n > 0).length).toBe(SHARDS);
  });

  it('honours ?routing= on index, get and delete', async () => {
    await t.createIndex('routed', { number_of_shards: SHARDS });
    const routing = 'user-7';
    // An id whose own shard differs from the routing value's, so a GET without routing misses it.
    const id = Array.from({ length: 50 }, (_, i) => `d${i}`).find((d) => shardFor(d, SHARDS) !== shardFor(routing, SHARDS))!;
    expect((await t.json('PUT', `/routed/_doc/${id}?routing=${routing}`, { a: 1 })).status).toBe(201);
    const counts = new Array(SHARDS).fill(0);
    counts[shardFor(routing, SHARDS)] = 1;
    expect(shardCounts('routed')).toEqual(counts);

    const got = await t.json('GET', `/routed/_doc/${id}?routing=${routing}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ _id: id, _routing: routing, found: true, _source: { a: 1 } });
    expect((await t.json('GET', `/routed/_doc/${id}`)).body).toEqual({ _index: 'routed', _id: id, found: false });

    await t.json('POST', '/routed/_refresh');
    expect((await t.json('GET', '/routed/_search')).body.hits.hits).toEqual([{ _index: 'routed', _id: id, _score: 1, _routing: routing, _source: { a: 1 } }]);
    expect((await t.json('DELETE', `/routed/_doc/${id}`)).status).toBe(404);
    expect((await t.json('DELETE', `/routed/_doc/${id}?routing=${routing}`)).body.result).toBe('deleted');
    expect(shardCounts('routed')).toEqual(new Array(SHARDS).fill(0));
  });
});
