/**
 * Sort ordinals warmed after a refresh (search-index/snapshot-warmers.ts, keyword-key.ts): the
 * index numbers its keyword fields' terms a step per pass of the event loop once a snapshot has
 * nothing to build them from, and keyword sorts give the same pages whether they come before the
 * warm-up ends (they finish it), after it, or after later refreshes (they extend it). A background
 * merge carries the ordinals through: the snapshot it publishes numbers the merged segment's terms
 * already.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';

describe('sort ordinals warm-up', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  const byTag: SortClause[] = [{ kind: 'field', field: 'tag', order: 'asc', missing: '_last' }, { kind: 'field', field: 'n', order: 'asc', missing: '_last' }];
  const page = (index: string, from: number, paging: 'top_k' | 'sorted_runs' = 'sorted_runs') =>
    engine.search(index, searchRequest({ from, size: 7, sort: byTag, paging })).hits.hits.map((h) => h._id);
  const pass = () => new Promise((resolve) => setImmediate(resolve));
  const tag = (i: number) => `t${String((i * 7919) % 20_000).padStart(5, '0')}`;

  it('is finished by a sort that comes first, runs to its end between requests otherwise, and is extended after refreshes', async () => {
    for (const [name, early] of [['early', true], ['late', false]] as const) {
      await engine.createIndex(name, { settings: { number_of_shards: 2, refresh_interval: -1, max_result_window: 100_000 }, mappings: { properties: { tag: { type: 'keyword' }, n: { type: 'long' } } } });
      for (let part = 0; part < 3; part++) {
        await engine.write(Array.from({ length: 10_000 }, (_, k) => ({ action: 'index' as const, index: name, id: String(part * 10_000 + k), source: { tag: tag(part * 10_000 + k), n: k } })));
        engine.refresh(name);
      }
      // 30,000 terms: several steps of the warm-up.
      if (!early) for (let p = 0; p < 20; p++) await pass();
      const at = [0, 9_000, 29_990];
      const expected = at.map((from) => page(name, from, 'top_k'));
      expect(at.map((from) => page(name, from))).toEqual(expected);
      // New terms between the known ones, and a refresh: the ordinals are extended.
      await engine.write([{ action: 'index', index: name, id: 'new', source: { tag: 't09999x', n: -1 } }], 'true');
      expect(page(name, 0)).toEqual(page(name, 0, 'top_k'));
      const where = engine.search(name, searchRequest({ size: 0, trackTotalHits: true, query: { kind: 'range', field: 'tag', lt: 't09999x', boost: 1 } })).hits.total as { value: number };
      expect(page(name, where.value)[0]).toBe('new');
      await engine.deleteIndices(name);
    }
  });

  it('are carried through background merges: after one, every dictionary of the snapshot is numbered, and pages stay right', async () => {
    await engine.createIndex('merges', { settings: { number_of_shards: 1, refresh_interval: -1, max_result_window: 100_000 }, mappings: { properties: { tag: { type: 'keyword' }, n: { type: 'long' } } } });
    const index = engine.resolveOne('merges');
    // A keyword sort after each of the first eight refreshes numbers each new segment. The ninth
    // segment starts a merge of the newest (smallest) segments, itself among them, before any sort
    // has numbered it: the merge numbers it as it carries the ordinals through.
    for (let part = 0, id = 0; part < 9; part++) {
      const size = 600 - part * 40;
      await engine.write(Array.from({ length: size }, (_, k) => ({ action: 'index' as const, index: 'merges', id: String(id + k), source: { tag: tag(id + k), n: k } })));
      id += size;
      engine.refresh('merges');
      if (part < 8) page('merges', 0);
      await index.scheduler.merged();
    }
    const snapshot = index.snapshot();
    const dictionaries = snapshot.shards[0].segments.map((live) => (live.segment.columns.get('tag') as { terms: readonly string[] }).terms);
    expect(dictionaries.length).toBeLessThan(9);
    // Not a warm-up started afresh: the ordinals of the last sort, carried through.
    const carry = snapshot.cache.carries.get('tag');
    expect(carry).toBeDefined();
    for (const dictionary of dictionaries) expect(carry!.dictionaries).toContain(dictionary);
    for (const from of [0, 1_000, 4_500]) expect(page('merges', from)).toEqual(page('merges', from, 'top_k'));
  });
});
