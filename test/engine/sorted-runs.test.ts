/**
 * The life of sorted runs: built by deep pages, kept and reused, filtered when deletes change,
 * freed when their segment is merged away, their index is deleted, `_cache/clear` asks, or the
 * budget evicts them; built in the background after a cold shallow page. "Freed" is checked on the
 * engine's own wasm instance: its allocator's blocks in use go back to what the live runs hold.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { WasmKernels, wasmModule } from '../../src/core/index.ts';
import { Engine, type WriteOp } from '../../src/engine/engine.ts';
import { OrderKey } from '../../src/engine/search/order-key.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { planSort } from '../../src/engine/search/sort/plan.ts';
import { segmentsInTieOrder } from '../../src/engine/search/sort/tie-break.ts';
import { tempEngine } from './helpers.ts';

const byValue: SortClause[] = [{ kind: 'field', field: 'v', order: 'desc', missing: '_last' }];
const byTag: SortClause[] = [{ kind: 'field', field: 'tag', order: 'asc', missing: '_first' }, { kind: 'doc', order: 'desc' }];

const MAPPINGS = { properties: { v: { type: 'long' }, tag: { type: 'keyword' } } };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function open(budget = 1 << 30, build: 'release' | 'debug' = 'release', maxSortedRuns?: number) {
  const kernels = new WasmKernels(wasmModule(build));
  const { engine, close } = tempEngine({ kernels, settings: { sortedRunsCacheBytes: budget }, maxSortedRuns });
  cleanups.push(close);
  return { engine, kernels };
}

const docs = (from: number, to: number, index = 'r'): WriteOp[] =>
  Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return { action: 'index', index, id: String(i), source: { v: (i * 37) % 101, tag: `t${(i * 13) % 7}` } };
  });

/** Blocks the live runs and maps hold: positions plus one array per key, per run; one per map. */
function expectedBlocks(engine: Engine): number {
  let blocks = 0;
  for (const index of engine.indices()) {
    for (const segment of index.segments()) blocks += engine.runs.blocksOf(segment);
  }
  return blocks;
}

describe('sorted runs', () => {
  it('a deep page builds runs that later pages reuse; deletes filter them; answers match top_k', async () => {
    const { engine } = open();
    await engine.createIndex('r', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 500));
    engine.refresh('r');
    const page = (from: number, paging: 'sorted_runs' | 'top_k' = 'sorted_runs', sort = byValue) =>
      engine.search('r', searchRequest({ from, size: 7, sort, paging, source: false })).hits.hits.map((h) => [h._id, h.sort]);
    expect(page(480)).toEqual(page(480, 'top_k'));
    const built = engine.runsHeld([engine.resolveOne('r')]);
    expect(built.count).toBe(engine.resolveOne('r').segments().length);
    expect(page(3)).toEqual(page(3, 'top_k'));
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(built.count);
    await engine.write([{ action: 'delete', index: 'r', id: '7' }, { action: 'delete', index: 'r', id: '300' }, ...docs(0, 3)]);
    engine.refresh('r');
    for (const from of [0, 100, 490]) expect(page(from)).toEqual(page(from, 'top_k'));
    for (const from of [0, 250, 490]) expect(page(from, 'sorted_runs', byTag)).toEqual(page(from, 'top_k', byTag));
  });

  it('frees the runs of segments merged away, of a deleted index, and on _cache/clear', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('r', { settings: { number_of_shards: 1, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    const deep = () => {
      engine.search('r', searchRequest({ from: 10_000, size: 5, sort: byValue, source: false }));
      engine.search('r', searchRequest({ from: 10_000, size: 5, sort: byTag, source: false }));
    };
    // Twenty refreshes of small batches: the shard keeps at most eight segments, so merges drop some.
    for (let batch = 0; batch < 20; batch++) {
      await engine.write(docs(batch * 50, batch * 50 + 50));
      engine.refresh('r');
      await engine.resolveOne('r').scheduler.merged();
      deep();
      expect(kernels.inUse().blocks).toBe(expectedBlocks(engine));
    }
    expect(engine.resolveOne('r').segments().length).toBeLessThanOrEqual(8);
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(2 * engine.resolveOne('r').segments().length);

    engine.clearCaches('r');
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(0);
    expect(kernels.inUse().blocks).toBe(0);
    deep();
    expect(kernels.inUse().blocks).toBeGreaterThan(0);
    await engine.deleteIndices('r');
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('a write still committing when its index is deleted leaves no run behind (index sorting)', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('s', { settings: { refresh_interval: -1, index: { sort: { field: 'v' } } }, mappings: MAPPINGS });
    const writing = engine.write(docs(0, 20, 's'), 'true');
    await engine.deleteIndices('s');
    await writing;
    expect(engine.indices()).toEqual([]);
    expect(engine.runStats().count).toBe(0);
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('keeps the runs within the budget, evicting the least recently used', async () => {
    const { engine, kernels } = open(20_000);
    await engine.createIndex('r', { settings: { number_of_shards: 1, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    await engine.write(docs(0, 1000));
    engine.refresh('r');
    const sorts: SortClause[][] = [byValue, byTag, [{ kind: 'field', field: 'v', order: 'asc', missing: '_first' }], [{ kind: 'doc', order: 'desc' }]];
    const pages = sorts.map((sort) => engine.search('r', searchRequest({ from: 900, size: 10, sort, paging: 'top_k' })).hits.hits.map((h) => h._id));
    for (let round = 0; round < 3; round++) {
      sorts.forEach((sort, s) => {
        expect(engine.search('r', searchRequest({ from: 900, size: 10, sort })).hits.hits.map((h) => h._id)).toEqual(pages[s]);
        const stats = engine.runStats();
        expect(stats.memory_size_in_bytes).toBeLessThanOrEqual(20_000);
      });
    }
    expect(engine.runStats().evictions).toBeGreaterThan(0);
    expect(kernels.inUse().blocks).toBe(expectedBlocks(engine));
  });

  it('keeps at most the most runs allowed, whatever their bytes, evicting the least recently used', async () => {
    const { engine, kernels } = open(1 << 30, 'release', 6);
    await engine.createIndex('r', { settings: { number_of_shards: 1, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    // Three segments, four sorts: twelve runs wanted, six allowed.
    for (const [from, to] of [[0, 400], [400, 700], [700, 1000]]) {
      await engine.write(docs(from, to));
      engine.refresh('r');
    }
    const sorts: SortClause[][] = [byValue, byTag, [{ kind: 'field', field: 'v', order: 'asc', missing: '_first' }], [{ kind: 'doc', order: 'desc' }]];
    const pages = sorts.map((sort) => engine.search('r', searchRequest({ from: 900, size: 10, sort, paging: 'top_k' })).hits.hits.map((h) => h._id));
    for (let round = 0; round < 3; round++) {
      sorts.forEach((sort, s) => {
        expect(engine.search('r', searchRequest({ from: 900, size: 10, sort })).hits.hits.map((h) => h._id)).toEqual(pages[s]);
        expect(engine.runStats().count).toBeLessThanOrEqual(6);
      });
    }
    expect(engine.runStats().evictions).toBeGreaterThan(0);
    expect(kernels.inUse().blocks).toBe(expectedBlocks(engine));
  });

  it('a cold shallow page answers by top-k and builds the run between requests', async () => {
    const { engine } = open();
    await engine.createIndex('r', { settings: { number_of_shards: 1, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    await engine.write(docs(0, 2000));
    engine.refresh('r');
    const first = engine.search('r', searchRequest({ size: 5, sort: byValue })).hits.hits.map((h) => h._id);
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(0);
    await engine.runs.settled();
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(1);
    expect(engine.runStats().background_builds).toBe(1);
    expect(engine.search('r', searchRequest({ size: 5, sort: byValue })).hits.hits.map((h) => h._id)).toEqual(first);

    // _cache/clear also forgets builds still queued: a cleared index stays cold until asked again.
    engine.clearCaches('r');
    engine.search('r', searchRequest({ size: 5, sort: byTag }));
    expect(engine.runStats().pending_builds).toBe(1);
    engine.clearCaches('r');
    expect(engine.runStats().pending_builds).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(engine.runsHeld([engine.resolveOne('r')]).count).toBe(0);
  });

  it("a snapshot's sorted pages reuse one laid-out merge until the cache frees a run or map, then lay it out again", async () => {
    // Room for one sort's runs at a time: each sort's runs evict the other's.
    const { engine, kernels } = open(20_000);
    await engine.createIndex('r', { settings: { number_of_shards: 2, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    for (const [from, to] of [[0, 300], [300, 500], [500, 800]]) {
      await engine.write(docs(from, to));
      engine.refresh('r');
    }
    const snapshot = () => engine.resolveOne('r').snapshot();
    const laidOut = (sort: SortClause[]) => engine.runs.laidOut(segmentsInTieOrder([snapshot()], () => false).segments, planSort(OrderKey.ofSort(sort), [snapshot()], [undefined]).runKey);
    const page = (from: number, sort: SortClause[], paging: 'sorted_runs' | 'top_k' = 'sorted_runs') =>
      engine.search('r', searchRequest({ from, size: 9, sort, paging, source: false })).hits.hits.map((h) => [h._id, h.sort]);
    const want = [0, 300, 795].map((from) => page(from, byValue, 'top_k'));
    const wantByTag = [0, 400].map((from) => page(from, byTag, 'top_k'));

    expect(laidOut(byValue)).toBeUndefined();
    expect(page(795, byValue)).toEqual(want[2]);
    const merge = laidOut(byValue);
    expect(merge?.inputs.length).toBe(engine.resolveOne('r').segments().length);
    // Every page of the snapshot, at any depth, from the one layout.
    expect([0, 300, 795].map((from) => page(from, byValue))).toEqual(want);
    expect(laidOut(byValue)).toBe(merge);

    // The other sort's runs evict these: the layout names freed memory, so it is dropped.
    expect([0, 400].map((from) => page(from, byTag))).toEqual(wantByTag);
    expect(engine.runStats().evictions).toBeGreaterThan(0);
    expect(laidOut(byValue)).toBeUndefined();
    expect([0, 300, 795].map((from) => page(from, byValue))).toEqual(want);
    expect(laidOut(byValue)).not.toBe(merge);
    expect(laidOut(byValue)).toBeDefined();

    // A new snapshot (a delete) gets layouts of its own.
    await engine.write([{ action: 'delete', index: 'r', id: '5' }]);
    engine.refresh('r');
    expect(laidOut(byValue)).toBeUndefined();
    expect(page(0, byValue)).toEqual(page(0, byValue, 'top_k'));
    expect(kernels.inUse().blocks).toBe(expectedBlocks(engine));
  });

  it("pages read from a laid-out merge's kept blocks are the pages top_k finds, at any depth and size", async () => {
    const { engine } = open();
    await engine.createIndex('r', { settings: { number_of_shards: 3, refresh_interval: -1, max_result_window: 100_000 }, mappings: MAPPINGS });
    for (const [from, to] of [[0, 250], [250, 400], [400, 700]]) {
      await engine.write(docs(from, to));
      engine.refresh('r');
    }
    const page = (from: number, size: number, sort: SortClause[], paging: 'sorted_runs' | 'top_k') =>
      engine.search('r', searchRequest({ from, size, sort, paging, source: false })).hits.hits.map((h) => [h._id, h.sort]);
    // The first page lays the merge out (every segment is sorted whole by a page this deep).
    page(650, 10, byValue, 'sorted_runs');
    const snapshot = engine.resolveOne('r').snapshot();
    const merge = engine.runs.laidOut(segmentsInTieOrder([snapshot], () => false).segments, planSort(OrderKey.ofSort(byValue), [snapshot], [undefined]).runKey);
    expect(merge).toBeDefined();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 720 }), fc.integer({ min: 0, max: 150 })), { minLength: 1, maxLength: 12 }), (pages) => {
        for (const [from, size] of pages) expect(page(from, size, byValue, 'sorted_runs')).toEqual(page(from, size, byValue, 'top_k'));
      }),
      { numRuns: 60 },
    );
    // The same merge served them all, its blocks kept within their bound.
    expect(engine.runs.laidOut(segmentsInTieOrder([snapshot], () => false).segments, planSort(OrderKey.ofSort(byValue), [snapshot], [undefined]).runKey)).toBe(merge);
    expect(merge!.blocks.size).toBeGreaterThan(0);
    expect(merge!.blocks.size).toBeLessThanOrEqual(64);
  });

  it('index sorting builds the runs of every new segment as it is sealed', async () => {
    const { engine } = open();
    await engine.createIndex('s', {
      settings: { number_of_shards: 2, refresh_interval: -1, index: { sort: { field: ['tag', 'v'], order: ['asc', 'desc'] } } },
      mappings: { properties: { tag: { type: 'keyword' }, v: { type: 'long' } } },
    });
    await engine.write(docs(0, 300, 's'));
    engine.refresh('s');
    const segments = engine.resolveOne('s').segments().length;
    expect(engine.runsHeld([engine.resolveOne('s')]).count).toBe(segments);
    const sort: SortClause[] = [{ kind: 'field', field: 'tag', order: 'asc', missing: '_last', mode: 'min' }, { kind: 'field', field: 'v', order: 'desc', missing: '_last', mode: 'max' }];
    const hits = engine.search('s', searchRequest({ size: 3, sort })).hits.hits.map((h) => h._id);
    expect(engine.runStats().miss_count).toBe(0);
    expect(hits).toEqual(engine.search('s', searchRequest({ size: 3, sort, paging: 'top_k' })).hits.hits.map((h) => h._id));
  });
});
