import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { shardFor } from '../../src/engine/routing.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { tempEngine } from './helpers.ts';

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
});
