/**
 * The periodic refresh (search-index/index-scheduler.ts): it seals one shard per pass of the event
 * loop, so that no callback holds the loop for every shard's work, and publishes them to searches
 * once, at its end; `refresh=wait_for` writers are answered once their writes are visible.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';

/** The hit count of a search (always an object here: no `rest_total_hits_as_int`). */
const total = (engine: Engine, index: string) => (engine.search(index, searchRequest({ size: 0 })).hits.total as { value: number }).value;

describe('periodic refresh', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  it('publishes the shards it refreshed in separate passes of the loop at once, at the end', async () => {
    await engine.createIndex('p', { settings: { number_of_shards: 5, refresh_interval: '20ms' } });
    for (let round = 1; round <= 5; round++) {
      await engine.write(Array.from({ length: 100 }, (_, i) => ({ action: 'index' as const, index: 'p', id: `${round}-${i}`, source: { n: i } })));
      // Look between every two passes of the loop until the round's writes show. Each refresh
      // publishes once, at its end; one under way when the write came has sealed some shards before
      // it (their share shows at the next refresh, as shards refresh apart in Elasticsearch too), so
      // at most one state between the round's first and last; published shard by shard, up to four.
      const seen = new Set<number>();
      for (let passes = 0; ; passes++) {
        const seeing = total(engine, 'p');
        seen.add(seeing);
        if (seeing === round * 100) break;
        expect(passes).toBeLessThan(100_000);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const states = [...seen].sort((a, b) => a - b);
      expect(states.length, JSON.stringify(states)).toBeLessThanOrEqual(3);
      expect(states[0]).toBeGreaterThanOrEqual((round - 1) * 100);
      expect(states.at(-1)).toBe(round * 100);
    }
    const shards = engine.resolveOne('p').shards;
    expect(shards.every((shard) => !shard.writes.dirty)).toBe(true);
  });

  it('answers refresh=wait_for writers once the periodic refresh has made their writes visible, whenever they come', async () => {
    await engine.createIndex('w', { settings: { number_of_shards: 3, refresh_interval: '5ms' } });
    const pass = () => new Promise((resolve) => setImmediate(resolve));
    // Writers arriving at every moment, some between two shards' passes of a refresh under way: each,
    // once answered, finds its document.
    const unseen: string[] = [];
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        for (let p = 0; p < i % 17; p++) await pass();
        await new Promise((resolve) => setTimeout(resolve, i % 7));
        const id = String(i);
        await engine.write([{ action: 'index', index: 'w', id, source: { n: i } }], 'wait_for');
        const found = engine.search('w', searchRequest({ size: 1, query: { kind: 'ids', values: [id], boost: 1 } })).hits.hits.length;
        if (found === 0) unseen.push(id);
      }),
    );
    expect(unseen).toEqual([]);
    expect(total(engine, 'w')).toBe(300);
  });
});
