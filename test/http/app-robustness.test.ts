/**
 * Inputs that once broke the node or its data: long value lists, fields that are both values and
 * objects, deep nesting; plus ES details found in review (filtered errors, `_count` parameters,
 * deletes on missing indices, `wait_for` per shard, shard order across indices).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { expectError, testApp, type TestApp } from './app-helpers.ts';

describe('robustness', () => {
  let t: TestApp;
  beforeEach(() => (t = testApp()));
  afterEach(() => t.close());

  it('indexes and sorts a field holding 300,000 values', async () => {
    const n = Array.from({ length: 300_000 }, (_, i) => i);
    expect((await t.json('PUT', '/big/_doc/1?refresh=true', { n })).status).toBe(201);
    const res = await t.json('GET', '/big/_search?sort=n:desc');
    expect(res.body.hits.hits[0].sort).toEqual([299_999]);
  });

  it('refuses a value where an object is mapped, and an object field under a value, leaving the mapping whole', async () => {
    expect((await t.json('PUT', '/m/_doc/1', { a: { b: 1 } })).status).toBe(201);
    expectError(await t.json('PUT', '/m/_doc/2', { a: 5 }), 400, 'document_parsing_exception', /tried to parse field \[a\] as object, but found a concrete value/);
    expect((await t.json('PUT', '/m/_doc/3', { c: 1 })).status).toBe(201);
    expectError(await t.json('PUT', '/m/_doc/4', { 'c.d': 2 }), 400, 'document_parsing_exception', 'Could not dynamically add mapping for field [c.d]. Existing mapping for [c] must be of type object but found [long].');
    expect((await t.json('PUT', '/m/_doc/5', { toString: { x: 1 }, constructor: 2 })).status).toBe(201);
    const mapping = await t.json('GET', '/m/_mapping');
    expect(mapping.body.m.mappings.properties).toEqual({
      a: { properties: { b: { type: 'long' } } },
      c: { type: 'long' },
      toString: { properties: { x: { type: 'long' } } },
      constructor: { type: 'long' },
    });
  });

  it('refuses mappings that define a path both as a field and as an object', async () => {
    expectError(await t.json('PUT', '/x', { mappings: { properties: { a: { type: 'long' }, 'a.b': { type: 'long' } } } }), 400, 'mapper_parsing_exception');
    expect((await t.json('GET', '/x')).status).toBe(404);
  });

  it('refuses documents nested deeper than the mapping depth limit', async () => {
    const deep = `{"a":${'['.repeat(20_000)}1${']'.repeat(20_000)}}`;
    expectError(await t.json('PUT', '/d/_doc/1', deep), 400, 'document_parsing_exception', /Limit of mapping depth \[20\]/);
    const objects = `{"a":${'{"b":'.repeat(25)}1${'}'.repeat(25)}}`;
    expectError(await t.json('PUT', '/d/_doc/2', objects), 400, 'document_parsing_exception', /Limit of mapping depth \[20\]/);
  });

  it('does not filter error bodies with filter_path, and takes filter_path on _count', async () => {
    expectError(await t.json('GET', '/missing/_search?filter_path=hits.hits'), 404, 'index_not_found_exception');
    await t.json('PUT', '/c/_doc/1?refresh=true', { n: 1 });
    expect((await t.json('GET', '/c/_count?filter_path=count')).body).toEqual({ count: 1 });
    expectError(await t.json('GET', '/c/_count?nope=1'), 400, 'illegal_argument_exception', 'request [/c/_count] contains unrecognized parameter: [nope]');
  });

  it('answers a bulk delete on a missing index with a 404 item, without creating the index', async () => {
    const res = await t.bulk('/_bulk', [{ delete: { _index: 'nosuch', _id: '1' } }]);
    expect(res.body.errors).toBe(true);
    expect(res.body.items[0].delete).toMatchObject({ status: 404, error: { type: 'index_not_found_exception' } });
    expect((await t.json('GET', '/nosuch')).status).toBe(404);
  });

  it('acknowledges refresh=wait_for only once its own shard has refreshed', async () => {
    await t.createIndex('w', { number_of_shards: 2, refresh_interval: '30s' });
    const ids = Array.from({ length: 20 }, (_, i) => String(i));
    const a = ids.find((id) => shardFor(id, 2) === 0)!;
    const b = ids.find((id) => shardFor(id, 2) === 1)!;
    let acked = false;
    const waiting = t.json('PUT', `/w/_doc/${a}?refresh=wait_for`, { n: 1 }).then((res) => ((acked = true), res));
    await t.json('PUT', `/w/_doc/${b}?refresh=true`, { n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(acked).toBe(false);
    await t.json('POST', '/w/_refresh');
    expect((await waiting).status).toBe(201);
    expect((await t.json('GET', '/w/_count')).body.count).toBe(2);
  });

  it('orders shards by shard number, then index name, across indices (ES ShardId order)', async () => {
    await t.createIndex('a', { number_of_shards: 2 });
    await t.createIndex('b', { number_of_shards: 2 });
    const ids = Array.from({ length: 40 }, (_, i) => String(i));
    await t.bulk('/_bulk', ids.flatMap((id) => [{ index: { _index: 'a', _id: id } }, { v: 1 }, { index: { _index: 'b', _id: id } }, { v: 1 }]), '?refresh=true');
    const expected = [0, 1].flatMap((shard) => ['a', 'b'].flatMap((index) => ids.filter((id) => shardFor(id, 2) === shard).map((id) => `${index}/${id}`)));
    for (const query of ['size=80', 'size=80&sort=v:asc']) {
      const res = await t.json('GET', `/a,b/_search?${query}`);
      expect(res.body.hits.hits.map((h: { _index: string; _id: string }) => `${h._index}/${h._id}`)).toEqual(expected);
    }
  });
});

describe('ES limits on documents', () => {
  let t: TestApp;
  beforeEach(() => (t = testApp()));
  afterEach(() => t.close());

  it('refuses empty and over-long ids, updates without doc, and longs out of range', async () => {
    const items = (await t.bulk('/_bulk', [{ index: { _index: 'l', _id: '' } }, { n: 1 }, { index: { _index: 'l', _id: 'x'.repeat(513) } }, { n: 1 }])).body.items;
    expect(items[0].index.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'if _id is specified it must not be empty' });
    expect(items[1].index.error.reason).toMatch(/is too long, must be no longer than 512 bytes but was: 513/);
    expectError(await t.bulk('/_bulk', [{ update: { _index: 'l', _id: '1' } }, { upsert: { n: 1 } }]), 400, 'action_request_validation_exception', 'Validation Failed: 1: script or doc is missing;');
    expectError(await t.json('PUT', '/l/_doc/1', { n: 1e300 }), 400, 'document_parsing_exception');
  });

  it('takes a date string as the missing value of a date sort', async () => {
    await t.bulk('/_bulk', [{ index: { _index: 'dates', _id: '1' } }, { d: '2020-01-01' }, { index: { _index: 'dates', _id: '2' } }, { other: 1 }], '?refresh=true');
    const res = await t.json('POST', '/dates/_search', { sort: [{ d: { order: 'asc', missing: '2019-01-01' } }] });
    expect(res.body.hits.hits.map((h: { _id: string; sort: unknown[] }) => [h._id, h.sort])).toEqual([['2', [Date.UTC(2019, 0, 1)]], ['1', [Date.UTC(2020, 0, 1)]]]);
  });
});
