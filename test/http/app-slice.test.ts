/**
 * `slice` over HTTP, on a node whose every search is Elasticsearch's algorithm (`search.paging:
 * top_k`, the stand-in cluster of front mode): a point in time's slices walked with `search_after`
 * in parallel, as a front walks a cluster, give every document once with the unsliced sort values;
 * a sliced scroll likewise; the refusals have Elasticsearch's shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectShardFailure, testApp, type Json, type TestApp } from './app-helpers.ts';

let t: TestApp;
const DOCS = 257;

beforeAll(async () => {
  t = testApp({ settings: { searchPaging: 'top_k' } });
  await t.createIndex('items', { number_of_shards: 3 }, { properties: { price: { type: 'long' } } });
  const lines = Array.from({ length: DOCS }, (_, i) => [{ index: { _index: 'items', _id: `i${i}` } }, { price: i % 17 }]).flat();
  expect((await t.bulk('/_bulk', lines, '?refresh=true')).status).toBe(200);
});
afterAll(() => t.close());

describe('slice', () => {
  it('walks the slices of a point in time in parallel: each document once, with the sort values of the unsliced walk', async () => {
    const pit = (await t.json('POST', '/items/_pit?keep_alive=1m')).body.id;
    const walk = async (slice?: { id: number; max: number }) => {
      const hits: Json[] = [];
      let after: unknown[] | undefined;
      for (;;) {
        const res = await t.json('POST', '/_search', { size: 20, _source: false, pit: { id: pit }, sort: [{ price: 'desc' }], ...(slice && { slice }), ...(after && { search_after: after }) });
        expect(res.status, res.text).toBe(200);
        if (res.body.hits.hits.length === 0) return hits;
        hits.push(...res.body.hits.hits);
        after = hits[hits.length - 1].sort;
      }
    };
    const whole = await walk();
    expect(whole).toHaveLength(DOCS);
    const sortOf = new Map(whole.map((hit) => [hit._id, hit.sort]));
    const slices = await Promise.all([0, 1, 2, 3, 4, 5, 6].map((id) => walk({ id, max: 7 })));
    const ids = slices.flat().map((hit) => hit._id);
    expect(new Set(ids).size).toBe(DOCS);
    expect(ids).toHaveLength(DOCS);
    for (const hit of slices.flat()) expect(hit.sort).toEqual(sortOf.get(hit._id));
    await t.json('DELETE', '/_pit', { id: pit });
  });

  it('scrolls the slices of a scroll: each document once', async () => {
    const ids: string[] = [];
    for (let id = 0; id < 4; id++) {
      let res = await t.json('POST', '/items/_search?scroll=1m&size=50', { slice: { id, max: 4 } });
      while (res.body.hits.hits.length > 0) {
        ids.push(...res.body.hits.hits.map((hit: Json) => hit._id));
        res = await t.json('POST', '/_search/scroll', { scroll: '1m', scroll_id: res.body._scroll_id });
      }
    }
    expect(new Set(ids).size).toBe(DOCS);
    expect(ids).toHaveLength(DOCS);
  });

  it('is refused as Elasticsearch refuses it', async () => {
    expectError(await t.json('POST', '/items/_search', { slice: { id: 0, max: 2 } }), 400, 'action_request_validation_exception', 'Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;');
    const bad = await t.json('POST', '/items/_search?scroll=1m', { slice: { id: 0, max: 1 } });
    expectError(bad, 400, 'x_content_parse_exception', '[slice] failed to parse field [max]');
    expect(bad.body.error.caused_by).toMatchObject({ type: 'illegal_argument_exception', reason: 'max must be greater than 1' });
    expectShardFailure(
      await t.json('POST', '/items/_search?scroll=1m', { slice: { id: 0, max: 2000 } }),
      'illegal_argument_exception',
      'The number of slices [2000] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
    );
  });
});
