/** `GET /` and index management through the app: create (settings, mappings), get, head, delete, missing indices. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ES_VERSION, VERSION } from '../../src/http/version.ts';
import { expectError, expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

/** ES's 404 for a missing index, field for field. */
const notFound = (index: string) => {
  const cause = { type: 'index_not_found_exception', reason: `no such index [${index}]`, 'resource.type': 'index_or_alias', 'resource.id': index, index_uuid: '_na_', index };
  return { error: { root_cause: [cause], ...cause }, status: 404 };
};

describe('GET /', () => {
  it('answers cluster info in ES shape with our own version', async () => {
    const res = await t.json('GET', '/');
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(res.body).toMatchObject({ cluster_name: expect.any(String), cluster_uuid: expect.any(String), tagline: 'You Know, for Search' });
    expect(typeof res.body.name).toBe('string');
    expect(Object.keys(res.body.version).sort()).toEqual(
      ['build_date', 'build_flavor', 'build_hash', 'build_snapshot', 'build_type', 'lucene_version', 'minimum_index_compatibility_version', 'minimum_wire_compatibility_version', 'number'].sort(),
    );
    // The dialect's version, which tools pick their requests by; deeppage's own is in build_type.
    expect(res.body.version.number).toBe(ES_VERSION);
    expect(res.body.version.build_type).toBe(`deeppage-${VERSION}`);
    expect(res.body.version.build_flavor).toBe('default');
    expect(res.body.version.build_snapshot).toBe(false);
  });

  it('takes filter_path and pretty like any answer, and refuses other parameters', async () => {
    const plain = await t.app.request('/');
    const text = await plain.text();
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect((await t.json('GET', '/?filter_path=version.number,tagline')).body).toEqual({ version: { number: ES_VERSION }, tagline: 'You Know, for Search' });
    const pretty = await (await t.app.request('/?pretty')).text();
    expect(pretty).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect((await t.json('GET', '/?size=1')).status).toBe(400);
  });
});

describe('PUT /{index}', () => {
  it('acknowledges with ES fields and defaults to one shard, 10,000 window', async () => {
    const res = await t.json('PUT', '/books');
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(res.body).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'books' });
    const got = await t.json('GET', '/books');
    expect(got.body.books.settings.index).toMatchObject({ number_of_shards: '1', max_result_window: '10000', provided_name: 'books' });
    expect(t.engine.resolve('books')[0].shards).toHaveLength(1);
  });

  it.each([
    ['flat', { 'index.number_of_shards': 3, 'index.max_result_window': 50000 }],
    ['nested', { index: { number_of_shards: 3, max_result_window: 50000 } }],
    ['bare', { number_of_shards: 3, max_result_window: 50000 }],
    ['strings', { 'index.number_of_shards': '3', index: { max_result_window: '50000' } }],
  ])('reads %s settings', async (_, settings) => {
    await t.createIndex('books', settings);
    const got = await t.json('GET', '/books');
    expect(got.body.books.settings.index).toMatchObject({ number_of_shards: '3', max_result_window: '50000' });
    expect(t.engine.resolve('books')[0].shards).toHaveLength(3);
  });

  it('keeps explicit mappings of every supported type', async () => {
    const properties = {
      tag: { type: 'keyword' },
      title: { type: 'text' },
      views: { type: 'long' },
      pages: { type: 'integer' },
      price: { type: 'double' },
      rating: { type: 'float' },
      published: { type: 'date' },
      available: { type: 'boolean' },
    };
    await t.createIndex('books', undefined, { properties });
    const got = await t.json('GET', '/books');
    expect(got.status).toBe(200);
    expect(got.body.books.mappings).toEqual({ properties });
    expect(got.body.books.aliases).toEqual({});
  });

  it('maps fields dynamically from the first values seen', async () => {
    await t.json('PUT', '/books/_doc/1', { title: 'Dune', year: 1965, rating: 4.5, classic: true, published: '1965-08-01' });
    const got = await t.json('GET', '/books');
    expect(got.body.books.mappings.properties).toEqual({
      title: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      year: { type: 'long' },
      rating: { type: 'float' },
      classic: { type: 'boolean' },
      published: { type: 'date' },
    });
  });

  it('refuses an existing index with resource_already_exists_exception', async () => {
    await t.createIndex('books');
    const uuid = t.engine.resolve('books')[0].uuid;
    const res = await t.json('PUT', '/books');
    expectError(res, 400, 'resource_already_exists_exception', `index [books/${uuid}] already exists`);
    expect(res.body.error).toMatchObject({ index_uuid: uuid, index: 'books' });
    expect(res.body.error.root_cause[0]).toMatchObject({ type: 'resource_already_exists_exception', index: 'books' });
    expectEsHeaders(res);
  });

  it.each([
    ['Books', 'must be lowercase'],
    ['_books', "must not start with '_', '-', or '+'"],
    ['-books', "must not start with '_', '-', or '+'"],
    ['+books', "must not start with '_', '-', or '+'"],
    ['bo%23oks', "must not contain '#'"],
    ['bo:oks', "must not contain ':'"],
  ])('refuses the invalid name %s', async (path, why) => {
    const name = decodeURIComponent(path);
    const res = await t.json('PUT', `/${path}`);
    expectError(res, 400, 'invalid_index_name_exception', `Invalid index name [${name}], ${why}`);
    expect(res.body.error).toMatchObject({ index_uuid: '_na_', index: name });
    expect(t.engine.has(name)).toBe(false);
  });

  it.each(['a%2Cb', 'a%20b', 'a%3Fb', 'a%22b', 'a%3Cb', 'a%7Cb', 'a%5Cb'])('refuses the forbidden character in %s', async (path) => {
    const res = await t.json('PUT', `/${path}`);
    expectError(res, 400, 'invalid_index_name_exception', /must not contain the following characters/);
  });

  it('refuses an index name longer than 255 bytes', async () => {
    const res = await t.json('PUT', `/${'a'.repeat(256)}`);
    expectError(res, 400, 'invalid_index_name_exception', /index name is too long, \(256 > 255\)/);
  });

  it('refuses unknown settings, bad values and unknown mapping types', async () => {
    expectError(await t.json('PUT', '/a', { settings: { 'index.nope': 1 } }), 400, 'illegal_argument_exception', /^unknown setting \[index\.nope\]/);
    expectError(await t.json('PUT', '/b', { settings: { number_of_shards: 0 } }), 400, 'illegal_argument_exception', /index\.number_of_shards/);
    expectError(await t.json('PUT', '/c', { settings: { number_of_shards: 'many' } }), 400, 'illegal_argument_exception', 'Failed to parse value [many] for setting [index.number_of_shards]');
    expectError(await t.json('PUT', '/d', { mappings: { properties: { x: { type: 'nope' } } } }), 400, 'mapper_parsing_exception', /No handler for type \[nope\] declared on field \[x\]/);
    expect(t.engine.indices()).toHaveLength(0);
  });
});

describe('GET, HEAD and DELETE /{index}', () => {
  beforeEach(async () => {
    await t.createIndex('books', { number_of_shards: 2 });
    await t.createIndex('films');
  });

  it('GET returns aliases, mappings and settings per index, for lists and wildcards', async () => {
    const one = await t.json('GET', '/books');
    expect(one.status).toBe(200);
    expectEsHeaders(one);
    expect(Object.keys(one.body)).toEqual(['books']);
    expect(one.body.books.settings.index).toMatchObject({ number_of_shards: '2', uuid: t.engine.resolve('books')[0].uuid });
    expect(Object.keys((await t.json('GET', '/books,films')).body).sort()).toEqual(['books', 'films']);
    expect(Object.keys((await t.json('GET', '/f*')).body)).toEqual(['films']);
  });

  it('HEAD answers 200 or 404 with no body', async () => {
    const there = await t.json('HEAD', '/books');
    expect(there.status).toBe(200);
    expect(there.text).toBe('');
    expect(there.headers.get('x-elastic-product')).toBe('Elasticsearch');
    const missing = await t.json('HEAD', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('');
    expect(missing.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });

  it('DELETE acknowledges, after which the index is gone and may be created again', async () => {
    const res = await t.json('DELETE', '/books');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ acknowledged: true });
    expect((await t.json('GET', '/books')).body).toEqual(notFound('books'));
    expect((await t.json('HEAD', '/books')).status).toBe(404);
    expect((await t.json('PUT', '/books')).status).toBe(200);
    expect((await t.json('GET', '/films')).status).toBe(200);
  });

  it.each([
    ['GET', '/nope'],
    ['DELETE', '/nope'],
    ['GET', '/books,nope'],
    ['GET', '/nope/_search'],
    ['POST', '/nope/_search'],
    ['GET', '/nope/_count'],
    ['POST', '/nope/_refresh'],
    ['POST', '/nope/_cache/clear'],
  ])('%s %s answers 404 index_not_found_exception with ES fields', async (method, path) => {
    const res = await t.json(method, path);
    expect(res.status).toBe(404);
    expectEsHeaders(res);
    expect(res.body).toEqual(notFound('nope'));
  });

  it('refuses to delete by wildcard or _all', async () => {
    expect((await t.json('DELETE', '/b*')).status).toBe(400);
    expect((await t.json('DELETE', '/_all')).status).toBe(400);
    expect(t.engine.has('books')).toBe(true);
  });
});

describe('POST _cache/clear', () => {
  it('answers the broadcast _shards of every matching index, and only POST is allowed', async () => {
    await t.json('PUT', '/books', { settings: { number_of_shards: 3 } });
    await t.json('PUT', '/films', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    expect((await t.json('POST', '/books/_cache/clear')).body).toEqual({ _shards: { total: 6, successful: 3, failed: 0 } });
    expect((await t.json('POST', '/_cache/clear')).body).toEqual({ _shards: { total: 8, successful: 5, failed: 0 } });
    const get = await t.json('GET', '/books/_cache/clear');
    expect(get.status).toBe(405);
    expect(get.body.error.reason).toBe('Incorrect HTTP method for uri [/books/_cache/clear] and method [GET], allowed: [POST]');
  });
});
