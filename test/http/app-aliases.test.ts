/**
 * Index aliases over HTTP (src/http/routes/aliases.ts, src/engine/aliases/): creating, reading and
 * removing them as Elasticsearch does, and what they do to searches (filters, search routing,
 * several indices) and to writes and single-document requests (the write index, index routing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { createApp } from '../../src/http/app.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir } from '../engine/helpers.ts';
import { expectError, ids, testApp, type TestApp } from './app-helpers.ts';

describe('index aliases', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = testApp();
    for (const name of ['logs-1', 'logs-2']) {
      await t.createIndex(name, { number_of_shards: 2 }, { properties: { level: { type: 'keyword' }, n: { type: 'long' } } });
      const lines = Array.from({ length: 10 }, (_, i) => [{ index: { _index: name, _id: `${name}-${i}` } }, { level: i % 2 ? 'error' : 'info', n: i }]).flat();
      expect((await t.bulk('/_bulk', lines, '?refresh=true')).body.errors).toBe(false);
    }
  });
  afterAll(() => t.close());

  const search = (path: string, body: unknown = { size: 100, sort: [{ n: 'asc' }] }) => t.json('POST', path, body);

  it('are added, read and removed one at a time', async () => {
    expect((await t.json('PUT', '/logs-1/_alias/one')).body).toEqual({ acknowledged: true, errors: false });
    expect((await t.json('GET', '/_alias/one')).body).toEqual({ 'logs-1': { aliases: { one: {} } } });
    expect((await t.json('GET', '/logs-1/_alias')).body).toEqual({ 'logs-1': { aliases: { one: {} } } });
    expect((await t.json('GET', '/logs-2/_alias')).body).toEqual({ 'logs-2': { aliases: {} } });
    expect((await t.json('GET', '/logs-1')).body['logs-1'].aliases).toEqual({ one: {} });
    expect((await t.json('HEAD', '/_alias/one')).status).toBe(200);
    expect((await t.json('DELETE', '/logs-1/_alias/one')).body).toEqual({ acknowledged: true, errors: false });
    const missing = await t.json('GET', '/_alias/one');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'alias [one] missing', status: 404 });
    expect((await t.json('HEAD', '/_alias/one')).status).toBe(404);
    expectError(await t.json('DELETE', '/logs-1/_alias/one'), 404, 'aliases_not_found_exception', 'aliases [one] missing');
  });

  it('search every index they name, as the index itself would', async () => {
    await t.json('POST', '/_aliases', { actions: [{ add: { indices: ['logs-1', 'logs-2'], alias: 'logs' } }] });
    const both = await search('/logs/_search');
    expect(both.body.hits.total.value).toBe(20);
    expect(ids(both)).toEqual(ids(await search('/logs-1,logs-2/_search')));
    // A wildcard matches alias names too.
    expect((await search('/log*/_search')).body.hits.total.value).toBe(20);
    expect((await t.json('GET', '/logs/_count')).body.count).toBe(20);
  });

  it('with a filter, search only the documents it matches, on every page and in counts', async () => {
    await t.json('PUT', '/logs-1/_alias/errors-1', { filter: { term: { level: 'error' } } });
    expect((await t.json('GET', '/_alias/errors-1')).body).toEqual({ 'logs-1': { aliases: { 'errors-1': { filter: { term: { level: 'error' } } } } } });
    const all = await search('/errors-1/_search');
    expect(ids(all)).toEqual(['logs-1-1', 'logs-1-3', 'logs-1-5', 'logs-1-7', 'logs-1-9']);
    expect(ids(await search('/errors-1/_search', { from: 2, size: 2, sort: [{ n: 'asc' }] }))).toEqual(['logs-1-5', 'logs-1-7']);
    expect(ids(await search('/errors-1/_search', { size: 10, query: { range: { n: { gte: 4 } } }, sort: [{ n: 'desc' }] }))).toEqual(['logs-1-9', 'logs-1-7', 'logs-1-5']);
    expect((await t.json('POST', '/errors-1/_count', { query: { range: { n: { lt: 4 } } } })).body.count).toBe(2);
    // Named directly as well, the index is searched whole.
    expect((await search('/errors-1,logs-1/_search')).body.hits.total.value).toBe(10);
    // The same filter through a point in time.
    const pit = await t.json('POST', '/errors-1/_pit?keep_alive=1m');
    const page = await t.json('POST', '/_search', { size: 10, pit: { id: pit.body.id }, sort: [{ n: 'asc' }] });
    expect(ids(page)).toEqual(['logs-1-1', 'logs-1-3', 'logs-1-5', 'logs-1-7', 'logs-1-9']);
  });

  it('take writes only through their write index, and refuse single-document requests over several indices', async () => {
    expectError(await t.json('PUT', '/logs/_doc/w1', { n: 100 }), 400, 'illegal_argument_exception', /^no write index is defined for alias \[logs\]/);
    expectError(await t.json('GET', '/logs/_doc/logs-1-1'), 400, 'illegal_argument_exception', "alias [logs] has more than one index associated with it [logs-1, logs-2], can't execute a single index op");
    await t.json('POST', '/_aliases', { actions: [{ add: { index: 'logs-2', alias: 'logs', is_write_index: true } }] });
    const written = await t.json('PUT', '/logs/_doc/w1?refresh=true', { n: 100 });
    expect(written.status, written.text).toBe(201);
    expect(written.body._index).toBe('logs-2');
    const bulk = await t.bulk('/_bulk', [{ index: { _index: 'logs', _id: 'w2' } }, { n: 101 }], '?refresh=true');
    expect(bulk.body.items[0].index._index).toBe('logs-2');
    // A second write index for the same alias is refused, and nothing of the request applies.
    expectError(await t.json('POST', '/_aliases', { actions: [{ add: { index: 'logs-1', alias: 'other' } }, { add: { index: 'logs-1', alias: 'logs', is_write_index: true } }] }), 400, 'illegal_state_exception', 'alias [logs] has more than one write index [logs-1,logs-2]');
    expect((await t.json('GET', '/_alias/other')).status).toBe(404);
  });

  it('route writes and gets by their index routing, and searches by their search routing', async () => {
    await t.createIndex('routed', { number_of_shards: 4 });
    await t.json('PUT', '/routed/_alias/by-r', { index_routing: 'r1', search_routing: 'r1' });
    const written = await t.json('PUT', '/by-r/_doc/d1?refresh=true', { n: 1 });
    expect(written.status, written.text).toBe(201);
    // The document lives where routing r1 puts it: a plain GET needs the routing.
    expect((await t.json('GET', '/routed/_doc/d1?routing=r1')).body.found).toBe(true);
    expect((await t.json('GET', '/by-r/_doc/d1')).body.found).toBe(true);
    expectError(await t.json('PUT', '/by-r/_doc/d2?routing=r2', { n: 2 }), 400, 'illegal_argument_exception', 'Alias [by-r] has index routing associated with it [r1], and was provided with routing value [r2], rejecting operation');
    const searched = await t.json('GET', '/by-r/_search');
    expect(searched.body._shards.total).toBe(1);
    expect(ids(searched)).toEqual(['d1']);
  });

  it('change together in one request: removes, must_exist, and removing an index', async () => {
    await t.createIndex('temp');
    const partly = await t.json('POST', '/_aliases', { actions: [{ add: { index: 'temp', alias: 't1' } }, { remove: { index: 'temp', alias: 'nothing' } }] });
    expect(partly.status).toBe(200);
    expect(partly.body.errors).toBe(true);
    expect(partly.body.action_results[0]).toEqual({ action: { type: 'add', indices: ['temp'], aliases: ['t1'] }, status: 200, error: null });
    expect(partly.body.action_results[1].status).toBe(404);
    expect(partly.body.action_results[1].error.type).toBe('aliases_not_found_exception');
    expect((await t.json('GET', '/_alias/t1')).status).toBe(200);
    // must_exist: the whole request fails and nothing applies.
    expectError(await t.json('POST', '/_aliases', { actions: [{ remove: { index: 'temp', alias: 't1' } }, { remove: { index: 'temp', alias: 'nothing', must_exist: true } }] }), 404, 'aliases_not_found_exception');
    expect((await t.json('GET', '/_alias/t1')).status).toBe(200);
    expect((await t.json('POST', '/_aliases', { actions: [{ remove_index: { index: 'temp' } }] })).status).toBe(200);
    expect((await t.json('GET', '/temp')).status).toBe(404);
    expect((await t.json('GET', '/_alias/t1')).status).toBe(404);
  });

  it('are checked as Elasticsearch checks them', async () => {
    expectError(await t.json('PUT', '/logs-1/_alias/logs-2'), 400, 'invalid_alias_name_exception', 'Invalid alias name [logs-2]: an index or data stream exists with the same name as the alias');
    expectError(await t.json('PUT', '/logs-1/_alias/_bad'), 400, 'invalid_alias_name_exception', /^Invalid alias name \[_bad\], must not start with/);
    expectError(await t.json('PUT', '/logs', {}), 400, 'invalid_index_name_exception', 'Invalid index name [logs], already exists as alias');
    expectError(await t.json('PUT', '/missing/_alias/x'), 404, 'index_not_found_exception');
    expectError(await t.json('POST', '/_aliases', { actions: [{ add: { index: 'logs-1' } }] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: One of [alias] or [aliases] is required;');
    expectError(await t.json('POST', '/_aliases', { actions: [{ add: { index: 'logs-1', alias: 'x', must_exist: true } }] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: [must_exist] is unsupported for [add];');
    expectError(await t.json('POST', '/_aliases', { actions: [{ add: { index: 'logs-1', alias: 'x', color: 'red' } }] }), 400, 'x_content_parse_exception', '[add] unknown field [color]');
    expectError(await t.json('PUT', '/logs-1/_alias/x', { filter: { nonsense: {} } }), 400, 'parsing_exception');
    expectError(await t.json('POST', '/_aliases', { actions: [{ remove_index: { index: 'logs-*' } }] }), 400, 'illegal_argument_exception', 'Wildcard expressions or all indices are not allowed');
  });

  it('stand where concrete indices are needed only as ES allows', async () => {
    await t.createIndex('solo');
    await t.json('PUT', '/solo/_alias/solo-alias');
    const notConcrete = 'The provided expression [solo-alias] matches an alias, specify the corresponding concrete indices instead.';
    // Deleting "the alias" as an index deletes nothing.
    expectError(await t.json('DELETE', '/solo-alias'), 400, 'illegal_argument_exception', notConcrete);
    expect((await t.json('GET', '/solo')).status).toBe(200);
    expectError(await t.json('PUT', '/solo-alias/_alias/z'), 400, 'illegal_argument_exception', notConcrete);
    // A single-document request names one index or alias: no wildcards, no lists.
    await t.json('PUT', '/solo/_doc/1?refresh=true', { n: 1 });
    expect((await t.json('GET', '/solo-alias/_doc/1')).body.found).toBe(true);
    expectError(await t.json('GET', '/sol*/_doc/1'), 404, 'index_not_found_exception');
    expectError(await t.json('GET', '/solo,logs-1/_doc/1'), 404, 'index_not_found_exception');
  });

  it('swap an index for an alias of its name in one request, as a reindex-then-swap does', async () => {
    await t.createIndex('swap-old');
    await t.createIndex('swap-new');
    const swapped = await t.json('POST', '/_aliases', { actions: [{ add: { index: 'swap-new', alias: 'swap-old' } }, { remove_index: { index: 'swap-old' } }] });
    expect(swapped.status, swapped.text).toBe(200);
    expect((await t.json('GET', '/_alias/swap-old')).body).toEqual({ 'swap-new': { aliases: { 'swap-old': {} } } });
  });

  it('fail as ES fails when nothing is left to do, and remove what they find', async () => {
    expectError(await t.json('POST', '/_aliases', { actions: [{ remove: { index: 'logs-1', alias: 'never' } }] }), 404, 'aliases_not_found_exception', 'aliases [never] missing');
    await t.json('PUT', '/logs-1/_alias/q');
    const partly = await t.json('DELETE', '/logs-1/_alias/q,zzz');
    expect(partly.status, partly.text).toBe(200);
    expect((await t.json('GET', '/_alias/q')).status).toBe(404);
    expect((await t.json('GET', '/_alias/zz-b,zz-a')).body).toEqual({ error: 'aliases [zz-a,zz-b] missing', status: 404 });
    expect((await t.json('GET', '/_aliases')).status).toBe(200);
    // `-name` after a wildcard leaves out what it names.
    await t.json('PUT', '/logs-1/_alias/ex-a');
    await t.json('PUT', '/logs-1/_alias/ex-b');
    expect((await t.json('GET', '/logs-1/_alias/ex-*,-ex-b')).body).toEqual({ 'logs-1': { aliases: { 'ex-a': {} } } });
  });

  it('keep one write index per alias, also when an index is created with one', async () => {
    await t.createIndex('w-1', undefined, undefined);
    await t.json('PUT', '/w-1/_alias/w', { is_write_index: true });
    expectError(await t.json('PUT', '/w-2', { aliases: { w: { is_write_index: true } } }), 400, 'illegal_state_exception', 'alias [w] has more than one write index [w-1,w-2]');
    expect((await t.json('GET', '/w-2')).status).toBe(404);
  });

  it('are hidden on all their indices or on none', async () => {
    await t.createIndex('h-1');
    await t.createIndex('h-2');
    await t.json('PUT', '/h-1/_alias/h', { is_hidden: true });
    expectError(await t.json('PUT', '/h-2/_alias/h'), 400, 'illegal_state_exception', 'alias [h] has is_hidden set to true on indices [h-1] but does not have is_hidden set to true on indices [h-2]; alias must have the same is_hidden setting on all indices');
    expect((await t.json('PUT', '/h-2/_alias/h', { is_hidden: true })).status).toBe(200);
  });

  it('of hidden indices are read too', async () => {
    await t.createIndex('.hidden-x');
    await t.json('PUT', '/.hidden-x/_alias/hx');
    expect((await t.json('GET', '/_alias/hx')).body).toEqual({ '.hidden-x': { aliases: { hx: {} } } });
  });

  it('take a reindex into their write index, refreshed, and refuse one into the index it reads', async () => {
    await t.createIndex('rx-src');
    await t.createIndex('rx-dest');
    await t.json('PUT', '/rx-dest/_alias/rx');
    await t.json('PUT', '/rx-src/_alias/rx-self');
    await t.bulk('/_bulk', [{ index: { _index: 'rx-src', _id: 'a' } }, { n: 1 }, { index: { _index: 'rx-src', _id: 'b' } }, { n: 2 }], '?refresh=true');
    const copied = await t.json('POST', '/_reindex?refresh=true', { source: { index: 'rx-src' }, dest: { index: 'rx' } });
    expect(copied.body.created, copied.text).toBe(2);
    expect((await t.json('GET', '/rx-dest/_count')).body.count).toBe(2);
    expectError(await t.json('POST', '/_reindex', { source: { index: 'rx-src' }, dest: { index: 'rx-self' } }), 400, 'action_request_validation_exception', /reindex cannot write into an index its reading from \[rx-src\]/);
  });

  it('come with an index created with them, and survive a restart', async () => {
    const created = await t.json('PUT', '/with-aliases', { aliases: { w: {}, f: { filter: { term: { level: 'x' } }, routing: '7', is_write_index: true } } });
    expect(created.status, created.text).toBe(200);
    expect((await t.json('GET', '/with-aliases/_alias')).body).toEqual({ 'with-aliases': { aliases: { f: { filter: { term: { level: 'x' } }, index_routing: '7', search_routing: '7', is_write_index: true }, w: {} } } });
  });
});

describe('index aliases after a restart', () => {
  it('are read back from storage', async () => {
    const { dir, remove } = tempDir();
    try {
      let engine = Engine.open(DocStore.open(dir));
      let app = createApp({ engine });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await app.request(path, { method, ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
        return { status: res.status, body: await res.json() };
      };
      await call('PUT', '/kept');
      await call('PUT', '/kept/_alias/k', { filter: { term: { level: 'a' } }, index_routing: '3' });
      await call('PUT', '/k/_doc/1?refresh=true', { level: 'a' });
      await call('PUT', '/kept/_doc/2?refresh=true', { level: 'b' });
      await engine.close();
      engine = Engine.open(DocStore.open(dir));
      app = createApp({ engine });
      expect((await call('GET', '/_alias/k')).body).toEqual({ kept: { aliases: { k: { filter: { term: { level: 'a' } }, index_routing: '3' } } } });
      const found = await call('GET', '/k/_search');
      expect(found.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['1']);
      expect((await call('GET', '/k/_doc/1')).body.found).toBe(true);
      await engine.close();
    } finally {
      remove();
    }
  });
});
