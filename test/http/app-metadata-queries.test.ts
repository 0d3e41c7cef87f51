/**
 * Queries on `_id` and on dates through the app, as Elasticsearch's own YAML tests and a new user
 * send them: a `term`, `terms` or `match` on `_id` and `q=_id:…` find the document; a term on a date
 * covers the day it names; what Elasticsearch refuses on `_id` is refused with its error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShardFailure, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = testApp();
  await t.createIndex('logs', { number_of_shards: 2 }, { properties: { when: { type: 'date' }, msg: { type: 'text' } } });
  const docs = [
    { id: '1', when: '2024-01-01T23:00:00Z', msg: 'late on new year' },
    { id: '2', when: '2024-01-02T00:00:00Z', msg: 'midnight' },
    { id: '3', when: '2024-01-02T18:30:00Z', msg: 'evening' },
    { id: '4', when: '2024-01-03T00:00:00Z', msg: 'next day' },
  ];
  const res = await t.bulk('/_bulk?refresh=true', docs.flatMap(({ id, ...source }) => [{ index: { _index: 'logs', _id: id } }, source]));
  expect(res.body.errors).toBe(false);
});
afterAll(() => t.close());

const ids = (res: { body: any }) => res.body.hits.hits.map((hit: { _id: string }) => hit._id).sort();
const search = (body: object) => t.json('POST', '/logs/_search', body);

describe('_id in queries', () => {
  it('term, terms, match and the query string find documents by id, scoring as a constant', async () => {
    const term = await search({ query: { term: { _id: '2' } } });
    expect(ids(term)).toEqual(['2']);
    expect(term.body.hits.hits[0]._score).toBe(1);
    expect(ids(await search({ query: { terms: { _id: ['1', '3', 'nope'] } } }))).toEqual(['1', '3']);
    expect(ids(await search({ query: { match: { _id: '4' } } }))).toEqual(['4']);
    expect(ids(await t.json('GET', '/logs/_search?q=_id:2'))).toEqual(['2']);
    expect(ids(await search({ query: { bool: { must_not: { term: { _id: '2' } } } } }))).toEqual(['1', '3', '4']);
    expect((await t.json('POST', '/logs/_count', { query: { term: { _id: '3' } } })).body.count).toBe(1);
  });

  it('refuses prefix, wildcard and range on _id as Elasticsearch does', async () => {
    expectShardFailure(await search({ query: { prefix: { _id: '1' } } }), 'query_shard_exception', 'Can only use prefix queries on keyword, text and wildcard fields - not on [_id] which is of type [_id]');
    expectShardFailure(await search({ query: { wildcard: { _id: '1*' } } }), 'query_shard_exception', 'Can only use wildcard queries on keyword, text and wildcard fields - not on [_id] which is of type [_id]');
    expectShardFailure(await search({ query: { range: { _id: { gte: '1' } } } }), 'query_shard_exception', 'failed to create query: Field [_id] of type [_id] does not support range queries');
  });
});

describe('metadata fields in sort', () => {
  it('refuses a sort on _id, _routing and _source with the fielddata errors, and says what deeppage does not sort by yet', async () => {
    const sort = (field: string) => search({ sort: [field] });
    expectShardFailure(await sort('_id'), 'illegal_argument_exception', 'Fielddata access on the _id field is disallowed, you can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled');
    expectShardFailure(await sort('_routing'), 'illegal_argument_exception', "Can't load fielddata on [_routing] because fielddata is unsupported on fields of type [_routing]. Use doc values instead.");
    expectShardFailure(await sort('_seq_no'), 'illegal_argument_exception', 'sorting on the metadata field [_seq_no] is not supported by deeppage yet');
  });
});

describe('a term on a date', () => {
  it('covers the whole day a date without a time names, in term, match and q=', async () => {
    expect(ids(await search({ query: { term: { when: '2024-01-02' } } }))).toEqual(['2', '3']);
    expect(ids(await search({ query: { match: { when: '2024-01-02' } } }))).toEqual(['2', '3']);
    expect(ids(await t.json('GET', '/logs/_search?q=when:2024-01-02'))).toEqual(['2', '3']);
    // A full instant, or epoch millis, is that instant only.
    expect(ids(await search({ query: { term: { when: '2024-01-02T18:30:00Z' } } }))).toEqual(['3']);
    expect(ids(await search({ query: { term: { when: Date.UTC(2024, 0, 2) } } }))).toEqual(['2']);
  });
});
