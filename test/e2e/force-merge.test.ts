/**
 * `_forcemerge` through the official client against the real server process: the shards come down to
 * one segment each, and after `kill -9` and a start on the same data directory they load that one
 * segment (the merge was flushed) and answer the same pages.
 */
import { Client } from '@elastic/elasticsearch';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { killedAfter, killServers } from './server-process.ts';

afterAll(killServers);

const pageIds = async (client: Client) =>
  Promise.all([0, 95, 290].map(async (from) => (await client.search({ index: 'items', from, size: 10, sort: [{ price: 'desc' }, { n: 'asc' }] })).hits.hits.map((hit) => hit._id)));

describe('_forcemerge with the official client', () => {
  it('merges each shard to one segment, durably: a start after kill -9 loads it and pages the same', async () => {
    const data = tempDir();
    try {
      let before: (string | undefined)[][] = [];
      await killedAfter(data.dir, async (url) => {
        const client = new Client({ node: url });
        await client.indices.create({ index: 'items', settings: { number_of_shards: 2 } });
        for (let batch = 0; batch < 6; batch++) {
          const operations = Array.from({ length: 50 }, (_, i) => batch * 50 + i).flatMap((n) => [{ index: { _index: 'items', _id: `i${n}` } }, { n, price: (n * 7919) % 500 }]);
          expect((await client.bulk({ operations, refresh: true })).errors).toBe(false);
        }
        const segmentsBefore = (await client.indices.stats({ index: 'items' }))._all.primaries?.segments?.count;
        expect(segmentsBefore).toBeGreaterThan(2);
        before = await pageIds(client);
        const merged = await client.indices.forcemerge({ index: 'items', max_num_segments: 1 });
        expect(merged._shards).toEqual({ total: 4, successful: 2, failed: 0 });
        expect((await client.indices.stats({ index: 'items' }))._all.primaries?.segments?.count).toBe(2);
        expect(await pageIds(client)).toEqual(before);
      });
      await killedAfter(data.dir, async (url) => {
        const client = new Client({ node: url });
        expect((await client.indices.stats({ index: 'items' }))._all.primaries?.segments?.count).toBe(2);
        expect((await client.count({ index: 'items' })).count).toBe(300);
        expect(await pageIds(client)).toEqual(before);
      });
    } finally {
      data.remove();
    }
  });
});
