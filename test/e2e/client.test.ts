/**
 * The real server on a free port, driven by the official Elasticsearch client (8.19): create an
 * index over several shards, bulk-load documents with many equal sort keys, page through with
 * size/from/sort, and compare the concatenated pages with the reference order.
 */
import { errors } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { inProcessServer } from './in-process-server.ts';

const SHARDS = 4;
const DOCS = 1000;
/** Few distinct values, so most sort keys tie and the tie-break decides the order. */
const doc = (i: number) => ({ rank: i % 7, group: `g${i % 3}`, title: `doc ${i}` });

describe('official client against the real server', () => {
  const running = inProcessServer();

  it('creates an index, bulk-loads, and pages through it in the reference order', async () => {
    await running.client.indices.create({ index: 'items', settings: { number_of_shards: SHARDS }, mappings: { properties: { rank: { type: 'integer' }, group: { type: 'keyword' } } } });
    const operations = Array.from({ length: DOCS }, (_, i) => [{ index: { _index: 'items', _id: String(i) } }, doc(i)]).flat();
    const bulk = await running.client.bulk({ operations, refresh: true });
    expect(bulk.errors).toBe(false);
    expect(bulk.items).toHaveLength(DOCS);

    // Reference: rank desc, group asc, then shard index, then write order within the shard.
    const expected = Array.from({ length: DOCS }, (_, i) => i).sort((a, b) => {
      const [x, y] = [doc(a), doc(b)];
      return y.rank - x.rank || (x.group < y.group ? -1 : x.group > y.group ? 1 : 0) || shardFor(String(a), SHARDS) - shardFor(String(b), SHARDS) || a - b;
    });

    const pages: string[] = [];
    const size = 37;
    for (let from = 0; from < DOCS + size; from += size) {
      const page = await running.client.search({ index: 'items', from, size, sort: [{ rank: 'desc' }, { group: { order: 'asc' } }], track_total_hits: true });
      expect(page.hits.total).toEqual({ value: DOCS, relation: 'eq' });
      for (const hit of page.hits.hits) expect(hit.sort).toEqual([doc(Number(hit._id)).rank, doc(Number(hit._id)).group]);
      pages.push(...page.hits.hits.map((h) => h._id!));
    }
    expect(pages).toEqual(expected.map(String));
    expect(new Set(pages).size).toBe(DOCS);

    const count = await running.client.count({ index: 'items' });
    expect(count.count).toBe(DOCS);
    const got = await running.client.get({ index: 'items', id: '42' });
    expect(got._source).toEqual(doc(42));
  });

  it('returns errors as ResponseError with ES status and type', async () => {
    const failure = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (e) {
        expect(e).toBeInstanceOf(errors.ResponseError);
        const error = e as errors.ResponseError;
        return { status: error.statusCode, type: (error.body as { error: { type: string; root_cause: { type: string; reason: string }[] } }).error };
      }
      throw new Error('expected the request to fail');
    };
    const window = await failure(() => running.client.search({ index: 'items', from: 10_000, size: 10 }));
    expect(window.status).toBe(400);
    expect(window.type.type).toBe('search_phase_execution_exception');
    expect(window.type.root_cause[0].reason).toBe(
      'Result window is too large, from + size must be less than or equal to: [10000] but was [10010]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.',
    );
    const missing = await failure(() => running.client.search({ index: 'nope' }));
    expect(missing.status).toBe(404);
    expect(missing.type.type).toBe('index_not_found_exception');
    const negative = await failure(() => running.client.search({ index: 'items', from: -1 }));
    expect(negative.status).toBe(400);
    expect(negative.type.type).toBe('illegal_argument_exception');
    const conflict = await failure(() => running.client.create({ index: 'items', id: '1', document: { rank: 1 } }));
    expect(conflict.status).toBe(409);
    expect(conflict.type.type).toBe('version_conflict_engine_exception');
  });

  it('answers the client helpers: info, exists, delete', async () => {
    const info = await running.client.info();
    expect(info.tagline).toBe('You Know, for Search');
    expect(await running.client.indices.exists({ index: 'items' })).toBe(true);
    expect(await running.client.indices.exists({ index: 'nope' })).toBe(false);
    await running.client.indices.delete({ index: 'items' });
    expect(await running.client.indices.exists({ index: 'items' })).toBe(false);
  });
});
