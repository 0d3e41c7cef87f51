/**
 * Deep pages reuse a segment's cached sorted order; deletes, updates and merges that happen after
 * it was cached must still show in the very next page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { sortedOrderCount } from '../../src/engine/search/query-phase.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { tempEngine } from './helpers.ts';

const byValue: SortClause[] = [{ kind: 'field', field: 'v', order: 'desc', missing: '_last' }];

describe('cached segment orders', () => {
  let engine: Engine;
  let close: () => Promise<void>;
  const model = new Map<string, number>();
  beforeAll(async () => {
    ({ engine, close } = tempEngine());
    await engine.createIndex('c', { settings: { number_of_shards: 1, refresh_interval: -1 } });
    await write(Array.from({ length: 300 }, (_, i) => [String(i), (i * 37) % 101] as const));
  });
  afterAll(() => close());

  async function write(docs: readonly (readonly [string, number | undefined])[]) {
    await engine.write(docs.map(([id, v]) => (v === undefined ? { action: 'delete' as const, index: 'c', id } : { action: 'index' as const, index: 'c', id, source: { v } })));
    for (const [id, v] of docs) {
      model.delete(id);
      if (v !== undefined) model.set(id, v);
    }
    engine.refresh('c');
  }

  /** Model order: value desc, then write order (an update moves a document to the end). */
  const expected = () => [...model.entries()].map(([id, v], at) => ({ id, v, at })).sort((a, b) => b.v - a.v || a.at - b.at).map((d) => d.id);
  const page = (from: number, size: number) => engine.search('c', searchRequest({ from, size, sort: byValue })).hits.hits.map((h) => h._id);

  it('reflects deletes, updates and merges made after a deep page cached the order', async () => {
    const check = () => {
      const all = expected();
      for (const from of [0, 100, 200, all.length - 7]) expect(page(from, 10)).toEqual(all.slice(from, from + 10));
    };
    check();
    await write([['5', undefined], ['17', undefined], ['42', 1000], ['43', -1]]);
    check();
    for (let round = 0; round < 12; round++) await write([[String(300 + round), round % 3 === 0 ? 1000 : 50], [String(round * 7), undefined]]);
    check();
  });

  it('clearCaches drops the kept orders, and the next pages are the same', () => {
    const segments = () => engine.resolveOne('c').snapshot().shards.flatMap((shard) => shard.segments.map((live) => live.segment));
    const all = expected();
    expect(page(all.length - 7, 10)).toEqual(all.slice(-7));
    expect(segments().some((segment) => sortedOrderCount(segment) > 0)).toBe(true);
    engine.clearCaches('c');
    expect(segments().every((segment) => sortedOrderCount(segment) === 0)).toBe(true);
    for (const from of [0, 150, all.length - 7]) expect(page(from, 10)).toEqual(all.slice(from, from + 10));
  });
});
