/** What every response carries, the media types accepted, malformed bodies, size limits, unknown routes, and no 500s. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectEsHeaders, testApp, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = testApp();
  await t.createIndex('books', { number_of_shards: 2 }, { properties: { pages: { type: 'integer' } } });
  await t.json('PUT', '/books/_doc/1?refresh=true', { title: 'Dune', pages: 412 });
});
afterAll(() => t.close());

const VENDORED_JSON = 'application/vnd.elasticsearch+json; compatible-with=8';
const VENDORED_NDJSON = 'application/vnd.elasticsearch+x-ndjson; compatible-with=8';

describe('headers on every response', () => {
  it.each<[string, string, unknown, number]>([
    ['GET', '/', undefined, 200],
    ['GET', '/books/_search', undefined, 200],
    ['PUT', '/books/_doc/2', { title: 'Emma' }, 201],
    ['GET', '/books/_doc/nope', undefined, 404],
    ['GET', '/nope', undefined, 404],
    ['GET', '/nope/_search', undefined, 404],
    ['GET', '/books/_search?from=-1', undefined, 400],
    ['GET', '/books/_search?from=10000', undefined, 400],
    ['PUT', '/books/_create/1', { title: 'again' }, 409],
    ['POST', '/books/_search', '{"size": 1, m}', 400],
    ['GET', '/a/b/c/d/e', undefined, 400],
    ['PUT', '/books/_doc/3', { pages: 'many' }, 400],
  ])('%s %s answers %# with X-Elastic-Product and JSON', async (method, path, body, status) => {
    const res = await t.json(method, path, body);
    expect(res.status, res.text).toBe(status);
    expectEsHeaders(res);
    if (status >= 400 && res.body.error !== undefined) expect(res.body.status).toBe(status);
  });

  it('sends X-Elastic-Product on HEAD answers too', async () => {
    for (const path of ['/books', '/nope']) expect((await t.json('HEAD', path)).headers.get('x-elastic-product')).toBe('Elasticsearch');
  });
});

describe('media types', () => {
  const client = { accept: `${VENDORED_JSON},text/plain` };

  it.each([VENDORED_JSON, 'application/vnd.elasticsearch+json; compatible-with=9', 'application/vnd.elasticsearch+json;compatible-with=7', 'application/json', 'application/json; charset=UTF-8'])(
    'accepts JSON bodies sent as %s',
    async (type) => {
      expect((await t.json('PUT', '/media/_doc/1', { a: 1 }, { 'content-type': type, ...client })).status).toBeLessThan(300);
      const res = await t.json('POST', '/books/_search', { size: 1 }, { 'content-type': type, ...client });
      expect(res.status).toBe(200);
      expect(res.body.hits.hits).toHaveLength(1);
      expectEsHeaders(res);
    },
  );

  it.each([VENDORED_NDJSON, 'application/vnd.elasticsearch+x-ndjson; compatible-with=9', 'application/x-ndjson'])('accepts _bulk bodies sent as %s', async (type) => {
    const res = await t.json('POST', '/media/_bulk', '{"index":{"_id":"b"}}\n{"a":2}\n', { 'content-type': type, ...client });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(false);
  });

  it('refuses a media type ES cannot read, in ES error shape', async () => {
    const res = await t.json('POST', '/books/_search', '<search/>', { 'content-type': 'application/xml' });
    expect(res.status).toBe(406);
    expectEsHeaders(res);
    expect(res.body).toMatchObject({ error: { root_cause: [expect.any(Object)], type: expect.any(String), reason: expect.any(String) }, status: 406 });
  });

  // ES (RestCompatibleVersionHelper) answers an unsupported compatible-with version with BAD_REQUEST.
  it('refuses an unsupported compatible-with version with 400 media_type_header_exception', async () => {
    const res = await t.json('POST', '/books/_search', { size: 1 }, { 'content-type': 'application/vnd.elasticsearch+json; compatible-with=6' });
    expectError(res, 400, 'media_type_header_exception', 'Invalid media-type value on headers [Content-Type]');
  });
});

describe('malformed bodies', () => {
  it('answers malformed JSON with x_content_parse_exception caused by json_parse_exception', async () => {
    const res = await t.json('POST', '/books/_search', '{"size": 10, m}');
    const reason = "[1:14] Unexpected character ('m' (code 109)): was expecting double-quote to start field name";
    expectError(res, 400, 'x_content_parse_exception', reason);
    expect(res.body.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason }]);
    expect(res.body.error.caused_by.type).toBe('json_parse_exception');
    expect(res.body.error.caused_by.reason).toMatch(/^Unexpected character \('m' \(code 109\)\): was expecting double-quote to start field name\n at \[Source: .*; line: 1, column: 14\]$/);
  });

  it.each([
    ['POST', '/books/_search', '{'],
    ['POST', '/books/_search', '{"size": }'],
    ['POST', '/books/_search', '[1, 2]'],
    ['POST', '/books/_search', '"just a string"'],
    ['POST', '/books/_search', '{"size": 1}{"size": 2}'],
    ['POST', '/books/_search', '{"query": {"match_all": {}}, "junk": 1}'],
    ['POST', '/books/_count', '{"size": 1}'],
    ['PUT', '/fresh', '{"settings": '],
    ['PUT', '/fresh', '[]'],
    ['PUT', '/fresh', '{"mappings": {"properties": {"x": "keyword"}}}'],
    ['PUT', '/books/_doc/9', '{"title": "Dune"'],
    ['PUT', '/books/_doc/9', '[1]'],
    ['PUT', '/books/_doc/9', 'null'],
    ['POST', '/books/_bulk', '{"index": {}}\n{"a": \n'],
    ['POST', '/books/_bulk', 'not json\n'],
    ['POST', '/books/_bulk', '{"update": {"_id": "1"}}\n{"doc": 1}\n'],
  ])('%s %s %j answers 400 in ES error shape', async (method, path, body) => {
    const res = await t.json(method, path, body, { 'content-type': path.endsWith('_bulk') ? 'application/x-ndjson' : 'application/json' });
    expect(res.status, res.text).toBe(400);
    expectEsHeaders(res);
    expect(res.body.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: expect.any(String), reason: expect.any(String) });
    expect(res.body.error.root_cause[0]).toMatchObject({ type: expect.any(String), reason: expect.any(String) });
    expect(t.engine.has('fresh')).toBe(false);
  });
});

describe('body size limit', () => {
  let small: TestApp;
  beforeAll(() => {
    small = testApp({ maxBodyBytes: 64 });
  });
  afterAll(() => small.close());

  it('answers a body over maxBodyBytes with 413 in ES shape, and takes one under it', async () => {
    const over = await small.json('PUT', '/books/_doc/1', { text: 'x'.repeat(100) });
    expect(over.status).toBe(413);
    expectEsHeaders(over);
    expect(over.body).toMatchObject({ error: { root_cause: [expect.any(Object)], type: expect.any(String), reason: expect.any(String) }, status: 413 });
    expect(small.engine.has('books')).toBe(false);
    const bulk = await small.json('POST', '/_bulk', `{"index":{"_index":"books"}}\n{"text":"${'y'.repeat(100)}"}\n`, { 'content-type': 'application/x-ndjson' });
    expect(bulk.status).toBe(413);
    expect((await small.json('PUT', '/books/_doc/1', { text: 'short' })).status).toBe(201);
  });
});

describe('unknown routes', () => {
  it('answers a path with no handler with ES reason, as a 400', async () => {
    const res = await t.json('GET', '/a/b/c/d/e');
    expectError(res, 400, 'illegal_argument_exception', 'no handler found for uri [/a/b/c/d/e] and method [GET]');
  });

  // ES (RestController.handleUnsupportedHttpMethod) answers a known path with a method it lacks with 405.
  it('answers a known path with an unsupported method with 405', async () => {
    const res = await t.json('PATCH', '/books');
    expect(res.status).toBe(405);
    expect(res.body.error.reason).toBe('Incorrect HTTP method for uri [/books] and method [PATCH], allowed: [DELETE, GET, HEAD, PUT]');
    expectEsHeaders(res);
  });
});

describe('bad input never causes a 500', () => {
  const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('-1', '0', '1', '1.5', '10000', '2147483648', 'true', 'false', '', '_all', '*', 'a:desc', '_score'));
  const segment = fc.oneof(fc.constantFrom('books', 'nope', 'b*', '_all', 'books,nope', 'Bad', '_doc', '_search'), fc.string({ minLength: 1, maxLength: 8 })).map(encodeURIComponent);
  const path = fc.oneof(
    fc.tuple(segment, fc.constantFrom('_search', '_count', '_refresh', '_bulk', '_doc')).map(([i, e]) => `/${i}/${e}`),
    fc.tuple(segment, fc.constantFrom('_doc', '_create'), segment).map(([i, e, id]) => `/${i}/${e}/${id}`),
    segment.map((s) => `/${s}`),
    fc.constantFrom('/_search', '/_bulk', '/_count', '/'),
  );
  const query = fc.dictionary(fc.constantFrom('from', 'size', 'sort', 'track_total_hits', 'rest_total_hits_as_int', '_source', 'refresh', 'routing', 'op_type', 'source', 'pretty'), text, { maxKeys: 3 });
  const body = fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.record({ from: fc.jsonValue({ maxDepth: 1 }), size: fc.jsonValue({ maxDepth: 1 }), sort: fc.jsonValue({ maxDepth: 2 }), track_total_hits: fc.jsonValue({ maxDepth: 1 }), _source: fc.jsonValue({ maxDepth: 2 }), query: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }).map((lines) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n'),
    fc.string({ maxLength: 30 }),
  );

  it('answers every generated request with a status below 500 and, for errors, ES error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD'), path, query, body, async (method, p, q, b) => {
        const search = new URLSearchParams(q).toString();
        const res = await t.json(method, `${p}${search ? `?${search}` : ''}`, method === 'GET' || method === 'HEAD' ? undefined : b, { 'content-type': p.endsWith('_bulk') ? 'application/x-ndjson' : 'application/json' });
        expect(res.status, `${method} ${p}?${search} ${b}\n${res.text}`).toBeLessThan(500);
        expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
        if (res.status >= 400 && method !== 'HEAD' && res.body.error !== undefined) {
          expect(res.body.status).toBe(res.status);
          expect(res.body.error.root_cause.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
