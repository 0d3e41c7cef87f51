/**
 * Nothing accepted silently: every parameter, setting and mapping parameter either takes effect as
 * in Elasticsearch or gets its error. Through the app, as a client sends them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { expectError, expectShardFailure, ids, testApp, type Json, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

const uuidOf = (name: string) => t.engine.resolve(name)[0].uuid;
const notSupported = (what: string) => `${what} is not supported by deeppage yet`;
const hitsOf = (res: { body: Json }): Json[] => res.body.hits.hits;

/** Three documents in three shards, one updated (version 2), one with a custom routing. */
async function books(): Promise<void> {
  await t.createIndex('books', { number_of_shards: 3 }, {
    properties: { title: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, at: { type: 'date' }, ok: { type: 'boolean' }, price: { type: 'float' } },
  });
  const lines = [
    { index: { _id: '1' } }, { title: 'Dune', tag: ['sf', 'classic', 'sf'], n: [3, 1, 3], at: '2015-01-01T12:10:30Z', ok: true, price: 1.1 },
    { index: { _id: '2', routing: 'r' } }, { title: 'Emma', tag: 'novel', n: 7, ok: [true, false] },
    { index: { _id: '3' } }, { title: 'Ubik' },
    { index: { _id: '1' } }, { title: 'Dune', tag: ['sf', 'classic', 'sf'], n: [3, 1, 3], at: '2015-01-01T12:10:30Z', ok: true, price: 1.1 },
  ];
  expect((await t.bulk('/books/_bulk', lines, '?refresh=true')).body.errors).toBe(false);
}

const byId = (res: { body: Json }) => Object.fromEntries(hitsOf(res).map((hit) => [hit._id, hit]));

describe('search: what each hit carries', () => {
  beforeEach(books);

  it('version and seq_no_primary_term add _version, _seq_no and _primary_term, in ES order, from the body or the URI', async () => {
    const res = await t.json('POST', '/books/_search', { version: true, seq_no_primary_term: true, sort: ['_doc'] });
    const dune = byId(res)['1'];
    const got = (await t.json('GET', '/books/_doc/1')).body;
    expect(dune).toMatchObject({ _version: 2, _seq_no: got._seq_no, _primary_term: 1 });
    expect(Object.keys(dune)).toEqual(['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_source', 'sort']);
    expect(Object.keys(byId(res)['2'])).toEqual(['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_routing', '_source', 'sort']);
    // The same hits through the generic writer (filter_path), and from the URI.
    const filtered = await t.json('GET', '/books/_search?version=true&seq_no_primary_term=true&filter_path=hits.hits');
    expect(Object.keys(hitsOf(filtered)[0])).toEqual(['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_source']);
    expect(hitsOf(await t.json('POST', '/books/_search?version=false', { version: true })).every((hit) => hit._version === undefined)).toBe(true);
    expectError(await t.json('GET', '/books/_search?version=yes'), 400, 'illegal_argument_exception', 'Failed to parse value [yes] as only [true] or [false] are allowed.');
    expectError(await t.json('POST', '/books/_search', { version: 1 }), 400, 'x_content_parse_exception', '[version] failed to parse field value');
  });

  it('docvalue_fields lists doc values under fields: sorted, keywords once, numbers with duplicates, dates formatted', async () => {
    const res = await t.json('POST', '/books/_search', {
      docvalue_fields: ['tag', 'n', 'at', 'ok', 'price', { field: 'at', format: 'epoch_millis' }, 'title.nope', 'nope'],
      _source: false,
    });
    const hits = byId(res);
    expect(hits['1']).toEqual({
      _index: 'books', _id: '1', _score: 1,
      fields: { tag: ['classic', 'sf'], n: [1, 3, 3], at: ['1420114230000'], ok: [true], price: [Math.fround(1.1)] },
    });
    expect(hits['2'].fields).toEqual({ tag: ['novel'], n: [7], ok: [false, true] });
    expect(hits['3'].fields).toBeUndefined();
    const iso = await t.json('GET', '/books/_search?docvalue_fields=at,n*&_source=false&q=title:dune');
    expect(hitsOf(iso)[0].fields).toEqual({ at: ['2015-01-01T12:10:30.000Z'], n: [1, 3, 3] });
    expect(Object.keys(hitsOf(iso)[0])).toEqual(['_index', '_id', '_score', 'fields']);
  });

  it('docvalue_fields refuses text fields, formats a type has not, and more fields than the index allows, in ES words', async () => {
    expectShardFailure(await t.json('POST', '/books/_search', { docvalue_fields: ['title'] }), 'illegal_argument_exception', /^Fielddata is disabled on \[title\] in \[books\]\. Text fields are not optimised/);
    expectShardFailure(await t.json('POST', '/books/_search', { docvalue_fields: ['*'] }), 'illegal_argument_exception', /^Fielddata is disabled on \[title\]/);
    expectShardFailure(await t.json('POST', '/books/_search', { docvalue_fields: [{ field: 'tag', format: 'x' }] }), 'illegal_argument_exception', 'Field [tag] of type [keyword] does not support custom formats');
    expectShardFailure(await t.json('POST', '/books/_search', { docvalue_fields: ['_id'] }), 'illegal_argument_exception', /^Fielddata access on the _id field is disallowed/);
    expect((await t.json('PUT', '/books/_settings', { index: { max_docvalue_fields_search: 1 } })).status).toBe(200);
    expectShardFailure(
      await t.json('POST', '/books/_search', { docvalue_fields: ['n', 'tag'] }),
      'illegal_argument_exception',
      'Trying to retrieve too many docvalue_fields. Must be less than or equal to: [1] but was [2]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.',
    );
    expectError(await t.json('POST', '/books/_search', { docvalue_fields: 'n' }), 400, 'parsing_exception', 'Unknown key for a VALUE_STRING in [docvalue_fields].');
    expectError(await t.json('POST', '/books/_search', { docvalue_fields: [{ field: 'n', foo: 1 }] }), 400, 'x_content_parse_exception', '[fetch_field_and_format] unknown field [foo]');
  });

  it('stored_fields leaves _source out unless asked for; _none_ leaves out _id and _routing too', async () => {
    const listed = hitsOf(await t.json('POST', '/books/_search', { stored_fields: ['title'], sort: ['_doc'] }));
    expect(listed.map((hit) => Object.keys(hit))).toContainEqual(['_index', '_id', '_score', '_routing', 'sort']);
    expect(listed.every((hit) => hit._source === undefined && hit._id !== undefined)).toBe(true);
    expect(hitsOf(await t.json('POST', '/books/_search', { stored_fields: ['_source'] })).every((hit) => hit._source !== undefined)).toBe(true);
    expect(hitsOf(await t.json('GET', '/books/_search?stored_fields=title&_source=title')).every((hit) => Object.keys(hit._source).join() === 'title')).toBe(true);
    const none = await t.json('GET', '/books/_search?stored_fields=_none_&version=true&docvalue_fields=tag&sort=_doc');
    expect(hitsOf(none).map((hit) => Object.keys(hit))).toContainEqual(['_index', '_version', '_score', 'fields', 'sort']);
    expect(hitsOf(none).every((hit) => hit._id === undefined && hit._routing === undefined && hit._source === undefined)).toBe(true);
    expectShardFailure(await t.json('POST', '/books/_search', { stored_fields: '_none_', _source: true }), 'search_exception', '[stored_fields] cannot be disabled if [_source] is requested');
    expectError(await t.json('GET', '/books/_search?stored_fields=_none_,title'), 400, 'illegal_argument_exception', 'cannot combine _none_ with other fields');
    expectError(await t.json('POST', '/books/_search', { stored_fields: {} }), 400, 'parsing_exception', 'Expected [VALUE_STRING] or [START_ARRAY] in [stored_fields] but found [START_OBJECT]');
  });

  it('refuses explain and profile, checks timeout, and takes the parameters that change nothing on one node only with valid values', async () => {
    expectError(await t.json('POST', '/books/_search', { explain: true }), 400, 'illegal_argument_exception', notSupported('[explain]'));
    expectError(await t.json('GET', '/books/_search?explain=true'), 400, 'illegal_argument_exception', notSupported('[explain]'));
    expectError(await t.json('POST', '/books/_search', { profile: true }), 400, 'illegal_argument_exception', notSupported('[profile]'));
    expect((await t.json('POST', '/books/_search', { explain: false, profile: false, timeout: '10s' })).status).toBe(200);
    const ok = await t.json('GET', '/books/_search?timeout=1s&request_cache=false&typed_keys=true&search_type=query_then_fetch&batched_reduce_size=2&pre_filter_shard_size=1&max_concurrent_shard_requests=3');
    expect(ok.status).toBe(200);
    expect(ok.body.timed_out).toBe(false);
    expectError(await t.json('POST', '/books/_search', { timeout: '1x' }), 400, 'parse_exception', 'failed to parse setting [timeout] with value [1x] as a time value: unit is missing or unrecognized');
    expectError(await t.json('GET', '/books/_search?request_cache=maybe'), 400, 'illegal_argument_exception', 'Failed to parse value [maybe] as only [true] or [false] are allowed.');
    expectError(await t.json('GET', '/books/_search?search_type=dfs_query_then_fetch'), 400, 'illegal_argument_exception', notSupported('[search_type] [dfs_query_then_fetch]'));
    expectError(await t.json('GET', '/books/_search?search_type=foo'), 400, 'illegal_argument_exception', 'No search type for [foo]');
    expectError(await t.json('GET', '/books/_search?batched_reduce_size=1'), 400, 'illegal_argument_exception', 'batchedReduceSize must be >= 2');
    expectError(await t.json('GET', '/books/_search?max_concurrent_shard_requests=0'), 400, 'illegal_argument_exception', 'maxConcurrentShardRequests must be >= 1');
  });
});

describe('search: which indices and shards', () => {
  beforeEach(async () => {
    await books();
    await t.createIndex('.hidden');
    await t.json('PUT', '/.hidden/_doc/h?refresh=true', { n: 1 });
  });

  it('ignore_unavailable skips missing names; allow_no_indices=false refuses an empty match', async () => {
    expectError(await t.json('GET', '/books,nope/_search'), 404, 'index_not_found_exception', 'no such index [nope]');
    const skipped = await t.json('GET', '/books,nope/_search?ignore_unavailable=true');
    expect(skipped.body._shards.total).toBe(3);
    expect(skipped.body.hits.total.value).toBe(3);
    expect((await t.json('GET', '/nope*/_search')).body._shards.total).toBe(0);
    expectError(await t.json('GET', '/nope*/_search?allow_no_indices=false'), 404, 'index_not_found_exception', 'no such index [nope*]');
    expectError(await t.json('GET', '/nope/_count?ignore_unavailable=true&allow_no_indices=false'), 404, 'index_not_found_exception', 'no such index [nope]');
    const bad = await t.json('GET', '/books/_search?ignore_unavailable=maybe');
    expectError(bad, 400, 'illegal_argument_exception', 'Could not convert [ignore_unavailable] to boolean');
    expect(bad.body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'Failed to parse value [maybe] as only [true] or [false] are allowed.' });
  });

  it('expand_wildcards says what wildcards and _all reach: open indices, hidden (dot) ones, or none', async () => {
    const total = async (path: string) => (await t.json('GET', path)).body.hits.total.value;
    expect(await total('/_search')).toBe(3);
    expect(await total('/*/_search?expand_wildcards=open,hidden')).toBe(4);
    expect(await total('/_all/_search?expand_wildcards=all')).toBe(4);
    expect(await total('/*/_search?expand_wildcards=none')).toBe(0);
    expect(await total('/books/_search?expand_wildcards=none')).toBe(3);
    expect(await total('/.hid*/_search')).toBe(1);
    expectError(await t.json('GET', '/_search?expand_wildcards=foo'), 400, 'illegal_argument_exception', 'No valid expand wildcard value [foo]');
  });

  it('preference=_shards:… searches only those shards; other preferences pick among copies, of which there is one', async () => {
    const shards = ['1', '2', '3'].map((id) => shardFor(id === '2' ? 'r' : id, 3));
    const only = await t.json('GET', `/books/_search?preference=_shards:${shards[0]}|_local`);
    expect(only.body._shards.total).toBe(1);
    expect(ids(only).sort()).toEqual(['1', '2', '3'].filter((_, i) => shards[i] === shards[0]));
    expect((await t.json('GET', `/books/_count?preference=_shards:${shards[0]}`)).body.count).toBe(ids(only).length);
    expect((await t.json('GET', '/books/_search?preference=_local')).body._shards.total).toBe(3);
    expect((await t.json('GET', '/books/_search?preference=my-session')).body._shards.total).toBe(3);
    expectError(await t.json('GET', '/books/_search?preference=_foo'), 400, 'illegal_argument_exception', 'no Preference for [_foo]');
  });

  it('allow_partial_search_results=false fails the search when some shards fail', async () => {
    await t.createIndex('small', { max_result_window: 5 });
    const partial = await t.json('GET', '/books,small/_search?from=6');
    expect(partial.status).toBe(200);
    expect(partial.body._shards).toMatchObject({ total: 4, successful: 3, failed: 1 });
    const strict = await t.json('GET', '/books,small/_search?from=6&allow_partial_search_results=false');
    expectError(strict, 400, 'search_phase_execution_exception', 'Partial shards failure');
    expect(strict.body.error.root_cause[0].reason).toMatch(/^Result window is too large/);
  });
});

describe('GET /{index}/_doc/{id}', () => {
  beforeEach(() => t.createIndex('slow', { refresh_interval: -1 }));

  it('realtime=false reads what the last refresh made visible; refresh=true refreshes the shard first', async () => {
    await t.json('PUT', '/slow/_doc/1', { v: 1 });
    expect((await t.json('GET', '/slow/_doc/1')).body).toMatchObject({ found: true, _version: 1 });
    expect((await t.json('GET', '/slow/_doc/1?realtime=false')).body).toEqual({ _index: 'slow', _id: '1', found: false });
    await t.json('POST', '/slow/_refresh');
    await t.json('PUT', '/slow/_doc/1', { v: 2 });
    expect((await t.json('GET', '/slow/_doc/1?realtime=false')).body).toMatchObject({ found: true, _version: 1, _source: { v: 1 } });
    expect((await t.json('GET', '/slow/_doc/1')).body).toMatchObject({ _version: 2, _source: { v: 2 } });
    expect((await t.json('GET', '/slow/_doc/1?realtime=false&refresh=true')).body).toMatchObject({ _version: 2, _source: { v: 2 } });
    await t.json('DELETE', '/slow/_doc/1');
    expect((await t.json('GET', '/slow/_doc/1?realtime=false')).body._version).toBe(2);
    expect((await t.json('GET', '/slow/_doc/1')).body.found).toBe(false);
  });

  it('stored_fields leaves _source out unless asked for; version, unknown and malformed parameters are refused', async () => {
    await t.json('PUT', '/slow/_doc/1', { v: 1 });
    const stored = (await t.json('GET', '/slow/_doc/1?stored_fields=v')).body;
    expect(stored).toEqual({ _index: 'slow', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, found: true });
    expect((await t.json('GET', '/slow/_doc/1?stored_fields=v&_source=true')).body._source).toEqual({ v: 1 });
    expect((await t.json('GET', '/slow/_doc/1?stored_fields=_source')).body._source).toEqual({ v: 1 });
    expect((await t.json('GET', '/slow/_doc/1?preference=_local')).status).toBe(200);
    expectError(await t.json('GET', '/slow/_doc/1?version=1'), 400, 'illegal_argument_exception', notSupported('[version] (optimistic concurrency control)'));
    expectError(await t.json('GET', '/slow/_doc/1?realtime=no'), 400, 'illegal_argument_exception', 'Failed to parse value [no] as only [true] or [false] are allowed.');
    expectError(await t.json('GET', '/slow/_doc/1?fields=v'), 400, 'illegal_argument_exception', 'request [/slow/_doc/1] contains unrecognized parameter: [fields]');
  });
});

describe('write parameters', () => {
  beforeEach(() => t.createIndex('books'));

  it('refuses what deeppage cannot honour, before anything is written', async () => {
    const put = (query: string) => t.json('PUT', `/books/_doc/1${query}`, { v: 1 });
    expectError(await put('?version=3'), 400, 'illegal_argument_exception', notSupported('[version] (optimistic concurrency control)'));
    expectError(await put('?if_seq_no=0&if_primary_term=1'), 400, 'illegal_argument_exception', notSupported('[if_seq_no] (optimistic concurrency control)'));
    expectError(await put('?pipeline=p'), 400, 'illegal_argument_exception', notSupported('[pipeline] (ingest pipelines)'));
    expectError(await put('?require_alias=true'), 400, 'illegal_argument_exception', notSupported('[require_alias=true]'));
    expectError(await put('?wait_for_active_shards=all'), 400, 'illegal_argument_exception', notSupported('[wait_for_active_shards=all] (one node holds one copy of each shard)'));
    const bad = await put('?wait_for_active_shards=abc');
    expectError(bad, 400, 'illegal_argument_exception', 'cannot parse ActiveShardCount[abc]');
    expect(bad.body.error.caused_by).toMatchObject({ type: 'number_format_exception', reason: 'For input string: "abc"' });
    expectError(await put('?timeout=soon'), 400, 'parse_exception', 'failed to parse setting [timeout] with value [soon] as a time value: unit is missing or unrecognized');
    expectError(await put('?foo=1'), 400, 'illegal_argument_exception', 'request [/books/_doc/1] contains unrecognized parameter: [foo]');
    expectError(await t.json('PUT', '/books/_create/1?op_type=index', { v: 1 }), 400, 'illegal_argument_exception', "opType must be 'create', found: [index]");
    expectError(await t.json('POST', '/books/_doc?op_type=upsert', { v: 1 }), 400, 'illegal_argument_exception', "opType must be 'create' or 'index', found: [upsert]");
    expect(t.engine.resolve('books')[0].docCount).toBe(0);
    expect((await put('?timeout=1m&wait_for_active_shards=1&pipeline=_none&require_alias=false')).status).toBe(201);
  });

  it('DELETE and _bulk check their parameters too, and a bulk update that must not detect noops is refused', async () => {
    await t.json('PUT', '/books/_doc/1?refresh=true', { v: 1 });
    expectError(await t.json('DELETE', '/books/_doc/1?foo=1'), 400, 'illegal_argument_exception', 'request [/books/_doc/1] contains unrecognized parameter: [foo]');
    expectError(await t.json('DELETE', '/books/_doc/1?if_seq_no=0'), 400, 'illegal_argument_exception', notSupported('[if_seq_no] (optimistic concurrency control)'));
    expect((await t.json('GET', '/books/_doc/1')).body.found).toBe(true);
    const lines = [{ update: { _id: '1' } }, { doc: { v: 1 }, detect_noop: false }];
    expectError(await t.bulk('/books/_bulk', lines), 400, 'illegal_argument_exception', notSupported('[detect_noop=false] in a bulk update'));
    expect((await t.bulk('/books/_bulk', [{ update: { _id: '1' } }, { doc: { v: 1 }, detect_noop: true }])).body.items[0].update.result).toBe('noop');
    expectError(await t.bulk('/books/_bulk', lines, '?batch_size=1'), 400, 'illegal_argument_exception', 'request [/books/_bulk] contains unrecognized parameter: [batch_size]');
    expectError(await t.bulk('/books/_bulk', lines, '?_source=true'), 400, 'illegal_argument_exception', notSupported('[_source] on _bulk (the updated source in update results)'));
  });
});

describe('index settings', () => {
  it('refuses settings an open index cannot change, naming every key and index, in ES words', async () => {
    await t.createIndex('a');
    await t.createIndex('b');
    expectError(await t.json('PUT', '/a/_settings', { index: { codec: 'best_compression' } }), 400, 'illegal_argument_exception', `Can't update non dynamic settings [[index.codec]] for open indices [[a/${uuidOf('a')}]]`);
    expectError(
      await t.json('PUT', '/a,b/_settings', { 'index.number_of_shards': 2, refresh_interval: '5s', 'index.analysis.analyzer.x.type': 'standard' }),
      400,
      'illegal_argument_exception',
      `Can't update non dynamic settings [[index.number_of_shards, index.analysis.analyzer.x.type]] for open indices [[a/${uuidOf('a')}], [b/${uuidOf('b')}]]`,
    );
    expectError(await t.json('PUT', '/a/_settings', { 'index.foo': 1, 'index.codec': 'x' }), 400, 'illegal_argument_exception', /^unknown setting \[index\.foo\] please check/);
    expect((await t.json('GET', '/a/_settings')).body.a.settings.index.refresh_interval).toBe('1000ms');
    expectError(await t.json('PUT', '/nope*/_settings', { refresh_interval: '5s' }), 404, 'index_not_found_exception', 'no such index [nope*]');
  });

  it('applies dynamic settings, null putting the default back', async () => {
    await t.createIndex('a', { refresh_interval: '5s', max_result_window: 50 });
    expect((await t.json('PUT', '/a/_settings', { index: { refresh_interval: null, max_result_window: null, max_inner_result_window: 7 } })).status).toBe(200);
    expect((await t.json('GET', '/a/_settings')).body.a.settings.index).toMatchObject({ refresh_interval: '1000ms', max_result_window: '10000', max_inner_result_window: '7' });
  });

  it('records codec, refuses analysis, and checks routing shards and auto-expanded replicas as ES does', async () => {
    await t.createIndex('a', { codec: 'best_compression', 'analysis': {} });
    expect((await t.json('GET', '/a/_settings')).body.a.settings.index.codec).toBe('best_compression');
    expectError(await t.json('PUT', '/b', { settings: { codec: 'zip' } }), 400, 'illegal_argument_exception', 'unknown value for [index.codec] must be one of [default, best_compression] but was: zip');
    expectError(await t.json('PUT', '/b', { settings: { analysis: { analyzer: { x: { type: 'standard' } } } } }), 400, 'illegal_argument_exception', /^\[index\.analysis\] is not supported by deeppage yet/);
    expectError(await t.json('PUT', '/b', { settings: { number_of_shards: 2, number_of_routing_shards: 3 } }), 400, 'illegal_argument_exception', 'the number of source shards [2] must be a factor of [3]');
    expectError(await t.json('PUT', '/b', { settings: { number_of_shards: 4, number_of_routing_shards: 2 } }), 400, 'illegal_argument_exception', 'index.number_of_routing_shards [2] must be >= index.number_of_shards [4]');
    expectError(await t.json('PUT', '/b', { settings: { auto_expand_replicas: '2' } }), 400, 'illegal_argument_exception', 'failed to parse [index.auto_expand_replicas] from value: [2] at index -1');
    expect(t.engine.indices().map((i) => i.name)).toEqual(['a']);
  });

  it('routes by number_of_routing_shards', async () => {
    await t.createIndex('r', { number_of_shards: 2, number_of_routing_shards: 4 });
    const idsHere = Array.from({ length: 40 }, (_, i) => String(i));
    await t.bulk('/r/_bulk', idsHere.flatMap((id) => [{ index: { _id: id } }, { id }]), '?refresh=true');
    const shard0 = ids(await t.json('GET', '/r/_search?preference=_shards:0&size=100')).sort();
    expect(shard0).toEqual(idsHere.filter((id) => shardFor(id, 2, 4) === 0).sort());
    // A different split of the same ids than the default (1024 routing shards) makes.
    expect(shard0).not.toEqual(idsHere.filter((id) => shardFor(id, 2) === 0).sort());
    expect((await t.json('GET', '/r/_settings')).body.r.settings.index.number_of_routing_shards).toBe('4');
  });

  it('auto_expand_replicas puts the replicas at its lower bound on one node', async () => {
    await t.createIndex('a', { number_of_replicas: 2, auto_expand_replicas: '0-1' });
    expect((await t.json('GET', '/a/_settings')).body.a.settings.index).toMatchObject({ number_of_replicas: '0', auto_expand_replicas: '0-1' });
    expect((await t.json('GET', '/_cluster/health')).body.status).toBe('green');
  });

  it('flat_settings=true prints dotted keys, sorted', async () => {
    await t.createIndex('a', { number_of_shards: 2 });
    const flat = (await t.json('GET', '/a/_settings?flat_settings=true')).body.a.settings;
    expect(flat['index.number_of_shards']).toBe('2');
    expect(flat['index.version.created']).toBeDefined();
    expect(Object.keys(flat)).toEqual(Object.keys(flat).sort());
    expect(Object.keys(flat).every((key) => key.startsWith('index.'))).toBe(true);
    expect((await t.json('GET', '/a?flat_settings')).body.a.settings['index.uuid']).toBe(uuidOf('a'));
    expect((await t.json('GET', '/a?flat_settings=false')).body.a.settings.index.uuid).toBe(uuidOf('a'));
  });
});

describe('mappings', () => {
  const create = (properties: unknown, extra: object = {}) => t.json('PUT', '/m', { mappings: { properties, ...extra } });
  const mappingError = (reason: string) => `Failed to parse mapping: ${reason}`;

  it('refuses field names ES refuses', async () => {
    for (const [name, reason] of [
      ['', 'field name cannot be an empty string'],
      ['  ', 'field name cannot contain only whitespaces'],
      ['..', 'field name cannot contain only dots'],
      ['a..b', 'field name cannot be an empty string'],
      ['.a', 'field name cannot be an empty string'],
    ]) {
      const res = await create({ [name]: { type: 'keyword' } });
      expectError(res, 400, 'mapper_parsing_exception', mappingError(reason));
      expect(res.body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason });
    }
    expectError(await create({ title: { type: 'text', fields: { 'raw.x': { type: 'keyword' } } } }), 400, 'mapper_parsing_exception', mappingError("Field name [raw.x] which is a multi field of [title] cannot contain '.'"));
    expect(t.engine.has('m')).toBe(false);
    await t.createIndex('m', undefined, { properties: { 'a.b': { type: 'keyword' }, 'c.': { type: 'long' } } });
    expect((await t.json('GET', '/m/_mapping')).body.m.mappings.properties).toEqual({ a: { properties: { b: { type: 'keyword' } } }, c: { type: 'long' } });
  });

  it('refuses unknown parameters, and known ones whose values deeppage does not honour', async () => {
    expectError(await create({ x: { type: 'keyword', foo: 1 } }), 400, 'mapper_parsing_exception', mappingError('unknown parameter [foo] on mapper [x] of type [keyword]'));
    expectError(await create({ o: { properties: { x: { type: 'long', ignore_above: 3 } } } }), 400, 'mapper_parsing_exception', mappingError('unknown parameter [ignore_above] on mapper [x] of type [long]'));
    expectError(await create({ x: { type: 'keyword', boost: 2 } }), 400, 'mapper_parsing_exception', mappingError('Unknown parameter [boost] on mapper [x]'));
    expectError(await create({ x: { type: 'keyword', index: null } }), 400, 'mapper_parsing_exception', mappingError('[index] on mapper [x] of type [keyword] must not have a [null] value'));
    expectError(await create({ x: { type: 'keyword', doc_values: false } }), 400, 'illegal_argument_exception', notSupported('[doc_values] false on field [x] of type [keyword]'));
    expectError(await create({ x: { type: 'text', analyzer: 'english' } }), 400, 'illegal_argument_exception', notSupported('[analyzer] "english" on field [x] of type [text]'));
    expectError(await create({ x: { type: 'date', format: 'yyyy/MM/dd' } }), 400, 'illegal_argument_exception', notSupported('[format] "yyyy/MM/dd" on field [x] of type [date]'));
    expectError(await create({ x: { type: 'scaled_float', scaling_factor: 100 } }), 400, 'illegal_argument_exception', notSupported('[scaled_float] field [x]'));
    expectError(await create({ o: { properties: {}, enabled: false } }), 400, 'illegal_argument_exception', notSupported('[enabled] false on object field [o]'));
    expectError(await create({ o: { properties: {}, foo: 'bar' } }), 400, 'mapper_parsing_exception', mappingError('Mapping definition for [o] has unsupported parameters:  [foo : bar]'));
    expectError(await create({}, { _source: { enabled: false } }), 400, 'illegal_argument_exception', /^\[_source\] other than/);
    expect(t.engine.has('m')).toBe(false);
  });

  it('takes the values that change nothing, keeps _meta and empty objects, and shows what ES shows', async () => {
    const properties = {
      tag: { type: 'keyword', doc_values: true, index: 'true', eager_global_ordinals: true, ignore_above: 10 },
      title: { type: 'text', analyzer: 'standard', norms: true, fields: { raw: { type: 'keyword', store: false } } },
      at: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
      empty: { type: 'object' },
    };
    await t.createIndex('m', undefined, { properties, _meta: { owner: 'me' }, _source: { enabled: true } });
    expect((await t.json('GET', '/m/_mapping')).body.m.mappings).toEqual({
      _meta: { owner: 'me' },
      properties: {
        tag: { type: 'keyword', ignore_above: 10 },
        title: { type: 'text', fields: { raw: { type: 'keyword' } } },
        at: { type: 'date' },
        empty: { type: 'object' },
      },
    });
    expectError(await t.json('PUT', '/m/_doc/1', { empty: 5 }), 400, 'document_parsing_exception', 'object mapping for [empty] tried to parse field [empty] as object, but found a concrete value');
    expect((await t.json('PUT', '/m/_doc/1', { empty: { x: 1 } })).status).toBe(201);
  });

  it('refuses documents whose field names ES refuses', async () => {
    await t.createIndex('m');
    for (const [source, reason] of [
      [{ '': 1 }, 'field name cannot be an empty string'],
      [{ a: { '': 1 } }, 'field name cannot be an empty string'],
      [{ '..': 1 }, 'field name cannot contain only dots'],
      [{ 'a..b': 1 }, "object field cannot contain only whitespace: ['a..b']"],
    ] as const) {
      const res = await t.json('PUT', '/m/_doc/1', source);
      expectError(res, 400, 'document_parsing_exception', `failed to parse: ${reason}`);
      expect(res.body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason });
    }
    expect((await t.json('GET', '/m/_mapping')).body.m.mappings).toEqual({});
  });
});

describe('index, cluster and stats parameters', () => {
  beforeEach(books);

  it('index APIs check their parameters: unknown ones before anything happens, include_defaults refused', async () => {
    expectError(await t.json('DELETE', '/books?foo=1'), 400, 'illegal_argument_exception', 'request [/books] contains unrecognized parameter: [foo]');
    expect(t.engine.has('books')).toBe(true);
    expectError(await t.json('GET', '/books?include_defaults=true'), 400, 'illegal_argument_exception', notSupported('[include_defaults=true]'));
    expectError(await t.json('GET', '/books/_mapping?flat_settings=true'), 400, 'illegal_argument_exception', 'request [/books/_mapping] contains unrecognized parameter: [flat_settings]');
    expectError(await t.json('GET', '/books?master_timeout=soon'), 400, 'parse_exception', /^failed to parse setting \[master_timeout\]/);
    expectError(await t.json('PUT', '/other?wait_for_active_shards=2'), 400, 'illegal_argument_exception', notSupported('[wait_for_active_shards=2] (one node holds one copy of each shard)'));
    expectError(await t.json('GET', '/?foo=1'), 400, 'illegal_argument_exception', 'request [/] contains unrecognized parameter: [foo]');
    expect((await t.json('GET', '/books,nope?ignore_unavailable=true&local=true&master_timeout=1s')).body.books).toBeDefined();
    expect((await t.json('POST', '/books,nope/_refresh?ignore_unavailable=true')).body._shards.successful).toBe(3);
    expect((await t.json('DELETE', '/nope?ignore_unavailable=true')).body).toEqual({ acknowledged: true });
  });

  it('_cache/clear drops the sorted runs unless only the query or request caches are named', async () => {
    const held = async () => (await t.json('GET', '/books/_stats')).body.indices.books.total.sorted_runs.count;
    await t.json('GET', '/books/_search?sort=n&size=10');
    expect(await held()).toBeGreaterThan(0);
    expect((await t.json('POST', '/books/_cache/clear?query=true&request=true')).status).toBe(200);
    expect(await held()).toBeGreaterThan(0);
    await t.json('POST', '/books/_cache/clear?fielddata=true');
    expect(await held()).toBe(0);
    expectError(await t.json('POST', '/books/_cache/clear?fields=n'), 400, 'illegal_argument_exception', notSupported('[fields] on _cache/clear'));
  });

  it('_cluster/health: level=indices and shards, and the waits, timing out as ES does', async () => {
    const indices = (await t.json('GET', '/_cluster/health?level=indices')).body.indices;
    expect(indices.books).toEqual({
      status: 'yellow', number_of_shards: 3, number_of_replicas: 1, active_primary_shards: 3, active_shards: 3, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 3,
    });
    const shards = (await t.json('GET', '/_cluster/health?level=shards')).body.indices.books.shards;
    expect(Object.keys(shards)).toEqual(['0', '1', '2']);
    expect(shards['0']).toEqual({ status: 'yellow', primary_active: true, active_shards: 1, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 1 });
    expect((await t.json('GET', '/_cluster/health')).body.indices).toBeUndefined();
    expectError(await t.json('GET', '/_cluster/health?level=node'), 400, 'illegal_argument_exception', 'level parameter must be one of [cluster] or [indices] or [shards] but was [node]');

    const met = await t.json('GET', '/_cluster/health?wait_for_status=yellow&wait_for_nodes=>=1&wait_for_active_shards=3&wait_for_events=languid&wait_for_no_relocating_shards=true&timeout=1s');
    expect(met.status).toBe(200);
    expect(met.body.timed_out).toBe(false);
    for (const wait of ['wait_for_status=green', 'wait_for_nodes=2', 'wait_for_active_shards=all']) {
      const unmet = await t.json('GET', `/_cluster/health?${wait}&timeout=10ms`);
      expect(unmet.status, wait).toBe(408);
      expect(unmet.body).toMatchObject({ status: 'yellow', timed_out: true });
    }
    // Met once the replicas go.
    await t.json('PUT', '/books/_settings', { number_of_replicas: 0 });
    expect((await t.json('GET', '/_cluster/health?wait_for_status=green&timeout=10ms')).status).toBe(200);
    expectError(await t.json('GET', '/_cluster/health?wait_for_status=blue'), 400, 'illegal_argument_exception', 'No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.BLUE');
    expectError(await t.json('GET', '/_cluster/health?wait_for_events=soon'), 400, 'illegal_argument_exception', 'No enum constant org.elasticsearch.common.Priority.SOON');
    expectError(await t.json('GET', '/_cluster/health?wait_for_active_shards=-2'), 400, 'illegal_argument_exception', 'shard count cannot be a negative value');
    expectError(await t.json('GET', '/_cluster/health?foo=1'), 400, 'illegal_argument_exception', 'request [/_cluster/health] contains unrecognized parameter: [foo]');
  });

  it('_stats: level=cluster leaves out indices; level=shards lists each shard copy', async () => {
    const cluster = (await t.json('GET', '/books/_stats?level=cluster')).body;
    expect(cluster.indices).toBeUndefined();
    expect(cluster._all.primaries.docs).toEqual({ count: 3, deleted: 0 });
    const shards = (await t.json('GET', '/_stats?level=shards')).body.indices.books.shards;
    expect(Object.keys(shards)).toEqual(['0', '1', '2']);
    const copies = Object.values(shards) as Json[][];
    expect(copies.every((list) => list.length === 1 && list[0].routing.primary === true && list[0].routing.state === 'STARTED')).toBe(true);
    expect(copies.reduce((n, [copy]) => n + copy.docs.count, 0)).toBe(3);
    expect((await t.json('GET', '/books/_stats?level=indices')).body.indices.books.shards).toBeUndefined();
    expectError(await t.json('GET', '/_stats?level=node'), 400, 'illegal_argument_exception', 'level parameter must be one of [cluster] or [indices] or [shards] but was [node]');
  });
});
