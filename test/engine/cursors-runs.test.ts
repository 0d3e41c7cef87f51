/**
 * `RunCache` pinning against plain sorted runs, on the debug kernels (freed blocks poisoned): a
 * point in time or scroll holds a segment's snapshot, whose run (one per set of deletes) stays
 * readable and right beside the newest, and a segment merged away while pinned keeps its runs;
 * every block goes back when the last holder lets go, and on clear and close.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { compareValues, WasmKernels, wasmModule } from '../../src/core/index.ts';
import type { Engine } from '../../src/engine/engine.ts';
import { orderName } from '../../src/engine/search/order-key.ts';
import { RunCache } from '../../src/engine/search/runs/run-cache.ts';
import type { RunSpec, SortedRun } from '../../src/engine/search/runs/sorted-run.ts';
import type { LiveSegment } from '../../src/engine/shard/shard-snapshot.ts';
import { tempEngine } from './helpers.ts';

/** Names of two orders runs are kept under. */
const K = orderName(['k']), OTHER = orderName(['other']);

/** Blocks one run holds: its positions and one array per key. */
const RUN_BLOCKS = 2;

describe('RunCache pinning', () => {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /** One segment of 40 documents and snapshots of it under growing deletes (taken through a real engine). */
  async function snapshots(): Promise<{ engine: Engine; lives: LiveSegment[] }> {
    const { engine, close } = tempEngine();
    cleanups.push(close);
    await engine.createIndex('r', { settings: { number_of_shards: 1, refresh_interval: -1 } });
    await engine.write(Array.from({ length: 40 }, (_, i) => ({ action: 'index' as const, index: 'r', id: String(i), source: { i } })));
    const lives: LiveSegment[] = [];
    const take = () => {
      engine.refresh('r');
      const [live] = engine.resolveOne('r').snapshot().shards[0].segments;
      lives.push(live);
    };
    take();
    for (const ids of [['3', '17'], ['0', '39', '20'], ['5']]) {
      await engine.write(ids.map((id) => ({ action: 'delete' as const, index: 'r', id })));
      take();
    }
    expect(new Set(lives.map((live) => live.segment)).size).toBe(1);
    expect(lives.map((live) => live.deletedCount)).toEqual([0, 2, 5, 6]);
    return { engine, lives };
  }

  /** A column by position with ties and missing values. */
  const spec = (n: number): RunSpec => ({
    keys: [{ column: Float64Array.from({ length: n }, (_, p) => (p % 7 === 3 ? NaN : (p * 5) % 6)), order: { order: 'desc', missing: '_first' } }],
  });

  /** The live positions sorted by the spec's key, ties by position. */
  function expectedPositions(live: LiveSegment, s: RunSpec): number[] {
    const { column, order } = s.keys[0];
    const positions: number[] = [];
    for (let p = 0; p < live.segment.count; p++) if (!live.deleted?.[p]) positions.push(p);
    return positions.sort((a, b) => compareValues(column[a], column[b], order.order, order.missing) || a - b);
  }

  function expectRun(run: SortedRun | undefined, live: LiveSegment, s: RunSpec): void {
    expect(run).toBeDefined();
    expect(run!.freed).toBe(false);
    const positions = expectedPositions(live, s);
    expect([...run!.positions.view]).toEqual(positions);
    expect([...run!.keys[0].view]).toEqual(positions.map((p) => s.keys[0].column[p]));
  }

  function cache() {
    const kernels = new WasmKernels(wasmModule('debug'));
    return { kernels, runs: new RunCache(kernels, 1 << 30, 0) };
  }

  it('keeps the run of a pinned snapshot beside the newest, readable, until released', async () => {
    const { lives } = await snapshots();
    const [l0, l1, l2, l3] = lives;
    const segment = l0.segment;
    const s = spec(segment.count);
    const { kernels, runs } = cache();

    const r0 = runs.build(l0, K, s);
    runs.retain([l0]);
    const r1 = runs.get(l1, K);
    runs.trim();
    expectRun(r1, l1, s);
    expect(runs.get(l0, K)).toBe(r0);
    expectRun(r0, l0, s);
    expect(runs.blocksOf(segment)).toBe(2 * RUN_BLOCKS);
    expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));

    // A newer snapshot: the unpinned run of l1 goes, the pinned one of l0 stays.
    const r2 = runs.get(l2, K);
    runs.trim();
    expect(r1!.freed).toBe(true);
    expectRun(r2, l2, s);
    expectRun(r0, l0, s);
    expect(runs.blocksOf(segment)).toBe(2 * RUN_BLOCKS);
    expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));

    runs.release([l0]);
    expect(r0.freed).toBe(true);
    expectRun(runs.get(l2, K), l2, s);
    expect(runs.blocksOf(segment)).toBe(RUN_BLOCKS);
    expect(kernels.inUse().blocks).toBe(RUN_BLOCKS);

    // Two holders of one snapshot: the run goes with the second release only.
    runs.retain([l2]);
    runs.retain([l2]);
    const r3 = runs.get(l3, K);
    runs.trim();
    expectRun(r3, l3, s);
    runs.release([l2]);
    expectRun(r2, l2, s);
    runs.release([l2]);
    expect(r2!.freed).toBe(true);
    expect(kernels.inUse().blocks).toBe(RUN_BLOCKS);
    runs.close();
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('builds a run for an older pinned snapshot and keeps it; an unpinned older one serves one search', async () => {
    const { lives } = await snapshots();
    const [l0, l1, , l3] = lives;
    const s = spec(l0.segment.count);
    const { kernels, runs } = cache();
    runs.build(l3, K, s);
    runs.retain([l1]);
    const pinned = runs.build(l1, K, s);
    const transient = runs.build(l0, K, s);
    expectRun(transient, l0, s);
    runs.trim();
    expect(transient.freed).toBe(true);
    expect(runs.get(l1, K)).toBe(pinned);
    expectRun(pinned, l1, s);
    expect(runs.get(l0, K)).toBeUndefined();
    expect(kernels.inUse().blocks).toBe(runs.blocksOf(l0.segment));
    expect(runs.blocksOf(l0.segment)).toBe(2 * RUN_BLOCKS);
    runs.release([l1]);
    expect(pinned.freed).toBe(true);
    expect(kernels.inUse().blocks).toBe(RUN_BLOCKS);
    runs.close();
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('a segment dropped while pinned keeps its runs and maps until the last release', async () => {
    const { lives } = await snapshots();
    const [l0, l1, l2] = lives;
    const segment = l0.segment;
    const s = spec(segment.count);
    const { kernels, runs } = cache();
    runs.build(l0, K, s);
    runs.retain([l0]);
    runs.retain([l1]);
    const r1 = runs.get(l1, K);
    const r2 = runs.get(l2, K);
    runs.map(segment, 'ords', {}, () => [2, 0, 1]);
    runs.trim();
    runs.drop([segment]);
    expectRun(runs.get(l0, K), l0, s);
    expectRun(r1, l1, s);
    expectRun(r2, l2, s);
    expect(runs.blocksOf(segment)).toBe(3 * RUN_BLOCKS + 1);
    expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));

    runs.release([l0]);
    expectRun(r1, l1, s);
    expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));
    runs.release([l1]);
    expect(r1!.freed).toBe(true);
    expect(r2!.freed).toBe(true);
    expect(runs.blocksOf(segment)).toBe(0);
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
    // Gone for good: nothing is kept for it any more.
    expect(runs.get(l2, K)).toBeUndefined();
    runs.map(segment, 'ords', {}, () => [2, 0, 1]);
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('clear and close free everything, pinned runs included', async () => {
    const { lives } = await snapshots();
    const [l0, l1, l2] = lives;
    const s = spec(l0.segment.count);
    const { kernels, runs } = cache();
    runs.build(l0, K, s);
    runs.retain([l0, l1]);
    runs.get(l1, K);
    runs.get(l2, K);
    runs.build(l2, OTHER, s);
    runs.map(l0.segment, 'ords', {}, () => [1, 0]);
    runs.trim();
    expect(kernels.inUse().blocks).toBe(4 * RUN_BLOCKS + 1);
    runs.clear([l0.segment]);
    expect(runs.blocksOf(l0.segment)).toBe(0);
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
    // Still pinned: a run built again for a pinned snapshot is kept, and close frees it.
    expectRun(runs.build(l1, K, s), l1, s);
    runs.build(l2, K, s);
    expectRun(runs.get(l1, K), l1, s);
    runs.close();
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });

  it('any sequence of retain, release, get, build and drop keeps pinned runs right and frees all at the end', async () => {
    const { lives } = await snapshots();
    const segment = lives[0].segment;
    const s = spec(segment.count);
    type Op = { kind: 'retain' | 'release' | 'get' | 'build'; snapshot: number } | { kind: 'drop' };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { weight: 12, arbitrary: fc.record({ kind: fc.constantFrom('retain' as const, 'release' as const, 'get' as const, 'build' as const), snapshot: fc.nat(lives.length - 1) }) },
      // Rare: once a segment is dropped, little happens to it.
      { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30, size: 'max' }), (ops) => {
        const { kernels, runs } = cache();
        const pins = lives.map(() => 0);
        /** Runs handed out for pinned snapshots: they must stay right while the snapshot is pinned. */
        const held = new Map<number, SortedRun>();
        let dropped = false;
        for (const op of ops) {
          if (op.kind === 'drop') {
            runs.drop([segment]);
            dropped = true;
          } else if (op.kind === 'retain') {
            // A new holder takes the shard's current snapshot, which a dropped segment is no longer in.
            if (dropped) continue;
            runs.retain([lives[op.snapshot]]);
            pins[op.snapshot]++;
          } else if (op.kind === 'release') {
            if (pins[op.snapshot] === 0) continue;
            runs.release([lives[op.snapshot]]);
            if (--pins[op.snapshot] === 0) held.delete(op.snapshot);
          } else {
            // As a search does: what the cache has, else a build, then trim. A dropped segment is no longer searched unpinned.
            const live = lives[op.snapshot];
            if (dropped && pins[op.snapshot] === 0) continue;
            const run = op.kind === 'get' ? (runs.get(live, K) ?? runs.build(live, K, s)) : runs.build(live, K, s);
            expectRun(run, live, s);
            if (pins[op.snapshot] > 0) held.set(op.snapshot, run);
          }
          runs.trim();
          for (const [snapshot, run] of held) expectRun(run, lives[snapshot], s);
          expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));
        }
        for (let n = 0; n < lives.length; n++) for (; pins[n] > 0; pins[n]--) runs.release([lives[n]]);
        // No holder left: only the newest run stays (none once the segment is gone).
        expect(runs.blocksOf(segment)).toBeLessThanOrEqual(dropped ? 0 : RUN_BLOCKS);
        expect(kernels.inUse().blocks).toBe(runs.blocksOf(segment));
        if (!dropped) runs.drop([segment]);
        expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
        runs.close();
      }),
      { numRuns: 200 },
    );
  });
});
