/**
 * `_mget` through the app: items in request order, each answered as GET answers it; missing
 * documents and indices per item; `_source` and `stored_fields` per item over the URI's; routing;
 * the ids form; and every refusal of ES's MultiGetRequest, in its words.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { expectError, expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(async () => {
  t = testApp();
  await t.bulk('/_bulk', [
    { index: { _index: 'books', _id: '1' } }, { title: 'Dune', author: { name: 'Herbert', born: 1920 }, year: 1965 },
    { index: { _index: 'books', _id: '2' } }, { title: 'Emma', author: { name: 'Austen', born: 1775 }, year: 1815 },
    { index: { _index: 'films', _id: '1' } }, { title: 'Alien', year: 1979 },
  ], '?refresh=true');
});
afterEach(() => t.close());

const mget = (body: unknown, query = '', index?: string) => t.json('POST', `${index ? `/${index}` : ''}/_mget${query}`, body);
const get = async (path: string) => (await t.json('GET', path)).body;

describe('_mget answers', () => {
  it('keeps request order, found documents exactly as GET gives them, missing ones {_index, _id, found: false}', async () => {
    const res = await mget({ docs: [{ _index: 'films', _id: '1' }, { _index: 'books', _id: '9' }, { _index: 'books', _id: '2' }, { _index: 'books', _id: '1' }] });
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(res.body.docs).toEqual([await get('/films/_doc/1'), { _index: 'books', _id: '9', found: false }, await get('/books/_doc/2'), await get('/books/_doc/1')]);
    expect(res.body.docs[0]).toMatchObject({ _index: 'films', _id: '1', _version: 1, _primary_term: 1, found: true, _source: { title: 'Alien', year: 1979 } });
    expect(Object.keys(res.body.docs[0])).toEqual(['_index', '_id', '_version', '_seq_no', '_primary_term', 'found', '_source']);
  });

  it('answers a missing index as an index_not_found_exception item, beside the others', async () => {
    const res = await mget({ docs: [{ _index: 'books', _id: '1' }, { _index: 'nope', _id: '1' }] });
    expect(res.status).toBe(200);
    expect(res.body.docs[0].found).toBe(true);
    const item = res.body.docs[1];
    expect(Object.keys(item)).toEqual(['_index', '_id', 'error']);
    expect(item._index).toBe('nope');
    expect(item._id).toBe('1');
    expect(item.error).toMatchObject({ type: 'index_not_found_exception', reason: 'no such index [nope]', index: 'nope', 'resource.id': 'nope' });
    expect(item.error.root_cause[0]).toMatchObject({ type: 'index_not_found_exception', reason: 'no such index [nope]' });
  });

  it('writes each stored _source back byte for byte, as GET does', async () => {
    const text = '{"n": 1.0, "x": 1e2, "s": "é\\u00e9"}';
    expect((await t.json('PUT', '/raw/_doc/1', text)).status).toBe(201);
    const res = await mget({ docs: [{ _index: 'raw', _id: '1' }] });
    expect(res.text).toContain(`"_source":${text}`);
    expect(res.text).toBe(`{"docs":[${(await t.json('GET', '/raw/_doc/1')).text}]}`);
  });

  it('answers /_mget and /{index}/_mget, and a GET takes its body in ?source=', async () => {
    const body = { docs: [{ _index: 'books', _id: '1' }] };
    expect((await t.json('POST', '/_mget', body)).body.docs[0].found).toBe(true);
    const viaSource = await t.json('GET', `/_mget?source=${encodeURIComponent(JSON.stringify(body))}&source_content_type=application/json`);
    expect(viaSource.body.docs[0]._id).toBe('1');
    expect((await t.json('POST', '/books/_mget', { ids: ['2'] })).body.docs[0]._source.title).toBe('Emma');
  });

  it('keeps order over many items, read a slice per turn', async () => {
    const ids = Array.from({ length: 700 }, (_, i) => String(699 - i));
    await t.bulk('/many/_bulk', ids.flatMap((id) => [{ index: { _id: id } }, { n: Number(id) }]));
    const res = await mget({ ids: [...ids, 'missing'] }, '', 'many');
    expect(res.body.docs.map((d: { _id: string }) => d._id)).toEqual([...ids, 'missing']);
    expect(res.body.docs.slice(0, -1).every((d: { found: boolean; _source: { n: number }; _id: string }) => d.found && d._source.n === Number(d._id))).toBe(true);
  });

  it('honours filter_path and pretty on the whole answer', async () => {
    const filtered = await mget({ docs: [{ _index: 'books', _id: '1' }, { _index: 'books', _id: '2' }] }, '?filter_path=docs._source.title');
    expect(filtered.body).toEqual({ docs: [{ _source: { title: 'Dune' } }, { _source: { title: 'Emma' } }] });
    const pretty = await mget({ docs: [{ _index: 'books', _id: '1' }] }, '?pretty');
    expect(pretty.text.startsWith('{\n  "docs": [\n')).toBe(true);
    expect(pretty.body.docs[0]._source.title).toBe('Dune');
  });
});

describe('_mget: the ids form, _index, routing', () => {
  it('reads {"ids": […]} from the path index, with the URI _source over each', async () => {
    const res = await mget({ ids: ['2', 1, '7'] }, '?_source_includes=title', 'books');
    expect(res.body.docs).toEqual([
      { ...(await get('/books/_doc/2')), _source: { title: 'Emma' } },
      { ...(await get('/books/_doc/1')), _source: { title: 'Dune' } },
      { _index: 'books', _id: '7', found: false },
    ]);
  });

  it('takes a doc _index over the path index, and docs with ids in one body, in body order', async () => {
    const res = await mget({ docs: [{ _id: '1' }, { _index: 'films', _id: '1' }], ids: ['2'] }, '', 'books');
    expect(res.body.docs.map((d: { _index: string; _source: { title: string } }) => `${d._index}:${d._source.title}`)).toEqual(['books:Dune', 'films:Alien', 'books:Emma']);
  });

  it('reads each item on the shard its routing picks: the doc routing over the URI routing', async () => {
    const SHARDS = 4;
    await t.createIndex('routed', { number_of_shards: SHARDS });
    const routing = 'user-7';
    const id = Array.from({ length: 50 }, (_, i) => `d${i}`).find((d) => shardFor(d, SHARDS) !== shardFor(routing, SHARDS))!;
    expect((await t.json('PUT', `/routed/_doc/${id}?routing=${routing}`, { a: 1 })).status).toBe(201);
    const res = await mget({ docs: [{ _index: 'routed', _id: id, routing }, { _index: 'routed', _id: id }, { _index: 'routed', _id: id, routing: 'elsewhere' }] }, `?routing=${routing}`);
    expect(res.body.docs[0]).toEqual(await get(`/routed/_doc/${id}?routing=${routing}`));
    expect(res.body.docs[0]).toMatchObject({ _routing: routing, found: true, _source: { a: 1 } });
    expect(res.body.docs[1]).toMatchObject({ _routing: routing, found: true });
    expect(res.body.docs[2]).toEqual({ _index: 'routed', _id: id, found: false });
    expect((await mget({ ids: [id] }, '', 'routed')).body.docs[0].found).toBe(false);
  });

  it('sees writes in real time unless realtime=false, which sees the last refresh (or refreshes first with refresh=true)', async () => {
    await t.json('PUT', '/books/_doc/3', { title: 'Ulysses' });
    const read = async (query: string) => (await mget({ ids: ['3'] }, query, 'books')).body.docs[0].found;
    expect(await read('')).toBe(true);
    expect(await read('?realtime=false')).toBe(false);
    expect(await read('?realtime=false&refresh=true')).toBe(true);
    expect(await read('?preference=_local')).toBe(true);
  });
});

describe('_mget: _source and stored_fields per item', () => {
  it('filters each item by its own _source, read as MultiGetRequest reads it', async () => {
    const res = await mget({
      docs: [
        { _index: 'books', _id: '1', _source: false },
        { _index: 'books', _id: '1', _source: 'title' },
        { _index: 'books', _id: '1', _source: ['title', 'author.n*'] },
        { _index: 'books', _id: '1', _source: { includes: ['author.*'], exclude: 'author.born' } },
        { _index: 'books', _id: '1', _source: { include: 'title', includes: ['year'] } },
        { _index: 'books', _id: '1', _source: 'false' },
        { _index: 'books', _id: '1', _source: true },
      ],
    });
    const sources = res.body.docs.map((d: { _source?: unknown }) => d._source);
    expect(sources).toEqual([
      undefined,
      { title: 'Dune' },
      { title: 'Dune', author: { name: 'Herbert' } },
      { author: { name: 'Herbert' } },
      { title: 'Dune', year: 1965 },
      undefined,
      { title: 'Dune', author: { name: 'Herbert', born: 1920 }, year: 1965 },
    ]);
    expect(res.body.docs[0]).toEqual({ _index: 'books', _id: '1', _version: 1, _seq_no: expect.any(Number), _primary_term: 1, found: true });
  });

  it('takes the URI _source, _source_includes, _source_excludes and stored_fields for items that give none', async () => {
    const docs = [{ _index: 'books', _id: '1' }, { _index: 'books', _id: '1', _source: 'year' }, { _index: 'books', _id: '1', stored_fields: ['_source'] }];
    const sources = async (query: string) => (await mget({ docs }, query)).body.docs.map((d: { _source?: unknown }) => d._source);
    expect(await sources('?_source=title')).toEqual([{ title: 'Dune' }, { year: 1965 }, { title: 'Dune' }]);
    expect(await sources('?_source_excludes=author&_source_includes=title,author.*')).toEqual([{ title: 'Dune' }, { year: 1965 }, { title: 'Dune' }]);
    expect(await sources('?_source=false')).toEqual([undefined, { year: 1965 }, undefined]);
    // Stored fields without `_source` leave it out, as GET does; naming `_source` keeps it.
    expect(await sources('?stored_fields=title')).toEqual([undefined, { year: 1965 }, { title: 'Dune', author: { name: 'Herbert', born: 1920 }, year: 1965 }]);
    expect((await mget({ docs }, '?stored_fields=title')).body.docs[0]).toEqual(await get('/books/_doc/1?stored_fields=title'));
  });
});

describe('_mget refusals', () => {
  it('refuses items without an index or id: 400 action_request_validation_exception, every problem numbered', async () => {
    expectError(await mget({ docs: [{ _index: 'books' }] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: id is missing for doc 0;');
    expectError(await mget({ docs: [{ _id: '1' }] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: index is missing for doc 0;');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1' }, {}, { _id: null, _index: 'books' }] }), 400, 'action_request_validation_exception',
      'Validation Failed: 1: index is missing for doc 1;2: id is missing for doc 1;3: id is missing for doc 2;');
    expectError(await mget({ ids: ['1'] }), 400, 'action_request_validation_exception', 'Validation Failed: 1: index is missing for doc 0;');
  });

  it('refuses a request with no documents', async () => {
    for (const body of [{ docs: [] }, {}, { ids: [] }]) {
      expectError(await mget(body), 400, 'action_request_validation_exception', 'Validation Failed: 1: no documents to get;');
    }
    expectError(await t.json('POST', '/_mget'), 400, 'parse_exception', 'request body or source parameter is required');
  });

  it('refuses a body MultiGetRequest cannot parse, in its words', async () => {
    expectError(await mget([]), 400, 'parsing_exception', 'unexpected token [START_ARRAY], expected [START_OBJECT]');
    expectError(await mget({ docs: {} }), 400, 'parsing_exception', 'unexpected token [START_OBJECT], expected [FIELD_NAME] or [START_ARRAY]');
    expectError(await mget({ docs: 'x' }), 400, 'parsing_exception', 'unexpected token [VALUE_STRING], expected [FIELD_NAME] or [START_ARRAY]');
    expectError(await mget({ documents: [] }), 400, 'parsing_exception', 'unknown key [documents] for a START_ARRAY, expected [docs] or [ids]');
    expectError(await mget({ docs: ['1'] }), 400, 'illegal_argument_exception', 'docs array element should include an object');
    expectError(await mget({ ids: [{ _id: '1' }] }, '', 'books'), 400, 'illegal_argument_exception', 'ids array element should only contain ids');
    expectError(await mget({ ids: [null] }, '', 'books'), 400, 'illegal_argument_exception', 'ids array element should only contain ids');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', size: 1 }] }), 400, 'parse_exception', 'failed to parse multi get request. unknown field [size]');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', _source_includes: 'a' }] }), 400, 'parse_exception', 'failed to parse multi get request. unknown field [_source_includes]');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', fields: ['a'] }] }), 400, 'parsing_exception', 'Unsupported field [fields] used, expected [stored_fields] instead');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', _source: 1 }] }), 400, 'parse_exception', 'illegal type for _source: [VALUE_NUMBER]');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', _source: { only: 'a' } }] }), 400, 'parse_exception', 'source definition may not contain [only]');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', _source: { includes: { a: 1 } } }] }), 400, 'parse_exception', 'unexpected token while parsing source settings');
    expectError(await mget({ docs: [{ _index: 'books', _id: { a: 1 } }] }), 400, 'parse_exception', /\[_id\] must be a value/);
    expectError(await mget('{"docs": [}'), 400, 'x_content_parse_exception');
  });

  it('refuses what deeppage does not do, and URI parameters mget does not take', async () => {
    const one = { docs: [{ _index: 'books', _id: '1' }] };
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', version: 1 }] }), 400, 'illegal_argument_exception', '[version] (optimistic concurrency control) is not supported by deeppage yet');
    expectError(await mget({ docs: [{ _index: 'books', _id: '1', version_type: 'external' }] }), 400, 'illegal_argument_exception', /\[version_type\]/);
    expectError(await mget(one, '?force_synthetic_source=true'), 400, 'illegal_argument_exception', '[force_synthetic_source=true] is not supported by deeppage yet');
    expectError(await mget(one, '?fields=title'), 400, 'illegal_argument_exception',
      'The parameter [fields] is no longer supported, please use [stored_fields] to retrieve stored fields or _source filtering if the field is not stored');
    expectError(await mget(one, '?version=1'), 400, 'illegal_argument_exception', 'request [/_mget] contains unrecognized parameter: [version]');
    expectError(await mget(one, '?size=1&from=2'), 400, 'illegal_argument_exception', 'request [/_mget] contains unrecognized parameters: [from], [size]');
    expectError(await mget(one, '?realtime=maybe'), 400, 'illegal_argument_exception', 'Failed to parse value [maybe] as only [true] or [false] are allowed.');
    expect((await mget(one, '?force_synthetic_source=false')).body.docs[0].found).toBe(true);
  });
});
