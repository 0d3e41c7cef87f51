import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { shardFor } from '../../src/engine/routing.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir, tempEngine } from './helpers.ts';

describe('search with routing', () => {
  let engine: Engine;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ engine, close } = tempEngine());
    await engine.createIndex('r', { settings: { number_of_shards: 5 } });
    await engine.write(Array.from({ length: 100 }, (_, i) => ({ action: 'index' as const, index: 'r', id: String(i), source: { i } })), 'true');
  });
  afterAll(() => close());

  it('searches only the shards the routing values pick', () => {
    const shard = shardFor('7', 5);
    const expected = Array.from({ length: 100 }, (_, i) => String(i)).filter((id) => shardFor(id, 5) === shard);
    const response = engine.search('r', searchRequest({ size: 100, trackTotalHits: true }), '7');
    expect(response._shards.total).toBe(1);
    expect(response.hits.hits.map((h) => h._id).sort()).toEqual(expected.sort());
    expect(response.hits.total).toEqual({ value: expected.length, relation: 'eq' });
  });

  it('routed searches of a snapshot share one narrowed snapshot per set of shards picked, whatever the routing values', () => {
    const ids = Array.from({ length: 100 }, (_, i) => String(i));
    const [a, b] = ids.filter((id) => shardFor(id, 5) === shardFor('7', 5) && id !== '7');
    const other = ids.find((id) => shardFor(id, 5) !== shardFor('7', 5))!;
    const sort = [{ kind: 'field' as const, field: 'i', order: 'desc' as const, missing: '_last' as const }];
    const page = (routing: string) => engine.search('r', searchRequest({ size: 3, sort }), routing).hits.hits.map((h) => h._id);
    const narrowed = () => [...engine.resolveOne('r').snapshot().cache.narrowed.entries()];
    const first = page('7');
    const kept = narrowed();
    expect(kept.map(([key]) => key)).toContain(`${shardFor('7', 5)}`);
    // Other values routed to the same shard: the same snapshot, with its layout and merges.
    expect(page(a)).toEqual(first);
    expect(page(b)).toEqual(first);
    expect(narrowed()).toEqual(kept);
    expect(page(other)).not.toEqual(first);
    expect(narrowed().length).toBe(kept.length + 1);
  });
});

describe('_routing on hits', () => {
  const routingOf = (i: number) => (i % 3 === 0 ? `user-${i % 7}` : undefined);
  const routed = (engine: Engine, source: false | undefined) =>
    engine
      .search('r', searchRequest({ size: 200, sort: [{ kind: 'field', field: 'i', order: 'asc', missing: '_last' }], ...(source === false && { source }) }))
      .hits.hits.map((h) => [h._id, h._routing]);
  const expected = Array.from({ length: 120 }, (_, i) => [String(i), routingOf(i)]);

  it('comes from the segment, with or without _source, across merges and a restart', async () => {
    const { dir, remove } = tempDir();
    let engine = Engine.open(DocStore.open(dir));
    try {
      await engine.createIndex('r', { settings: { number_of_shards: 2 } });
      // Twelve refreshes of ten documents: more segments than a shard keeps, so some are merged.
      for (let at = 0; at < 120; at += 10) {
        const ops = Array.from({ length: 10 }, (_, j) => ({ action: 'index' as const, index: 'r', id: String(at + j), source: { i: at + j }, routing: routingOf(at + j) }));
        await engine.write(ops, 'true');
      }
      expect(routed(engine, false)).toEqual(expected);
      expect(routed(engine, undefined)).toEqual(expected);
      await engine.close();
      engine = Engine.open(DocStore.open(dir));
      expect(routed(engine, false)).toEqual(expected);
    } finally {
      await engine.close();
      remove();
    }
  });
});
