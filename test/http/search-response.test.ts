/**
 * Search responses splice each stored `_source` in as the text it was stored as: the response is the
 * JSON `JSON.stringify` would give, and a document comes back byte for byte as it was sent.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RawJson } from '../../src/engine/raw-json.ts';
import type { Hit, SearchResponse } from '../../src/engine/search/search.ts';
import { searchResponseBody } from '../../src/http/search-response.ts';
import { testApp, type TestApp } from './app-helpers.ts';

/** JSON text with arbitrary (valid) whitespace between tokens, as a client may send it. */
const spaced = (value: unknown, gap: string) => JSON.stringify(value, null, gap.length > 0 ? gap : undefined);

const hitArb: fc.Arbitrary<Hit> = fc
  .record({
    _index: fc.string(),
    _id: fc.oneof(fc.string(), fc.string({ unit: 'binary' })),
    _score: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
    _routing: fc.option(fc.string(), { nil: undefined }),
    source: fc.option(fc.tuple(fc.jsonValue().map((v) => ({ v })), fc.constantFrom('', ' ', '\t', '  ')), { nil: undefined }),
    sort: fc.option(fc.array(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0), fc.boolean(), fc.constant(null))), { nil: undefined }),
  })
  // A stored source is its text as it was sent, whitespace included.
  // (Stored sources are read as bytes; a source made in memory is text.)
  .chain((hit) => fc.tuple(fc.constant(hit), fc.boolean()))
  .map(([{ source, ...hit }, asBytes]) => {
    const text = source && spaced(source[0], source[1]);
    return { ...hit, ...(text !== undefined && { _source: new RawJson(asBytes ? new Uint8Array(Buffer.from(text)) : text) }) } as Hit;
  });

/** Every shape of the fields before the hits: a cursor's id first, shard failures, each form of `total`. */
const headArb = fc.record({
  pit: fc.oneof(fc.constant(undefined), fc.string()),
  took: fc.nat(),
  timedOut: fc.boolean(),
  shards: fc.oneof(
    fc.record({ total: fc.nat(), successful: fc.nat(), skipped: fc.nat(), failed: fc.nat() }),
    fc.record({ total: fc.nat(), successful: fc.nat(), skipped: fc.nat(), failed: fc.nat(), failures: fc.array(fc.record({ shard: fc.nat(), index: fc.string() }), { maxLength: 2 }) }),
  ),
  total: fc.oneof(fc.constant(undefined), fc.nat(), fc.record({ value: fc.nat(), relation: fc.constantFrom('eq' as const, 'gte' as const) })),
  maxScore: fc.oneof(fc.constant(null), fc.double(), fc.constantFrom(NaN, Infinity)),
});

describe('search response text', () => {
  it('is the JSON the response serializes to, with each _source spliced in as stored', () => {
    fc.assert(
      fc.property(fc.array(hitArb, { maxLength: 20 }), headArb, (hits, { pit, took, timedOut, shards, total, maxScore }) => {
        const body = { ...(pit !== undefined && { pit_id: pit }), took, timed_out: timedOut, _shards: shards, hits: { ...(total !== undefined && { total }), max_score: maxScore, hits } } as SearchResponse;
        const text = Buffer.from(searchResponseBody(body)).toString('utf8');
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(body)));
        // With no stored text spliced in, it is JSON.stringify's text exactly.
        const bare = { ...body, hits: { ...body.hits, hits: hits.map(({ _source, ...hit }) => hit) } } as SearchResponse;
        expect(Buffer.from(searchResponseBody(bare)).toString('utf8')).toBe(JSON.stringify(bare));
        for (const hit of hits) if (hit._source instanceof RawJson) expect(text).toContain(hit._source.text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('over HTTP', () => {
  let app: TestApp;
  afterEach(() => app?.close());

  it('returns a document byte for byte as it was sent, through _search and _bulk alike; filter_path and pretty still work', async () => {
    app = testApp();
    const sent = '{ "title" : "Dune",\n  "year": 1965, "tags": [ "sf" , "classic" ] }';
    const put = await app.app.request('/books/_doc/1?refresh=true', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: sent });
    expect(put.status).toBe(201);
    const lines = '{"index":{"_id":"2"}}\n{"title":   "Emma" ,"year":1815}\n';
    expect((await app.json('POST', '/books/_bulk?refresh=true', lines, { 'content-type': 'application/x-ndjson' })).body.errors).toBe(false);
    const res = await app.app.request('/books/_search?sort=year:desc');
    const text = await res.text();
    expect(text).toContain(`"_source":${sent}`);
    expect(text).toContain('"_source":{"title":   "Emma" ,"year":1815}');
    expect(JSON.parse(text).hits.hits.map((h: { _id: string }) => h._id)).toEqual(['1', '2']);
    const filtered = await app.json('GET', '/books/_search?sort=year:desc&filter_path=hits.hits._source.title');
    expect(filtered.body).toEqual({ hits: { hits: [{ _source: { title: 'Dune' } }, { _source: { title: 'Emma' } }] } });
    const pretty = await app.json('GET', '/books/_search?sort=year:desc&pretty');
    expect(pretty.body.hits.hits[0]._source).toEqual({ title: 'Dune', year: 1965, tags: ['sf', 'classic'] });
    const partial = await app.json('GET', '/books/_search?sort=year:desc&_source=year');
    expect(partial.body.hits.hits.map((h: { _source: unknown }) => h._source)).toEqual([{ year: 1965 }, { year: 1815 }]);
    expect((await app.json('GET', '/books/_doc/1')).body._source).toEqual({ title: 'Dune', year: 1965, tags: ['sf', 'classic'] });
  });
});
