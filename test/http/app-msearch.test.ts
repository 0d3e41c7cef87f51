/**
 * `_msearch` through the app: NDJSON header/body pairs, each search answered as `_search` answers
 * it plus `"status": 200`, in order; failures a search meets as it runs answered per item; a request
 * ES cannot parse or validate refused whole; header keys and URI parameters as ES reads them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { expectError, expectEsHeaders, testApp, type Json, type Reply, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(async () => {
  t = testApp();
  // ES's msearch/10_basic.yml setup.
  await t.bulk('/_bulk', [
    { index: { _index: 'index_1', _id: '1' } }, { foo: 'bar' },
    { index: { _index: 'index_1', _id: '2' } }, { foo: 'baz' },
    { index: { _index: 'index_1', _id: '3' } }, { foo: 'foo' },
    { index: { _index: 'index_2', _id: '1' } }, { foo: 'foo' },
  ], '?refresh=true');
});
afterEach(() => t.close());

const NDJSON = 'application/x-ndjson';
const ndjson = (lines: unknown[]) => lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
const msearch = (lines: unknown[], query = '', path = '/_msearch', contentType = NDJSON) =>
  t.json('POST', `${path}${query}`, ndjson(lines), { 'content-type': contentType });
const totals = (res: Reply) => res.body.responses.map((r: Json) => r.hits?.total ?? r.error.type);
/** A response without what differs between two runs of one search. */
const same = ({ took: _took, status: _status, ...rest }: Json) => rest;

describe('_msearch answers', () => {
  it('runs each search in order, as ES msearch/10_basic.yml "Basic multi-search" expects', async () => {
    const res = await msearch([
      { index: 'index_*' }, { query: { match: { foo: 'foo' } } },
      { index: 'index_2' }, { query: { match_all: {} } },
      { index: 'index_1' }, { query: { match: { foo: 'foo' } } },
      { index: 'index_3' }, { query: { match_all: {} } },
      {}, { query: { match_all: {} } },
    ], '?rest_total_hits_as_int=true');
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(Object.keys(res.body)).toEqual(['took', 'responses']);
    expect(res.body.took).toEqual(expect.any(Number));
    expect(totals(res)).toEqual([2, 1, 1, 'index_not_found_exception', 4]);
    const missing = res.body.responses[3];
    expect(missing).toEqual({ error: expect.any(Object), status: 404 });
    expect(missing.error.root_cause[0]).toMatchObject({ type: 'index_not_found_exception', reason: 'no such index [index_3]', index: 'index_3' });
    for (const i of [0, 1, 2, 4]) {
      expect(res.body.responses[i].status).toBe(200);
      expect(Object.keys(res.body.responses[i]).at(-1)).toBe('status');
    }
  });

  it('counts totals in the new format unless asked otherwise, and track_total_hits per item', async () => {
    const res = await msearch([
      { index: 'index_*' }, { query: { match: { foo: 'foo' } }, track_total_hits: 1 },
      { index: 'index_2' }, { query: { match_all: {} } },
    ]);
    expect(totals(res)).toEqual([{ value: 1, relation: 'gte' }, { value: 1, relation: 'eq' }]);
    const refused = await msearch([{ index: 'index_*' }, { query: { match_all: {} }, track_total_hits: 10 }], '?rest_total_hits_as_int=true');
    expectError(refused, 400, 'illegal_argument_exception', '[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 10');
  });

  it('answers each item exactly as _search answers the same search: size, from, sort, _source, over different indices', async () => {
    const SHARDS = 3;
    await t.createIndex('nums', { number_of_shards: SHARDS }, { properties: { n: { type: 'integer' }, tag: { type: 'keyword' } } });
    await t.bulk('/nums/_bulk', Array.from({ length: 60 }, (_, i) => [{ index: { _id: `n${i}` } }, { n: i % 7, tag: `t${i % 4}` }]).flat(), '?refresh=true');
    const searches: [string, Json][] = [
      ['nums', { size: 5, from: 10, sort: [{ n: 'desc' }, { tag: 'asc' }] }],
      ['index_1', { query: { match: { foo: 'foo' } } }],
      ['nums', { size: 0 }],
      ['nums', { from: 55, sort: ['tag', { n: { order: 'asc' } }], _source: ['n'] }],
      ['nums,index_2', { size: 3, from: 58 }],
      ['nums', { size: 4, sort: [{ n: 'asc' }], search_after: [2] }],
    ];
    const res = await msearch(searches.flatMap(([index, body]) => [{ index }, body]));
    expect(res.body.responses).toHaveLength(searches.length);
    for (const [i, [index, body]] of searches.entries()) {
      const alone = await t.json('POST', `/${index}/_search`, body);
      expect(res.body.responses[i].status, JSON.stringify(res.body.responses[i])).toBe(alone.status);
      expect(same(res.body.responses[i])).toEqual(same(alone.body));
    }
    expect(res.body.responses[0].hits.hits.map((h: Json) => h._id)).toHaveLength(5);
  });

  it('writes each hit _source as stored, and honours filter_path and pretty over the whole answer', async () => {
    const text = '{"foo": "qux", "n": 1.0}';
    await t.json('PUT', '/raw/_doc/1?refresh=true', text);
    const res = await msearch([{ index: 'raw' }, {}, { index: 'index_2' }, {}]);
    expect(res.text).toContain(`"_source":${text}`);
    const filtered = await msearch([{ index: 'raw' }, {}, { index: 'nope' }, {}], '?filter_path=responses.hits.hits._id,responses.status');
    expect(filtered.body).toEqual({ responses: [{ hits: { hits: [{ _id: '1' }] }, status: 200 }, { status: 404 }] });
    const pretty = await msearch([{ index: 'raw' }, {}], '?pretty');
    expect(pretty.text.startsWith('{\n  "took": ')).toBe(true);
    expect(pretty.body.responses[0].hits.hits[0]._source).toEqual({ foo: 'qux', n: 1 });
  });

  it('runs many searches in order, each in a turn of its own, so other requests are answered in between', async () => {
    const count = 300;
    let done = false;
    const many = msearch(Array.from({ length: count }, (_, i) => [{ index: i % 2 ? 'index_1' : 'index_2' }, { size: 0 }]).flat()).then((res) => {
      done = true;
      return res;
    });
    // Wait until the msearch has started running its searches.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await t.json('GET', '/index_1/_count');
    expect(other.body.count).toBe(3);
    expect(done).toBe(false);
    const res = await many;
    expect(res.body.responses.map((r: Json) => r.hits.total.value)).toEqual(Array.from({ length: count }, (_, i) => (i % 2 ? 3 : 1)));
  });
});

describe('_msearch: one failing item among others', () => {
  it('answers failures a search meets as it runs in its item, with the status _search would answer, and 200 overall', async () => {
    const bad: Json[] = [
      [{ index: 'nope' }, {}],
      [{ index: 'index_1' }, { from: 10_000 }],
      [{ index: 'index_1' }, { sort: ['missing_field'] }],
      [{ index: 'index_1', preference: '_foo' }, {}],
    ];
    const good = [{ index: 'index_1' }, { query: { match: { foo: 'foo' } } }];
    const res = await msearch([...good, ...bad.flat(), ...good]);
    expect(res.status).toBe(200);
    const [first, ...rest] = res.body.responses;
    const last = rest.pop();
    expect(first.hits.total.value).toBe(1);
    expect(last.hits.total.value).toBe(1);
    const expected = [
      [404, 'index_not_found_exception', 'index_not_found_exception'],
      [400, 'search_phase_execution_exception', 'illegal_argument_exception'],
      [400, 'search_phase_execution_exception', 'query_shard_exception'],
      [400, 'illegal_argument_exception', 'illegal_argument_exception'],
    ];
    expect(rest.map((r: Json) => [r.status, r.error.type, r.error.root_cause[0].type])).toEqual(expected);
    expect(rest[3].error.reason).toBe('no Preference for [_foo]');
    for (const [i, [header, body]] of bad.entries()) {
      const alone = await t.json('POST', `/${header.index}/_search${header.preference ? `?preference=${header.preference}` : ''}`, body);
      expect(rest[i]).toEqual(alone.body);
    }
  });

  it('answers a query that fails on every shard (a value its field cannot read) in its item', async () => {
    await t.createIndex('years', {}, { properties: { year: { type: 'integer' } } });
    await t.json('PUT', '/years/_doc/1?refresh=true', { year: 1999 });
    const body = { query: { range: { year: { gte: 'not a year' } } } };
    const res = await msearch([{ index: 'years' }, body, { index: 'index_2' }, {}]);
    const alone = await t.json('POST', '/years/_search', body);
    expect(alone.status).toBe(400);
    expect(res.status).toBe(200);
    expect(res.body.responses[0]).toEqual(alone.body);
    expect(res.body.responses[0].error.root_cause[0].type).toBe('query_shard_exception');
    expect(res.body.responses[1].status).toBe(200);
  });
});

describe('_msearch: the request, refused whole as ES refuses it', () => {
  it('refuses a body that does not end with a newline', async () => {
    const res = await t.json('POST', '/_msearch', '{}\n{"query":{"match_all":{}}}', { 'content-type': NDJSON });
    // A line feed between the brackets, as ES's MultiSearchRequest writes it (its bulk parser writes `\n`).
    expectError(res, 400, 'illegal_argument_exception', 'The msearch request must be terminated by a newline [\n]');
  });

  it('refuses a search body _search would refuse, though other items are good', async () => {
    const good = [{}, { query: { match_all: {} } }];
    const cases: [Json, string, string][] = [
      [{ query: { no_such_query: {} } }, 'parsing_exception', ''],
      [{ size: -1 }, 'illegal_argument_exception', '[size] parameter cannot be negative, found [-1]'],
      [{ unknown_key: 1 }, 'parsing_exception', ''],
      [[], 'parsing_exception', 'Expected [START_OBJECT] but found [START_ARRAY]'],
    ];
    for (const [body, type, reason] of cases) {
      const res = await msearch([...good, {}, body, ...good]);
      const alone = await t.json('POST', '/_search', body);
      expectError(res, 400, type, reason || undefined);
      expect(res.body).toEqual(alone.body);
    }
  });

  it('refuses searches that fail validation, reporting them after every item is parsed', async () => {
    const invalid = { sort: ['_shard_doc'] };
    const reason = 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];';
    expectError(await msearch([{}, {}, {}, invalid]), 400, 'action_request_validation_exception', reason);
    expect((await msearch([{}, {}, {}, invalid])).body).toEqual((await t.json('POST', '/_search', invalid)).body);
    // A later item's malformed body is found first, as ES parses the whole request before validating it.
    expectError(await msearch([{}, invalid, {}, { size: 'x' }]), 400, 'x_content_parse_exception', '[size] failed to parse field value [x]');
    const pit = await t.json('POST', '/index_1/_pit?keep_alive=1m');
    expectError(await msearch([{ routing: 'r' }, { pit: { id: pit.body.id } }]), 400, 'action_request_validation_exception',
      'Validation Failed: 1: [routing] cannot be used with point in time. Do not specify any routing with point in time.;');
  });

  it('refuses malformed header lines and keys ES does not take in them', async () => {
    expectError(await msearch([{ index: 'index_1', size: 10 }, {}]), 400, 'illegal_argument_exception', 'key [size] is not supported in the metadata section');
    expectError(await msearch([{ type: '_doc' }, {}]), 400, 'illegal_argument_exception', 'key [type] is not supported in the metadata section');
    expectError(await msearch([[], {}]), 400, 'x_content_parse_exception', '[1:1] Failed to parse object: expecting token of type [START_OBJECT] but found [START_ARRAY]');
    // At the header's first token, after any blanks before it on its line, as ES's parser counts columns.
    expectError(await msearch(['{}', '{}', '  "x"', '{}']), 400, 'x_content_parse_exception', '[1:3] Failed to parse object: expecting token of type [START_OBJECT] but found [VALUE_STRING]');
    expectError(await msearch(['{"index": ', '{}']), 400, 'x_content_parse_exception');
  });

  it('refuses a request with no searches, or no body', async () => {
    expectError(await msearch([{}]), 400, 'action_request_validation_exception', 'Validation Failed: 1: no requests added;');
    expectError(await t.json('POST', '/_msearch'), 400, 'parse_exception', 'request body or source parameter is required');
    // A last header without a body is dropped, as ES drops it.
    expect((await msearch([{}, {}, { index: 'index_1' }])).body.responses).toHaveLength(1);
  });

  it('reads the body as NDJSON or JSON, in the media types _bulk takes', async () => {
    const lines = [{ index: 'index_2' }, {}];
    for (const type of [NDJSON, 'application/vnd.elasticsearch+x-ndjson; compatible-with=8', 'application/json', 'application/vnd.elasticsearch+json;compatible-with=8']) {
      expect((await msearch(lines, '', '/_msearch', type)).body.responses[0].hits.total.value, type).toBe(1);
    }
    expectError(await msearch(lines, '', '/_msearch', 'application/xml'), 406, 'media_type_header_exception');
    expectError(await msearch(lines, '', '/_msearch', 'application/vnd.elasticsearch+x-ndjson; compatible-with=6'), 400, 'media_type_header_exception');
    const viaSource = await t.json('GET', `/_msearch?source=${encodeURIComponent(ndjson(lines))}&source_content_type=${encodeURIComponent(NDJSON)}`);
    expect(viaSource.body.responses[0].hits.total.value).toBe(1);
  });
});

describe('_msearch: header keys', () => {
  it('takes the path index by default, and a header index, indices list or comma string over it', async () => {
    const res = await msearch([
      {}, {},
      { index: 'index_2' }, {},
      { indices: ['index_1', 'index_2'] }, {},
      { index: 'index_1,index_2' }, {},
      { index: '' }, {},
    ], '', '/index_1/_msearch');
    expect(totals(res).map((t: Json) => t.value)).toEqual([3, 1, 4, 4, 4]);
  });

  it('routes each search by its header routing over the URI routing (ES msearch/40_routing.yml)', async () => {
    const SHARDS = 4;
    await t.createIndex('routed', { number_of_shards: SHARDS });
    const routing = 'r1';
    const elsewhere = Array.from({ length: 50 }, (_, i) => `x${i}`).find((r) => shardFor(r, SHARDS) !== shardFor(routing, SHARDS))!;
    await t.json('PUT', `/routed/_doc/1?routing=${routing}&refresh=true`, { foo: 'bar' });
    const res = await msearch([{}, { query: { match_all: {} } }, { routing: elsewhere }, {}, { routing: null }, {}], `?routing=${routing}&rest_total_hits_as_int=true`, '/routed/_msearch');
    expect(totals(res)).toEqual([1, 0, 1]);
    expect(res.body.responses[0]._shards.total).toBe(1);
    expect(res.body.responses[2]._shards.total).toBe(SHARDS);
  });

  it('reads preference, search_type, request_cache, allow_partial_search_results and ccs_minimize_roundtrips as ES does', async () => {
    const res = await msearch([
      { index: 'index_1', preference: '_shards:0' }, {},
      { index: 'index_1', search_type: 'query_then_fetch', request_cache: true, ccs_minimize_roundtrips: 'false', allow_partial_search_results: false }, {},
      { index: 'index_1', searchType: 'query_then_fetch', requestCache: 'false', ccsMinimizeRoundtrips: true, preference: '_local' }, {},
    ]);
    expect(res.body.responses.map((r: Json) => r.status)).toEqual([200, 200, 200]);
    expect(res.body.responses[0]._shards.total).toBe(1);
    const refusals: [Json, string, string, string?][] = [
      [{ search_type: 'nope' }, 'illegal_argument_exception', 'No search type for [nope]'],
      [{ search_type: 'dfs_query_then_fetch' }, 'illegal_argument_exception', '[search_type] [dfs_query_then_fetch] is not supported by deeppage yet'],
      [{ request_cache: 'maybe' }, 'illegal_argument_exception', 'Could not convert [request_cache] to boolean', 'Failed to parse value [maybe] as only [true] or [false] are allowed.'],
      [{ requestCache: 1 }, 'illegal_argument_exception', 'Could not convert [requestCache] to boolean', 'Failed to parse value [1] as only [true] or [false] are allowed.'],
      [{ allow_partial_search_results: 'yes' }, 'illegal_argument_exception', 'Could not convert [null] to boolean', 'Failed to parse value [yes] as only [true] or [false] are allowed.'],
      [{ ccs_minimize_roundtrips: 'no' }, 'illegal_argument_exception', 'Failed to parse value [no] as only [true] or [false] are allowed.'],
    ];
    for (const [header, type, reason, cause] of refusals) {
      const refused = await msearch([{}, {}, header, {}]);
      expectError(refused, 400, type, reason);
      if (cause) expect(refused.body.error.caused_by.reason).toBe(cause);
    }
  });

  it('reads the indices options of a header over those of the URI', async () => {
    const res = await msearch([
      { index: 'index_1,nope', ignore_unavailable: true }, {},
      { index: 'index_1,nope' }, {},
      { index: 'nothing*', allow_no_indices: false }, {},
      { index: 'nothing*' }, {},
      { index: 'index_*', expand_wildcards: 'none' }, {},
      { index: 'index_*', expandWildcards: ['open'] }, {},
      { index: 'index_1,nope', ignore_unavailable: '' }, {},
      { index: 'index_1', ignore_throttled: false }, {},
    ], '?ignore_unavailable=true');
    expect(res.body.responses.map((r: Json) => r.hits?.total.value ?? r.error.type)).toEqual([3, 3, 'index_not_found_exception', 0, 0, 4, 3, 3]);
    const strict = await msearch([{ index: 'index_1,nope' }, {}, { index: 'index_1,nope', ignoreUnavailable: 'true' }, {}]);
    expect(strict.body.responses.map((r: Json) => r.status)).toEqual([404, 200]);
    expectError(await msearch([{ ignore_unavailable: 'maybe' }, {}]), 400, 'illegal_argument_exception', 'Could not convert [ignore_unavailable] to boolean');
    expectError(await msearch([{ expand_wildcards: 'sideways' }, {}]), 400, 'illegal_argument_exception', 'No valid expand wildcard value [sideways]');
    expectError(await msearch([{ ignore_throttled: 'maybe' }, {}]), 400, 'illegal_argument_exception', 'Could not convert [ignore_throttled] to boolean');
  });

  it('searches a point in time given in a body, and refuses one beside an index, as _search does', async () => {
    const pit = await t.json('POST', '/index_1/_pit?keep_alive=1m');
    expect(pit.status).toBe(200);
    await t.json('PUT', '/index_1/_doc/4?refresh=true', { foo: 'foo' });
    const res = await msearch([{}, { pit: { id: pit.body.id }, query: { match: { foo: 'foo' } } }, { index: 'index_1' }, { query: { match: { foo: 'foo' } } }]);
    expect(totals(res)).toEqual([{ value: 1, relation: 'eq' }, { value: 2, relation: 'eq' }]);
    expectError(await msearch([{ index: 'index_1' }, { pit: { id: pit.body.id } }]), 400, 'action_request_validation_exception',
      'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;');
  });
});

describe('_msearch URI parameters', () => {
  it('takes those ES msearch takes (ES "Least impact smoke test"), for every item', async () => {
    const lines = [{ index: 'index_*' }, { query: { match: { foo: 'foo' } } }, { index: 'index_3' }, {}, {}, {}];
    const query = '?rest_total_hits_as_int=true&max_concurrent_shard_requests=1&max_concurrent_searches=1&typed_keys=true&pre_filter_shard_size=1'
      + '&ccs_minimize_roundtrips=false&search_type=query_then_fetch&expand_wildcards=open&allow_no_indices=true&ignore_unavailable=false';
    const res = await msearch(lines, query);
    expect(totals(res)).toEqual([2, 'index_not_found_exception', 4]);
  });

  it('refuses values ES refuses, and parameters msearch does not take', async () => {
    const lines = [{}, {}];
    const refusals: [string, string, string][] = [
      ['max_concurrent_searches=0', 'illegal_argument_exception', 'maxConcurrentSearchRequests must be positive'],
      ['max_concurrent_searches=x', 'illegal_argument_exception', 'Failed to parse int parameter [max_concurrent_searches] with value [x]'],
      ['max_concurrent_shard_requests=0', 'illegal_argument_exception', 'maxConcurrentShardRequests must be >= 1'],
      ['pre_filter_shard_size=0', 'illegal_argument_exception', 'preFilterShardSize must be >= 1'],
      ['rest_total_hits_as_int=maybe', 'illegal_argument_exception', 'Failed to parse value [maybe] as only [true] or [false] are allowed.'],
      ['typed_keys=maybe', 'illegal_argument_exception', 'Failed to parse value [maybe] as only [true] or [false] are allowed.'],
      ['search_type=dfs_query_and_fetch', 'illegal_argument_exception', 'Unsupported search type [dfs_query_and_fetch]'],
      ['expand_wildcards=sideways', 'illegal_argument_exception', 'No valid expand wildcard value [sideways]'],
      ['size=1', 'illegal_argument_exception', 'request [/_msearch] contains unrecognized parameter: [size]'],
      ['preference=_local', 'illegal_argument_exception', 'request [/_msearch] contains unrecognized parameter: [preference]'],
    ];
    for (const [query, type, reason] of refusals) expectError(await msearch(lines, `?${query}`), 400, type, reason);
  });
});
