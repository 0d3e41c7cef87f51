/**
 * Points in time, scrolls and reindex at the engine's surface, against plain expectations: a point
 * in time shows its snapshot (old `_source` included) whatever is written, refreshed or merged, and
 * nothing stays retained or allocated once it is gone (closed, expired, its index deleted); caps;
 * `reindex()` copies a point in time of the source once, sliced or not, with max_docs and conflicts.
 * Sorted runs live on the debug kernels (freed blocks poisoned), so reading a freed run shows.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WasmKernels, wasmModule } from '../../src/core/index.ts';
import type { Engine, WriteOp } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import { reindex } from '../../src/engine/reindex/reindex.ts';
import { reindexRequest as withDefaults, type ReindexRequest } from '../../src/engine/reindex/reindex-request.ts';
import { searchRequest, type SearchRequest, type SortClause } from '../../src/engine/search/request.ts';
import type { Hit } from '../../src/engine/search/search.ts';
import type { NodeSettings } from '../../src/engine/node-settings.ts';
import type { StoredDoc } from '../../src/store/doc-store.ts';
import { sourceOf as hitSource, tempEngine } from './helpers.ts';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function open(settings: Partial<NodeSettings> = {}) {
  const kernels = new WasmKernels(wasmModule('debug'));
  const { engine, close } = tempEngine({ kernels, settings });
  cleanups.push(close);
  return { engine, kernels };
}

/** Blocks the runs and maps of the indices' current segments hold. */
function currentBlocks(engine: Engine): number {
  let blocks = 0;
  for (const index of engine.indices()) for (const segment of index.segments()) blocks += engine.runs.blocksOf(segment);
  return blocks;
}

/** Nothing kept for a context any more: no retained `_source`, no pins, no runs beyond the current segments'. */
function expectNothingHeld(engine: Engine, kernels: WasmKernels): void {
  expect(engine.sources.stats()).toEqual({ retained: 0, committing: 0, pinned_generations: 0 });
  expect(engine.cursors.stats()).toMatchObject({ open_contexts: 0, scroll_current: 0, point_in_time_current: 0 });
  expect(kernels.inUse().blocks).toBe(currentBlocks(engine));
}

/** A stored document's `_source` as an object (storage keeps the JSON text). */
function sourceOf(doc: StoredDoc | undefined): unknown {
  if (doc === undefined) return undefined;
  const source: unknown = doc.source;
  return typeof source === 'string' ? JSON.parse(source) : source;
}

/** The EsError `run` throws. */
function esError(run: () => unknown): EsError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    return e as EsError;
  }
  throw new Error('expected an EsError');
}

const byN: SortClause[] = [{ kind: 'field', field: 'n', order: 'asc', missing: '_last' }];
const MAPPINGS = { properties: { n: { type: 'long' } } };
const docs = (from: number, to: number, index = 'p'): WriteOp[] => Array.from({ length: to - from }, (_, k) => ({ action: 'index', index, id: String(from + k), source: { n: from + k } }));

/** Opens a scroll over the index; returns its id. */
function startScroll(engine: Engine, index: string, request: Partial<SearchRequest>): string {
  return (engine.search(index, searchRequest(request)) as { _scroll_id?: string })._scroll_id!;
}

/** Every hit of the point in time, page after page with search_after. */
function walkPit(engine: Engine, id: string, size: number, extra: Partial<SearchRequest> = {}): (Omit<Hit, '_source'> & { _source?: unknown })[] {
  const hits: ReturnType<typeof walkPit> = [];
  let after: unknown[] | undefined;
  for (;;) {
    const page = engine.search(undefined, searchRequest({ size, sort: byN, pit: { id }, ...(after && { after }), ...extra })).hits.hits;
    // `_source` as values: the same document may come as stored bytes or as text still held in memory.
    hits.push(...page.map((hit) => ('_source' in hit ? { ...hit, _source: hitSource(hit) } : hit)));
    if (page.length < size) return hits;
    after = page[page.length - 1].sort;
  }
}

describe('points in time', () => {
  it('pin the _source of replaced and deleted documents across refreshes and merges; closing frees all', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('p', { settings: { number_of_shards: 3, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 30));
    engine.refresh('p');
    const { id } = engine.openPointInTime('p', 60_000);
    const before = walkPit(engine, id, 7);
    expect(before.map((hit) => hit._source)).toEqual(Array.from({ length: 30 }, (_, i) => ({ n: i })));

    await engine.write([
      { action: 'index', index: 'p', id: '1', source: { n: 101 } },
      { action: 'delete', index: 'p', id: '2' },
      { action: 'index', index: 'p', id: 'new', source: { n: 5.5 } },
    ]);
    engine.refresh('p');
    // Enough refreshes of updates that every shard merges (at most eight segments each).
    for (let round = 0; round < 12; round++) {
      await engine.write([{ action: 'update', index: 'p', id: String(3 + (round % 20)), doc: { n: 1000 + round } }, ...docs(40 + round * 3, 43 + round * 3)]);
      engine.refresh('p');
      expect(walkPit(engine, id, 4)).toEqual(before);
    }
    expect(sourceOf(engine.get('p', '1')!.doc)).toEqual({ n: 101 });
    expect(engine.get('p', '2')).toBeUndefined();
    expect(engine.search('p', searchRequest({ size: 100, sort: byN })).hits.hits.map((h) => h._id)).not.toContain('2');
    expect(walkPit(engine, id, 7)).toEqual(before);
    expect(engine.search(undefined, searchRequest({ size: 0, pit: { id }, trackTotalHits: true })).hits.total).toEqual({ value: 30, relation: 'eq' });
    expect(engine.sources.stats()).toMatchObject({ retained: 14, pinned_generations: 3 });

    expect(engine.cursors.closePits([id])).toEqual({ succeeded: true, num_freed: 1 });
    engine.refresh('p');
    expectNothingHeld(engine, kernels);
    expect(esError(() => engine.search(undefined, searchRequest({ pit: { id } }))).status).toBe(404);
  });

  it('release tens of thousands of retired documents over several passes of the event loop, and all of them', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('p', { settings: { number_of_shards: 1, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 20_000));
    engine.refresh('p');
    const { id } = engine.openPointInTime('p', 60_000);
    await engine.write(docs(0, 20_000).map((op) => ({ ...op, source: { n: -1 } })));
    engine.refresh('p');
    expect(engine.sources.stats().retained).toBe(20_000);
    engine.cursors.closePits([id]);
    // Some now, the rest in later passes: never more than a batch in one callback.
    const left = engine.sources.stats().retained;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(20_000);
    for (let pass = 0; engine.sources.stats().retained > 0; pass++) {
      expect(pass).toBeLessThan(10);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expectNothingHeld(engine, kernels);
  });

  it('two points in time over one generation: the documents stay until the second closes', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('p', { settings: { number_of_shards: 1, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 5));
    engine.refresh('p');
    const first = engine.openPointInTime('p', 60_000).id;
    const second = engine.openPointInTime('p', 60_000).id;
    await engine.write([{ action: 'delete', index: 'p', id: '0' }], 'true');
    engine.cursors.closePits([first]);
    expect(engine.sources.stats()).toEqual({ retained: 1, committing: 0, pinned_generations: 1 });
    expect(walkPit(engine, second, 2).map((hit) => hit._source)).toEqual(Array.from({ length: 5 }, (_, i) => ({ n: i })));
    engine.cursors.closePits([second]);
    expectNothingHeld(engine, kernels);
  });

  it('that expire together close one per pass of the event loop, and one used before its turn stays open', async () => {
    const { engine } = open();
    await engine.createIndex('p', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 10));
    engine.refresh('p');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const ids = Array.from({ length: 50 }, () => engine.openPointInTime('p', 1000).id);
    vi.advanceTimersByTime(1000);
    // All fifty ran out at once; the last is used before its turn comes.
    expect(walkPit(engine, ids[49], 4, { pit: { id: ids[49], keepAliveMs: 1000 } })).toHaveLength(10);
    const current = () => engine.cursors.stats().point_in_time_current;
    expect(current()).toBe(50);
    const seen: number[] = [];
    for (let pass = 0; pass < 60 && current() > 1; pass++) {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(current());
    }
    expect(current()).toBe(1);
    // Never more than a couple closed between two of this test's passes.
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1] - seen[i]).toBeLessThanOrEqual(2);
    expect(walkPit(engine, ids[49], 4)).toHaveLength(10);
    expect(esError(() => walkPit(engine, ids[0], 4))).toMatchObject({ status: 404 });
    vi.useRealTimers();
  });

  it('expire once their keep-alive passes without use; each search renews it', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('p', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 10));
    engine.refresh('p');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { id } = engine.openPointInTime('p', 1000);
    const scroll = startScroll(engine, 'p', { size: 3, sort: byN, scroll: 1000 });
    await engine.write([{ action: 'delete', index: 'p', id: '4' }], 'true');
    vi.advanceTimersByTime(900);
    expect(walkPit(engine, id, 4, { pit: { id, keepAliveMs: 1000 } })).toHaveLength(10);
    expect(engine.scroll(scroll, 1000).hits.hits.map((h) => h._id)).toEqual(['3', '4', '5']);
    vi.advanceTimersByTime(900);
    // 1800 ms after opening, alive: the searches at 900 renewed the keep-alive.
    expect(walkPit(engine, id, 4)).toHaveLength(10);
    expect(engine.scroll(scroll).hits.hits.map((h) => h._id)).toEqual(['6', '7', '8']);
    expect(engine.sources.stats().retained).toBe(1);
    vi.advanceTimersByTime(1001);
    // Expired contexts close one per pass of the event loop.
    for (let pass = 0; pass < 2; pass++) await new Promise((resolve) => setImmediate(resolve));
    expect(esError(() => walkPit(engine, id, 4))).toMatchObject({ status: 404 });
    expect(esError(() => engine.scroll(scroll))).toMatchObject({ status: 404 });
    expectNothingHeld(engine, kernels);
  });

  it('are capped by search.max_open_pit_context and scrolls by search.max_open_scroll_context', async () => {
    const { engine, kernels } = open({ maxOpenPitContexts: 1, maxOpenScrollContexts: 1 });
    await engine.createIndex('p', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
    await engine.write(docs(0, 10), 'true');
    const pit = engine.openPointInTime('p', 60_000).id;
    expect(esError(() => engine.openPointInTime('p', 60_000))).toMatchObject({ status: 429, type: 'rejected_execution_exception' });
    // The node's own reader (a reindex) is not counted.
    const own = engine.openPointInTime('p', 60_000, undefined, false).id;
    const scroll = startScroll(engine, 'p', { size: 2, scroll: 60_000 });
    expect(esError(() => engine.search('p', searchRequest({ size: 2, scroll: 60_000 })))).toMatchObject({ status: 429, type: 'too_many_scroll_contexts_exception' });
    // A refused context holds nothing: two PITs and one scroll, over two shards each.
    expect(engine.cursors.stats()).toMatchObject({ open_contexts: 6, scroll_current: 2, point_in_time_current: 2 });
    expect(engine.sources.stats().pinned_generations).toBe(2);

    expect(engine.cursors.closePits([pit, own])).toEqual({ succeeded: true, num_freed: 2 });
    expect(engine.cursors.clearScrolls([scroll])).toEqual({ succeeded: true, num_freed: 1 });
    expectNothingHeld(engine, kernels);
    engine.cursors.closePits([engine.openPointInTime('p', 60_000).id]);
    engine.cursors.clearScrolls([startScroll(engine, 'p', { size: 2, scroll: 60_000 })]);
    expectNothingHeld(engine, kernels);
  });

  it('deleting an index closes the contexts over it (404 afterwards) and only those', async () => {
    const { engine, kernels } = open();
    for (const name of ['p', 'q']) {
      await engine.createIndex(name, { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
      await engine.write(docs(0, 20, name), 'true');
    }
    const onP = engine.openPointInTime('p', 60_000).id;
    const onBoth = engine.openPointInTime('p,q', 60_000).id;
    const onQ = engine.openPointInTime('q', 60_000).id;
    const scroll = startScroll(engine, 'p', { size: 2, sort: byN, scroll: 60_000 });
    walkPit(engine, onP, 7);
    await engine.write([{ action: 'delete', index: 'p', id: '3' }, { action: 'delete', index: 'q', id: '3' }], 'true');
    walkPit(engine, onQ, 7);

    await engine.deleteIndices('p');
    expect(esError(() => walkPit(engine, onP, 7)).status).toBe(404);
    expect(esError(() => walkPit(engine, onBoth, 7)).status).toBe(404);
    expect(esError(() => engine.scroll(scroll)).status).toBe(404);
    expect(walkPit(engine, onQ, 7)).toHaveLength(20);
    expect(engine.cursors.closePits([onP, onBoth])).toEqual({ succeeded: true, num_freed: 0 });
    expect(engine.sources.stats()).toEqual({ retained: 1, committing: 0, pinned_generations: 2 });
    engine.cursors.closePits([onQ]);
    expectNothingHeld(engine, kernels);
  });
});

// ---- reindex ----

function reindexRequest(overrides: Partial<ReindexRequest> & { size?: number } = {}): ReindexRequest {
  const { size = 4, ...rest } = overrides;
  return withDefaults(['src'], 'dst', { source: { indices: ['src'], size, filter: { includes: [], excludes: [] } }, refresh: true, ...rest });
}

/** ES's split of max_docs between slices: the first ones take the remainder. */
const share = (whole: number, slices: number, slice: number) => Math.floor(whole / slices) + (slice < whole % slices ? 1 : 0);

const ROUTINGS = ['r1', 'r2', 'x'];

describe('reindex', () => {
  it('copies every document once, with _source and routing, over 1–7 shards and 1, 2, 3 or auto slices; max_docs split between slices', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          shards: fc.integer({ min: 1, max: 7 }),
          destShards: fc.integer({ min: 1, max: 3 }),
          routings: fc.array(fc.option(fc.constantFrom(...ROUTINGS), { nil: undefined }), { maxLength: 40, size: 'max' }),
          slices: fc.constantFrom<number | 'auto'>(1, 2, 3, 'auto'),
          size: fc.integer({ min: 1, max: 8 }),
          maxDocs: fc.option(fc.integer({ min: 1, max: 45 }), { nil: undefined }),
        }),
        async ({ shards, destShards, routings, slices, size, maxDocs }) => {
          const { engine, kernels } = open();
          await engine.createIndex('src', { settings: { number_of_shards: shards, refresh_interval: -1 } });
          await engine.createIndex('dst', { settings: { number_of_shards: destShards, refresh_interval: -1 } });
          const source = (i: number) => ({ i, tag: `t${i % 3}`, nested: { list: [i, String(i)] } });
          await engine.write(routings.map((routing, i) => ({ action: 'index', index: 'src', id: String(i), source: source(i), ...(routing !== undefined && { routing }) })), 'true');

          const response = await reindex(engine, reindexRequest({ slices, size, maxDocs }));

          // Each slice reads its part in _shard_doc order (shard, then write order) and stops at its share.
          // Its part, as SliceBuilder assigns them: with fewer slices than shards, the shards numbered
          // `slice` modulo the slices; with as many or more, a share of shard `slice % shards`, cut
          // into equal ranges of its documents when several slices fall on it.
          const sliceCount = slices === 'auto' ? shards : slices;
          const shardOf = (i: number) => engine.get('src', String(i), routings[i])!.shard;
          const inShard = (shard: number) => routings.map((_, i) => i).filter((i) => shardOf(i) === shard);
          const partOf = (slice: number): number[] => {
            if (shards > 1 && sliceCount < shards) return routings.map((_, i) => i).filter((i) => shardOf(i) % sliceCount === slice);
            const shard = slice % shards;
            const parts = Math.floor(sliceCount / shards) + (sliceCount % shards > shard ? 1 : 0);
            const docs = inShard(shard);
            const part = Math.floor(slice / shards);
            return docs.slice(Math.floor((part * docs.length) / parts), Math.floor(((part + 1) * docs.length) / parts));
          };
          const copied = new Set<number>();
          let total = 0;
          for (let slice = 0; slice < sliceCount; slice++) {
            const mine = partOf(slice);
            mine.sort((a, b) => shardOf(a) - shardOf(b) || a - b);
            const limit = maxDocs === undefined ? Infinity : share(maxDocs, sliceCount, slice);
            for (const i of mine.slice(0, limit)) copied.add(i);
            total += Math.min(mine.length, limit);
          }
          expect(response).toMatchObject({ total, created: copied.size, updated: 0, version_conflicts: 0, failures: [] });
          if (sliceCount > 1) {
            expect(response.slices).toHaveLength(sliceCount);
            expect(response.slices!.reduce((n, s) => n + s.created, 0)).toBe(copied.size);
          } else expect(response.slices).toBeUndefined();
          expect(engine.count('dst').count).toBe(copied.size);
          routings.forEach((routing, i) => {
            const got = engine.get('dst', String(i), routing);
            if (!copied.has(i)) return expect(got).toBeUndefined();
            expect(sourceOf(got?.doc)).toEqual(source(i));
            expect(got?.doc.routing).toBe(routing);
          });
          expectNothingHeld(engine, kernels);
          await cleanups.pop()!();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('reads a point in time: writes to the source while it runs are not copied', async () => {
    const { engine, kernels } = open();
    await engine.createIndex('src', { settings: { number_of_shards: 3, refresh_interval: -1 } });
    await engine.write(Array.from({ length: 30 }, (_, i) => ({ action: 'index', index: 'src', id: String(i), source: { i } })), 'true');
    const running = reindex(engine, reindexRequest({ size: 2, slices: 2 }));
    await engine.write(
      [
        ...Array.from({ length: 10 }, (_, i): WriteOp => ({ action: 'index', index: 'src', id: String(i), source: { i, changed: true } })),
        ...Array.from({ length: 5 }, (_, i): WriteOp => ({ action: 'delete', index: 'src', id: String(10 + i) })),
        ...Array.from({ length: 5 }, (_, i): WriteOp => ({ action: 'index', index: 'src', id: `new${i}`, source: { fresh: true } })),
      ],
      'true',
    );
    const response = await running;
    expect(response).toMatchObject({ total: 30, created: 30, failures: [] });
    expect(engine.count('dst').count).toBe(30);
    for (let i = 0; i < 30; i++) expect(sourceOf(engine.get('dst', String(i))?.doc)).toEqual({ i });
    expectNothingHeld(engine, kernels);
  });

  /** A source of 12 documents on one shard (read in id order) and a destination already holding 3 and 7. */
  async function withTaken() {
    const { engine, kernels } = open();
    await engine.createIndex('src', { settings: { number_of_shards: 1, refresh_interval: -1 } });
    await engine.write(Array.from({ length: 12 }, (_, i) => ({ action: 'index', index: 'src', id: String(i), source: { i } })), 'true');
    await engine.write(['3', '7'].map((id) => ({ action: 'index', index: 'dst', id, source: { taken: true } })), 'true');
    const ids = () => engine.search('dst', searchRequest({ size: 100 })).hits.hits.map((h) => Number(h._id)).sort((a, b) => a - b);
    return { engine, kernels, ids };
  }

  it('conflicts=proceed counts conflicts and goes on; with max_docs, conflicts do not count', async () => {
    const { engine, kernels, ids } = await withTaken();
    const all = await reindex(engine, reindexRequest({ conflicts: 'proceed', dest: { index: 'dst', opType: 'create', routing: { kind: 'keep' } } }));
    expect(all).toMatchObject({ created: 10, version_conflicts: 2, failures: [] });
    expect(ids()).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(sourceOf(engine.get('dst', '3')!.doc)).toEqual({ taken: true });
    await engine.deleteIndices('dst');

    await engine.write(['3', '7'].map((id) => ({ action: 'index', index: 'dst', id, source: { taken: true } })), 'true');
    const capped = await reindex(engine, reindexRequest({ conflicts: 'proceed', maxDocs: 5, dest: { index: 'dst', opType: 'create', routing: { kind: 'keep' } } }));
    expect(capped).toMatchObject({ created: 5, version_conflicts: 1, failures: [] });
    expect(ids()).toEqual([0, 1, 2, 3, 4, 5, 7]);
    expectNothingHeld(engine, kernels);
  });

  it('conflicts=abort stops at the batch with the conflict: later batches are not written', async () => {
    const { engine, kernels, ids } = await withTaken();
    // Batches of four: [0 1 2 3] conflicts on 3, so 0, 1 and 2 are copied and the reindex stops there (as ES does).
    const response = await reindex(engine, reindexRequest({ dest: { index: 'dst', opType: 'create', routing: { kind: 'keep' } } }));
    expect(sourceOf(engine.get('dst', '3')!.doc)).toEqual({ taken: true });
    expect(sourceOf(engine.get('dst', '7')!.doc)).toEqual({ taken: true });
    expectNothingHeld(engine, kernels);
    expect({
      created: response.created,
      batches: response.batches,
      version_conflicts: response.version_conflicts,
      failures: response.failures.map((f) => ({ id: f.id, status: f.status })),
      ids: ids(),
    }).toEqual({ created: 3, batches: 1, version_conflicts: 1, failures: [{ id: '3', status: 409 }], ids: [0, 1, 2, 3, 7] });
  });
});
