/**
 * `_mget` and `_msearch` through the real server on a free port, driven by the official
 * Elasticsearch client (8.19), which sends `_msearch` as NDJSON with its vendored media type: items in
 * order, found, missing and failed items, `_source` per item, routing, the ids form, validation
 * errors as `ResponseError`s, and each search answered as `client.search` answers it.
 */
import { errors } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { inProcessServer } from './in-process-server.ts';

/** Response bodies are read field by field, as ES's clients do. */
type Json = any;

const SHARDS = 3;
const DOCS = 120;
const doc = (i: number) => ({ n: i, rank: i % 5, group: `g${i % 4}`, title: `doc ${i}` });
const ROUTING = 'tenant-1';
/** An id whose own shard is not the routing value's: only a read with the routing finds it. */
const ROUTED_ID = Array.from({ length: 50 }, (_, i) => `routed-${i}`).find((id) => shardFor(id, SHARDS) !== shardFor(ROUTING, SHARDS))!;

describe('_mget and _msearch with the official client', () => {
  const running = inProcessServer(async (client) => {
    await client.indices.create({ index: 'items', settings: { number_of_shards: SHARDS }, mappings: { properties: { rank: { type: 'integer' }, group: { type: 'keyword' }, n: { type: 'integer' } } } });
    const operations = Array.from({ length: DOCS }, (_, i) => [{ index: { _index: 'items', _id: String(i) } }, doc(i)]).flat();
    expect((await client.bulk({ operations, refresh: true })).errors).toBe(false);
    await client.index({ index: 'notes', id: 'a', document: { text: 'alpha' }, refresh: true });
    await client.index({ index: 'items', id: ROUTED_ID, routing: ROUTING, document: { n: -1, rank: 9, group: 'r', title: 'routed' }, refresh: true });
  });

  /** The error the client throws for a request that fails. */
  const failure = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (e) {
      expect(e).toBeInstanceOf(errors.ResponseError);
      const error = e as errors.ResponseError;
      return { status: error.statusCode, error: (error.body as Json).error };
    }
    throw new Error('expected the request to fail');
  };

  it('mget: items in order, as get answers them; missing documents and indices per item', async () => {
    const res = await running.client.mget({
      docs: [
        { _index: 'items', _id: '7' },
        { _index: 'notes', _id: 'a' },
        { _index: 'items', _id: 'nope' },
        { _index: 'missing', _id: '1' },
        { _index: 'items', _id: '3' },
      ],
    });
    const docs = res.docs as Json[];
    expect(docs.map((d) => d._id)).toEqual(['7', 'a', 'nope', '1', '3']);
    expect(docs[0]).toEqual(await running.client.get({ index: 'items', id: '7' }));
    expect(docs[1]._source).toEqual({ text: 'alpha' });
    expect(docs[2]).toEqual({ _index: 'items', _id: 'nope', found: false });
    expect(docs[3]).toMatchObject({ _index: 'missing', _id: '1', error: { type: 'index_not_found_exception', reason: 'no such index [missing]' } });
    expect(docs[3].found).toBeUndefined();
    expect(docs[4]._source).toEqual(doc(3));
  });

  it('mget: _source per item over the request parameters, routing, and the ids form', async () => {
    const res = await running.client.mget({
      _source_includes: ['title'],
      docs: [
        { _index: 'items', _id: '1' },
        { _index: 'items', _id: '1', _source: false },
        { _index: 'items', _id: '1', _source: ['rank', 'group'] },
        { _index: 'items', _id: '1', _source: { includes: ['*'], excludes: ['title'] } },
        { _index: 'items', _id: ROUTED_ID, routing: ROUTING },
        { _index: 'items', _id: ROUTED_ID },
      ],
    });
    const docs = res.docs as Json[];
    expect(docs.slice(0, 4).map((d) => d._source)).toEqual([{ title: 'doc 1' }, undefined, { rank: 1, group: 'g1' }, { n: 1, rank: 1, group: 'g1' }]);
    expect(docs[4]).toMatchObject({ _id: ROUTED_ID, _routing: ROUTING, found: true, _source: { title: 'routed' } });
    expect(docs[5]).toEqual({ _index: 'items', _id: ROUTED_ID, found: false });

    const byIds = await running.client.mget({ index: 'items', ids: ['5', ROUTED_ID, '6'], routing: ROUTING });
    expect((byIds.docs as Json[]).map((d) => d.found)).toEqual([shardFor('5', SHARDS) === shardFor(ROUTING, SHARDS), true, shardFor('6', SHARDS) === shardFor(ROUTING, SHARDS)]);
    const plain = await running.client.mget({ index: 'items', ids: ['5', '6'], _source: false });
    expect(plain.docs).toEqual([await running.client.get({ index: 'items', id: '5', _source: false }), await running.client.get({ index: 'items', id: '6', _source: false })]);
  });

  it('mget: refuses a request without ids, indices or documents with 400 action_request_validation_exception', async () => {
    const noId = await failure(() => running.client.mget({ docs: [{ _index: 'items' } as Json] }));
    expect(noId).toMatchObject({ status: 400, error: { type: 'action_request_validation_exception', reason: 'Validation Failed: 1: id is missing for doc 0;' } });
    const noIndex = await failure(() => running.client.mget({ ids: ['1'] }));
    expect(noIndex.error.reason).toBe('Validation Failed: 1: index is missing for doc 0;');
    const none = await failure(() => running.client.mget({ docs: [] }));
    expect(none.error.reason).toBe('Validation Failed: 1: no documents to get;');
    const unknown = await failure(() => running.client.mget({ docs: [{ _index: 'items', _id: '1', size: 1 } as Json] }));
    expect(unknown).toMatchObject({ status: 400, error: { type: 'parse_exception', reason: 'failed to parse multi get request. unknown field [size]' } });
  });

  it('msearch: each search answered as running.client.search answers it, over different indices, with size, from and sort', async () => {
    const searches: [string, Json][] = [
      ['items', { size: 7, from: 20, sort: [{ rank: 'desc' }, { group: 'asc' }] }],
      ['notes', { query: { match: { text: 'alpha' } } }],
      ['items', { size: 5, from: 115, sort: [{ n: 'asc' }] }],
      ['items,notes', { size: 3, from: 119 }],
      ['items', { size: 0, query: { range: { n: { gte: 100 } } } }],
    ];
    const res = await running.client.msearch({ searches: searches.flatMap(([index, body]) => [{ index }, body]) });
    expect(res.responses).toHaveLength(searches.length);
    for (const [i, [index, body]] of searches.entries()) {
      const { took: _took, ...alone } = await running.client.search({ index, ...body });
      const { took: _itemTook, status, ...item } = res.responses[i] as Json;
      expect(status).toBe(200);
      expect(item).toEqual(alone);
    }
    // Rank 9 (the routed document), then 24 of rank 4: places 20 to 26 hold five of rank 4 and two of rank 3.
    expect((res.responses[0] as Json).hits.hits.map((h: Json) => h.sort[0])).toEqual([4, 4, 4, 4, 4, 3, 3]);
  });

  it('msearch: a failing item beside good ones answers its own status; the request answers 200', async () => {
    const res = await running.client.msearch({
      searches: [
        { index: 'items' }, { size: 1, sort: [{ n: 'asc' }] },
        { index: 'nope' }, { query: { match_all: {} } },
        { index: 'items' }, { sort: [{ no_such_field: 'asc' }] },
        { index: 'items' }, { query: { range: { n: { gte: 'not a number' } } } },
        { index: 'notes' }, {},
      ],
    });
    const items = res.responses as Json[];
    expect(items.map((r) => r.status)).toEqual([200, 404, 400, 400, 200]);
    expect(items[0].hits.hits[0]._id).toBe(ROUTED_ID);
    expect(items[1].error).toMatchObject({ type: 'index_not_found_exception', reason: 'no such index [nope]' });
    expect(items[2].error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: 'No mapping found for [no_such_field] in order to sort on' });
    expect(items[3].error.root_cause[0].type).toBe('query_shard_exception');
    expect(items[4].hits.total).toEqual({ value: 1, relation: 'eq' });
  });

  it('msearch: rest_total_hits_as_int, routing and the path index for every item', async () => {
    const res = await running.client.msearch({ index: 'items', rest_total_hits_as_int: true, searches: [{}, { size: 0 }, { index: 'notes' }, {}, { routing: ROUTING }, { size: 0 }] });
    const items = res.responses as Json[];
    expect(items.map((r) => r.hits.total)).toEqual([DOCS + 1, 1, items[2].hits.total]);
    expect(items[2]._shards.total).toBe(1);
    const routedShard = Array.from({ length: DOCS }, (_, i) => i).filter((i) => shardFor(String(i), SHARDS) === shardFor(ROUTING, SHARDS)).length + 1;
    expect(items[2].hits.total).toBe(routedShard);
  });

  it('msearch: refuses a request it cannot parse or validate as a whole, and a body without its final newline', async () => {
    const malformed = await failure(() => running.client.msearch({ searches: [{}, {}, { index: 'items', size: 3 } as Json, {}] }));
    expect(malformed).toMatchObject({ status: 400, error: { type: 'illegal_argument_exception', reason: 'key [size] is not supported in the metadata section' } });
    const inaccurate = await failure(() => running.client.msearch({ rest_total_hits_as_int: true, searches: [{}, { track_total_hits: 10 }] }));
    expect(inaccurate.error.reason).toBe('[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 10');
    const none = await failure(() => running.client.msearch({ searches: [] }));
    expect(none.status).toBe(400);

    // The client always ends the body with a newline; a client that does not is refused.
    const res = await fetch(`${running.server.url}/_msearch`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.elasticsearch+x-ndjson; compatible-with=8', accept: 'application/vnd.elasticsearch+json; compatible-with=8' },
      body: '{"index":"items"}\n{"size":1}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({ type: 'illegal_argument_exception', reason: 'The msearch request must be terminated by a newline [\n]' });
    const ok = await fetch(`${running.server.url}/_msearch`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.elasticsearch+x-ndjson; compatible-with=8' },
      body: '{"index":"items"}\n{"size":1}\n',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });
});
