/**
 * OpenSearch's point-in-time endpoints through the app: creating one (`keep_alive` required, its
 * parameters checked), searching over it with the `pit` a search body takes in both dialects (the
 * answer carries `pit_id`), listing and deleting them by id or all at once, and OpenSearch's errors.
 * They name the same points in time as Elasticsearch's `_pit`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, ids, testApp, type TestApp } from './app-helpers.ts';

describe("OpenSearch's point-in-time API", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 2 }, { properties: { n: { type: 'long' } } });
    for (const n of [1, 2]) await t.json('PUT', `/books/_doc/${n}?refresh=true`, { n });
  });
  afterAll(() => t.close());

  const create = async (query = 'keep_alive=23h') => {
    const res = await t.json('POST', `/books/_search/point_in_time?${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('creates a point in time with its shards and creation time, and searches its snapshot', async () => {
    const before = Date.now();
    const created = await create('keep_alive=23h&allow_partial_pit_creation=true&expand_wildcards=open&preference=_local');
    expect(Object.keys(created)).toEqual(['pit_id', '_shards', 'creation_time']);
    expect(created._shards).toEqual({ total: 2, successful: 2, skipped: 0, failed: 0 });
    expect(created.creation_time).toBeGreaterThanOrEqual(before);
    expect(created.creation_time).toBeLessThanOrEqual(Date.now());

    await t.json('PUT', '/books/_doc/3?refresh=true', { n: 3 });
    const page = await t.json('POST', '/_search?rest_total_hits_as_int=true', { size: 1, sort: ['n'], pit: { id: created.pit_id, keep_alive: '10m' } });
    expect(page.status, page.text).toBe(200);
    expect(page.body.pit_id).toBe(created.pit_id);
    expect(page.body.hits.total).toBe(2);
    expect(ids(page)).toEqual(['1']);
    expect((await t.json('POST', '/books/_search?rest_total_hits_as_int=true', { size: 0 })).body.hits.total).toBe(3);

    // The keep-alive the last search gave it, in ms.
    const listed = (await t.json('GET', '/_search/point_in_time/_all')).body.pits;
    expect(listed).toContainEqual({ pit_id: created.pit_id, creation_time: created.creation_time, keep_alive: 600_000 });
    await t.json('DELETE', '/_search/point_in_time/_all');
  });

  it("is Elasticsearch's point in time under another name", async () => {
    const es = await t.json('POST', '/books/_pit?keep_alive=1m');
    expect((await t.json('GET', '/_search/point_in_time/_all')).body.pits.map((p: { pit_id: string }) => p.pit_id)).toEqual([es.body.id]);
    const { pit_id } = await create();
    expect(await t.json('DELETE', '/_pit', { id: pit_id })).toMatchObject({ status: 200, body: { succeeded: true, num_freed: 1 } });
    expect((await t.json('DELETE', '/_search/point_in_time', { pit_id: es.body.id })).body).toEqual({ pits: [{ successful: true, pit_id: es.body.id }] });
    expect((await t.json('GET', '/_search/point_in_time/_all')).body).toEqual({ pits: [] });
  });

  it('deletes by id (a list or one, duplicates once), every id successful, known or not', async () => {
    const a = (await create()).pit_id, b = (await create()).pit_id;
    const res = await t.json('DELETE', '/_search/point_in_time', { pit_id: [a, b, a] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ pits: [{ successful: true, pit_id: a }, { successful: true, pit_id: b }] });
    // Gone: deleting again still answers successful, and a search over it finds no context.
    expect((await t.json('DELETE', '/_search/point_in_time', { pit_id: a })).body).toEqual({ pits: [{ successful: true, pit_id: a }] });
    const search = await t.json('POST', '/_search', { pit: { id: a } });
    expectError(search, 404, 'search_phase_execution_exception');
    expect(search.body.error.root_cause[0].type).toBe('search_context_missing_exception');
  });

  it('deletes all, then answers an empty list', async () => {
    const a = (await create()).pit_id, b = (await create()).pit_id;
    expect((await t.json('DELETE', '/_search/point_in_time/_all')).body).toEqual({ pits: [{ successful: true, pit_id: a }, { successful: true, pit_id: b }] });
    const again = await t.json('DELETE', '/_search/point_in_time/_all');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ pits: [] });
  });

  it("refuses what OpenSearch refuses, in OpenSearch's words", async () => {
    expectError(await t.json('POST', '/books/_search/point_in_time'), 400, 'action_request_validation_exception', 'Validation Failed: 1: keep alive not specified;');
    expectError(await t.json('POST', '/books/_search/point_in_time?keep_alive=1m&pit_id=x'), 400, 'illegal_argument_exception', 'request [/books/_search/point_in_time] contains unrecognized parameter: [pit_id]');
    expectError(await t.json('POST', '/books/_search/point_in_time?keep_alive=1m&allow_partial_pit_creation=maybe'), 400, 'illegal_argument_exception');
    expectError(await t.json('POST', '/books/_search/point_in_time?keep_alive=1m', { query: {} }), 400, 'illegal_argument_exception', 'request [POST /books/_search/point_in_time] does not support having a body');
    expectError(await t.json('POST', '/missing/_search/point_in_time?keep_alive=1m'), 404, 'index_not_found_exception');

    expectError(await t.json('DELETE', '/_search/point_in_time'), 400, 'action_request_validation_exception', 'Validation Failed: 1: no pit ids specified;');
    expectError(await t.json('DELETE', '/_search/point_in_time', { pit_id: [] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: no pit ids specified;');
    expectError(await t.json('DELETE', '/_search/point_in_time', { id: 'x' }), 400, 'illegal_argument_exception', 'Unknown parameter [id] in request body or parameter is of the wrong type[VALUE_STRING] ');
    expectError(await t.json('DELETE', '/_search/point_in_time', { pit_id: [{}] }), 400, 'illegal_argument_exception', 'pit_id array element should only contain pit_id');
    expectError(await t.json('DELETE', '/_search/point_in_time', { pit_id: 'not-an-id' }), 400, 'illegal_argument_exception', 'invalid id: [not-an-id]');
    expectError(await t.json('DELETE', '/_search/point_in_time?pit_id=x'), 400, 'illegal_argument_exception', /unrecognized parameter: \[pit_id\]/);
    expectError(await t.json('DELETE', '/_search/point_in_time/_all', { pit_id: ['x'] }), 400, 'illegal_argument_exception', 'request [DELETE /_search/point_in_time/_all] does not support having a body');

    // A malformed id fails the whole request before any point in time is closed.
    const { pit_id } = await create();
    expectError(await t.json('DELETE', '/_search/point_in_time', { pit_id: [pit_id, 'bad'] }), 400, 'illegal_argument_exception', 'invalid id: [bad]');
    expect((await t.json('GET', '/_search/point_in_time/_all')).body.pits).toHaveLength(1);
    await t.json('DELETE', '/_search/point_in_time/_all');
  });
});
