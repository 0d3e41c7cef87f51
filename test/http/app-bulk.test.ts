/** `_bulk` through the app: NDJSON actions, per-item results and statuses, the `errors` flag, malformed requests. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectError, expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(async () => {
  t = testApp();
  await t.createIndex('books', { number_of_shards: 2 }, { properties: { pages: { type: 'integer' } } });
});
afterEach(() => t.close());

const source = async (index: string, id: string) => (await t.json('GET', `/${index}/_doc/${id}`)).body._source;

describe('a large bulk', () => {
  it('answers every item in order, its answer made in slices as at once, and with filter_path', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => (i % 5 === 4 ? [{ delete: { _index: 'books', _id: `missing-${i}` } }] : [{ index: { _index: 'books', _id: `b${i}` } }, { pages: i }])).flat();
    const res = await t.bulk('/_bulk', lines);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['errors', 'took', 'items']);
    expect(res.body.errors).toBe(false);
    const items = res.body.items as Record<string, { _id: string; status: number; result: string }>[];
    expect(items).toHaveLength(2500);
    items.forEach((item, i) => {
      const [action, result] = Object.entries(item)[0];
      expect([action, result._id, result.status]).toEqual(i % 5 === 4 ? ['delete', `missing-${i}`, 404] : ['index', `b${i}`, 201]);
    });
    // The same again, trimmed by filter_path: made at once, the same items, now updates.
    const filtered = await t.bulk('/_bulk?filter_path=items.*.result', lines);
    expect(filtered.body).toEqual({ items: items.map((item) => (Object.keys(item)[0] === 'index' ? { index: { result: 'updated' } } : { delete: { result: 'not_found' } })) });
  });
});

describe('sources as sent', () => {
  it('stores a source as the bytes sent, and a body with a byte order mark or bytes that are not UTF-8 as the text it reads as', async () => {
    const send = async (body: Buffer) => (await t.app.request('/books/_bulk', { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/x-ndjson' } })).status;
    const spaced = '{ "title" :  "caf\u00e9 \\u00e9",\t"n": 1.50 }';
    expect(await send(Buffer.from(`{"index":{"_id":"1"}}\n${spaced}\n`))).toBe(200);
    // A byte order mark before the first line is dropped, as when the body was read as text.
    expect(await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"index":{"_id":"2"}}\n{"t":"bom"}\n')]))).toBe(200);
    // An invalid sequence reads as U+FFFD, and is stored as that character's UTF-8.
    expect(await send(Buffer.concat([Buffer.from('{"index":{"_id":"3"}}\n{"t":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}\n')]))).toBe(200);
    const stored = (id: string) => t.engine.get('books', id)!.doc.source;
    expect(stored('1')).toBe(spaced);
    expect(stored('2')).toBe('{"t":"bom"}');
    expect(stored('3')).toBe('{"t":"a\ufffd\ufffdb"}');
    expect(await source('books', '3')).toEqual({ t: 'a\ufffd\ufffdb' });
  });
});

describe('the items as written', () => {
  it('each kind of item reads the same as its value, in ES field order, escaped where needed', async () => {
    const lines = [
      { index: { _index: 'books', _id: 'plain' } }, { pages: 1 },
      { index: { _index: 'books', _id: 'plain' } }, { pages: 2 },
      { index: { _index: 'books', _id: 'quote"back\\slash\nline\u0001 é 😀' } }, { pages: 3 },
      { update: { _index: 'books', _id: 'plain' } }, { doc: { pages: 2 } },
      { delete: { _index: 'books', _id: 'absent' } },
      { delete: { _index: 'books', _id: 'plain' } },
      { create: { _index: 'books', _id: 'quote"back\\slash\nline\u0001 é 😀' } }, { pages: 4 },
      { index: { _index: 'books', _id: 'bad' } }, { pages: 'many' },
      { index: { _index: 'papers', _id: 'plain' } }, { pages: 5 },
      { delete: { _index: 'books', _id: 'absent' } },
    ];
    for (const refresh of ['', '?refresh=true']) {
      await t.json('DELETE', '/books,papers?ignore_unavailable=true');
      await t.createIndex('books', { number_of_shards: 2 }, { properties: { pages: { type: 'integer' } } });
      const written = await t.bulk(`/_bulk${refresh}`, lines);
      await t.json('DELETE', '/books,papers');
      await t.createIndex('books', { number_of_shards: 2 }, { properties: { pages: { type: 'integer' } } });
      // `pretty` answers are made from the items as values.
      const asValues = await t.bulk(`/_bulk${refresh}${refresh ? '&' : '?'}pretty`, lines);
      // Each index is new: its uuid, in the errors, differs.
      const uuidless = (body: unknown) => JSON.parse(JSON.stringify(body).replace(/"index_uuid":"\w+"/g, '"index_uuid":"-"'));
      expect(uuidless(written.body)).toEqual(uuidless({ ...asValues.body, took: written.body.took }));
      const items = written.body.items as Record<string, Record<string, unknown>>[];
      expect(items.map((item) => Object.values(item)[0].result ?? 'error')).toEqual(['created', 'updated', 'created', 'noop', 'not_found', 'deleted', 'error', 'error', 'created', 'not_found']);
      expect(items.map((item) => Object.values(item)[0]._index)).toEqual([...Array(8).fill('books'), 'papers', 'books']);
      expect(Object.keys(items[1].index)).toEqual(['_index', '_id', '_version', 'result', ...(refresh ? ['forced_refresh'] : []), '_shards', '_seq_no', '_primary_term', 'status']);
      expect(items[2].index._id).toBe('quote"back\\slash\nline\u0001 é 😀');
    }
  });
});

describe('actions', () => {
  it('index, create, update with doc and delete, each with its own result and status', async () => {
    const res = await t.bulk('/_bulk', [
      { index: { _index: 'books', _id: '1' } }, { title: 'Dune', pages: 412 },
      { index: { _index: 'books', _id: '1' } }, { title: 'Dune', pages: 896 },
      { create: { _index: 'books', _id: '2' } }, { title: 'Emma' },
      { update: { _index: 'books', _id: '2' } }, { doc: { pages: 474 } },
      { index: { _index: 'books', _id: '3' } }, { title: 'Ulysses' },
      { delete: { _index: 'books', _id: '3' } },
      { delete: { _index: 'books', _id: '99' } },
    ]);
    expect(res.status).toBe(200);
    expectEsHeaders(res);
    expect(res.body.errors).toBe(false);
    expect(typeof res.body.took).toBe('number');
    const items = res.body.items;
    expect(items.map((item: object) => Object.keys(item)[0])).toEqual(['index', 'index', 'create', 'update', 'index', 'delete', 'delete']);
    expect(items.map((item: Record<string, { status: number; result: string }>) => Object.values(item)[0]).map((r: { status: number; result: string }) => [r.status, r.result])).toEqual([
      [201, 'created'], [200, 'updated'], [201, 'created'], [200, 'updated'], [201, 'created'], [200, 'deleted'], [404, 'not_found'],
    ]);
    expect(items[0].index).toEqual({
      _index: 'books', _id: '1', _version: 1, result: 'created', _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: expect.any(Number), _primary_term: 1, status: 201,
    });
    expect(items[1].index._version).toBe(2);
    expect(items[3].update._version).toBe(2);
    expect(await source('books', '1')).toEqual({ title: 'Dune', pages: 896 });
    expect(await source('books', '2')).toEqual({ title: 'Emma', pages: 474 });
    expect((await t.json('GET', '/books/_doc/3')).status).toBe(404);
  });

  it('/{index}/_bulk supplies the index, which an action may still name', async () => {
    const res = await t.bulk('/books/_bulk', [{ index: { _id: '1' } }, { a: 1 }, { index: { _index: 'films', _id: '1' } }, { a: 2 }]);
    expect(res.body.errors).toBe(false);
    expect(res.body.items.map((i: { index: { _index: string } }) => i.index._index)).toEqual(['books', 'films']);
    expect(await source('films', '1')).toEqual({ a: 2 });
    expect(t.engine.resolve('films')[0].shards).toHaveLength(1);
  });

  it('create without _id generates one; PUT /_bulk is accepted too', async () => {
    const res = await t.json('PUT', '/_bulk', '{"create":{"_index":"books"}}\n{"a":1}\n', { 'content-type': 'application/x-ndjson' });
    expect(res.status).toBe(200);
    expect(res.body.items[0].create).toMatchObject({ status: 201, result: 'created' });
    expect(res.body.items[0].create._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
  });

  it('an update that changes nothing answers noop', async () => {
    await t.bulk('/books/_bulk', [{ index: { _id: '1' } }, { a: 1 }]);
    const res = await t.bulk('/books/_bulk', [{ update: { _id: '1' } }, { doc: { a: 1 } }]);
    expect(res.body.items[0].update).toMatchObject({ status: 200, result: 'noop', _version: 1 });
  });

  it('?refresh=true makes the items searchable before answering', async () => {
    await t.createIndex('slow', { refresh_interval: '-1' });
    await t.bulk('/slow/_bulk', [{ index: { _id: '1' } }, { a: 1 }], '?refresh=true');
    expect((await t.json('GET', '/slow/_count')).body.count).toBe(1);
  });

  it('honours routing given in the action or the URI', async () => {
    await t.bulk('/books/_bulk', [{ index: { _id: '1', routing: 'r1' } }, { a: 1 }, { index: { _id: '2' } }, { a: 2 }], '?routing=r2');
    expect((await t.json('GET', '/books/_doc/1?routing=r1')).body).toMatchObject({ found: true, _routing: 'r1' });
    expect((await t.json('GET', '/books/_doc/2?routing=r2')).body).toMatchObject({ found: true, _routing: 'r2' });
  });
});

describe('failing items', () => {
  it('set errors: true and carry an error, while the other items still apply', async () => {
    await t.bulk('/books/_bulk', [{ index: { _id: '1' } }, { title: 'Dune' }]);
    const uuid = t.engine.resolve('books')[0].uuid;
    const res = await t.bulk('/books/_bulk', [
      { create: { _id: '1' } }, { title: 'again' },
      { index: { _id: '2' } }, { title: 'Emma' },
      { index: { _id: '3' } }, { pages: 'many' },
      { update: { _id: '404' } }, { doc: { title: 'none' } },
      { index: { _index: 'Bad', _id: '1' } }, { a: 1 },
      { delete: { _id: '1' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(true);
    const [conflict, ok, mapping, missing, badName, deleted] = res.body.items;
    expect(conflict.create).toMatchObject({ _index: 'books', _id: '1', status: 409 });
    expect(conflict.create.error).toMatchObject({
      type: 'version_conflict_engine_exception', reason: '[1]: version conflict, document already exists (current version [1])', index_uuid: uuid, index: 'books',
    });
    expect(ok.index).toMatchObject({ status: 201, result: 'created' });
    expect(mapping.index).toMatchObject({ _id: '3', status: 400, error: { type: 'document_parsing_exception' } });
    expect(missing.update).toMatchObject({ _id: '404', status: 404, error: { type: 'document_missing_exception', reason: '[404]: document missing', index: 'books' } });
    expect(badName.index).toMatchObject({ _index: 'Bad', status: 400, error: { type: 'invalid_index_name_exception' } });
    expect(deleted.delete).toMatchObject({ status: 200, result: 'deleted' });
    expect(await source('books', '2')).toEqual({ title: 'Emma' });
    expect((await t.json('GET', '/books/_doc/1')).status).toBe(404);
    expect((await t.json('GET', '/books/_doc/3')).status).toBe(404);
  });

  it('a delete of a missing document is a 404 item but not an error', async () => {
    const res = await t.bulk('/books/_bulk', [{ delete: { _id: 'nope' } }]);
    expect(res.body.errors).toBe(false);
    expect(res.body.items[0].delete).toMatchObject({ status: 404, result: 'not_found' });
  });
});

describe('malformed requests fail whole, writing nothing', () => {
  const raw = (body: string, path = '/books/_bulk') => t.json('POST', path, body, { 'content-type': 'application/x-ndjson' });

  it('refuses NDJSON without a trailing newline', async () => {
    const res = await raw('{"index":{"_id":"1"}}\n{"a":1}');
    expectError(res, 400, 'illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
    expectEsHeaders(res);
    expect(t.engine.resolve('books')[0].docCount).toBe(0);
  });

  it('refuses an empty bulk', async () => {
    expectError(await raw(''), 400, 'action_request_validation_exception', 'Validation Failed: 1: no requests added;');
  });

  it('refuses an action without an index', async () => {
    expectError(await raw('{"index":{"_id":"1"}}\n{"a":1}\n', '/_bulk'), 400, 'action_request_validation_exception', 'Validation Failed: 1: index is missing;');
  });

  it('refuses a malformed JSON line with a parse error naming its line', async () => {
    const res = await raw('{"index":{"_id":"1"}}\n{"a":1}\n{"index":{"_id":"2"}}\n{"a": nope}\n');
    expectError(res, 400, 'x_content_parse_exception', /^\[4:7\] /);
    expect(res.body.error.caused_by.type).toBe('json_parse_exception');
    expect(t.engine.resolve('books')[0].docCount).toBe(0);
  });

  it('refuses a source line that is not an object', async () => {
    expect((await raw('{"index":{"_id":"1"}}\n[1]\n')).status).toBe(400);
    expect((await raw('{"index":{"_id":"1"}}\n')).status).toBe(400);
  });

  // ES BulkRequestParser.parseActionLine words these as below.
  const actionLines: [string, string][] = [
    ['{"upsert":{"_id":"1"}}', 'Malformed action/metadata line [1], expected field [create], [delete], [index] or [update] but found [upsert]'],
    ['[1]', 'Malformed action/metadata line [1], expected START_OBJECT but found [START_ARRAY]'],
    ['{}', 'Malformed action/metadata line [1], expected FIELD_NAME but found [END_OBJECT]'],
    ['{"index":1}', 'Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_NUMBER]'],
    ['{"index":{},"extra":1}', 'Malformed action/metadata line [1], expected END_OBJECT but found [FIELD_NAME]'],
    ['{"index":{"_id":"1","colour":"red"}}', 'Action/metadata line [1] contains an unknown parameter [colour]'],
  ];
  for (const [line, reason] of actionLines) {
    it(`refuses the action line ${line} with ES's reason`, async () => {
      expectError(await raw(`${line}\n{"a":1}\n`), 400, 'illegal_argument_exception', reason);
      expect(t.engine.resolve('books')[0].docCount).toBe(0);
    });
  }
  it.each(actionLines.slice(0, -1))('refuses the action line %s with a 400 illegal_argument_exception', async (line) => {
    expectError(await raw(`${line}\n{"a":1}\n`), 400, 'illegal_argument_exception', /^Malformed action\/metadata line \[1\]/);
  });
});
