/**
 * The building blocks of points in time, scrolls and search_after, each against a plain reference:
 * - `countThrough` (search/after.ts): the binary search over a sorted run equals a plain count of
 *   the entries at or before the position, by the RunKey and compareValues rules of core/order.ts;
 * - `Sources`: what `load` answers for every reader of a live generation, and what it retains,
 *   against a model of shards, generations and pins, on a real DocStore written as the engine does.
 * Sorted runs of pinned snapshots are in cursors-runs.test.ts; points in time, scrolls and reindex
 * through the engine in cursors-engine.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareValues, WasmKernels, wasmModule, type Column, type KeyOrder, type Missing, type Run, type RunKey } from '../../src/core/index.ts';
import { countThrough, type AfterKey } from '../../src/engine/search/after.ts';
import { Sources } from '../../src/engine/sources.ts';
import { DocStore, type DocWrite, type StoredDoc } from '../../src/store/doc-store.ts';
import { tempDir } from './helpers.ts';

// ---- after.ts: countThrough against a plain count ----

/** Values with ties, both zeros and missing (NaN). */
const POOL = [NaN, -2, -1, -0, 0, 1, 2, 3];
/** Between or beyond the pool's values. */
const BETWEEN = [-2.5, -0.5, 0.5, 1.5, 3.5];

interface KeyShape {
  order: KeyOrder;
  /** A map the stored values index into (keyword ordinals), or none. */
  map?: number[];
  offset: number;
}

const keyShapeArb: fc.Arbitrary<KeyShape> = fc.record({
  order: fc.record({
    order: fc.constantFrom('asc' as const, 'desc' as const),
    missing: fc.constantFrom<Missing>('_first', '_last', -1, 0.5, 3),
  }),
  map: fc.option(fc.array(fc.constantFrom(...POOL.filter((v) => !Number.isNaN(v))), { minLength: 1, maxLength: 5 }), { nil: undefined }),
  offset: fc.constantFrom(0, 0, 3, -1.5),
});

/** A present value `v` reads as map[v], then plus the offset when it is not 0; NaN stays NaN (the RunKey rule). */
function comparable(shape: KeyShape, stored: number): number {
  if (Number.isNaN(stored)) return NaN;
  const v = shape.map ? shape.map[stored] : stored;
  return shape.offset !== 0 ? v + shape.offset : v;
}

/** Lexicographic by compareValues over the after values' keys, then the tie: > 0 when the entry comes after. */
function plainCompare(entry: readonly number[], order: readonly KeyOrder[], after: AfterKey): number {
  for (let j = 0; j < after.values.length; j++) {
    const c = compareValues(entry[j], after.values[j], order[j].order, order[j].missing);
    if (c !== 0) return c;
  }
  return after.tie;
}

const runCaseArb = fc
  .array(keyShapeArb, { minLength: 1, maxLength: 4 })
  .chain((shapes) => {
    const storedArb = (shape: KeyShape) => (shape.map ? fc.oneof(fc.constant(NaN), fc.nat(shape.map.length - 1)) : fc.constantFrom(...POOL));
    const entriesArb = fc.array(fc.tuple(...shapes.map(storedArb)), { maxLength: 30, size: 'max' });
    return fc.record({ shapes: fc.constant(shapes), entries: entriesArb });
  })
  .map(({ shapes, entries }) => {
    const order = shapes.map((s) => s.order);
    // The run is sorted by the comparable values, ties in position order.
    const decoded = entries.map((stored) => ({ stored, values: stored.map((v, j) => comparable(shapes[j], v)) }));
    decoded.sort((a, b) => {
      for (let j = 0; j < shapes.length; j++) {
        const c = compareValues(a.values[j], b.values[j], order[j].order, order[j].missing);
        if (c !== 0) return c;
      }
      return 0;
    });
    return { shapes, order, entries: decoded };
  })
  .chain((run) => {
    const component = (j: number) =>
      fc.oneof(
        ...(run.entries.length > 0 ? [fc.nat(run.entries.length - 1).map((e) => run.entries[e].values[j])] : []),
        fc.constantFrom(...POOL),
        fc.constantFrom(...BETWEEN),
      );
    // Often an exact entry (all its values), else values picked per key; fewer values than keys when a `_score` clause decided.
    const exact = run.entries.length > 0 ? fc.nat(run.entries.length - 1).map((e) => [...run.entries[e].values]) : fc.constant([] as number[]);
    const perKey = fc.tuple(...run.shapes.map((_, j) => component(j)));
    const valuesArb = fc.tuple(fc.oneof(exact, perKey), fc.integer({ min: 0, max: run.shapes.length })).map(([values, cut]) => (cut === 0 ? values : values.slice(0, cut)));
    return fc.record({ run: fc.constant(run), after: fc.record({ values: valuesArb, tie: fc.constantFrom(0, 0, -1, 1) }), wasm: fc.boolean() });
  });

describe('countThrough', () => {
  let kernels: WasmKernels;
  beforeAll(() => {
    kernels = new WasmKernels(wasmModule('debug'));
  });

  it('equals a plain count of the entries at or before the position', () => {
    fc.assert(
      fc.property(runCaseArb, ({ run, after, wasm }) => {
        const allocated: { free(): void }[] = [];
        const column = (values: number[]): Column => {
          if (!wasm) return Float64Array.from(values);
          const array = kernels.f64(values.length);
          allocated.push(array);
          array.view.set(values);
          return array;
        };
        try {
          const keys: RunKey<Column>[] = run.shapes.map((shape, j) => ({
            values: column(run.entries.map((e) => e.stored[j])),
            ...(shape.map && { map: column(shape.map) }),
            ...(shape.offset !== 0 && { offset: shape.offset }),
          }));
          const sorted: Run<Column> = { length: run.entries.length, keys };
          let expected = 0;
          for (const entry of run.entries) if (plainCompare(entry.values, run.order, after) <= 0) expected++;
          // The entries at or before a position form a prefix of a sorted run.
          run.entries.forEach((entry, p) => expect(plainCompare(entry.values, run.order, after) <= 0).toBe(p < expected));
          expect(countThrough(sorted, run.order, after)).toBe(expected);
        } finally {
          for (const array of allocated) array.free();
        }
      }),
      { numRuns: 1500 },
    );
    expect(kernels.inUse().blocks).toBe(0);
  });

  it('ties on every value go by the tie: > 0 after the whole run of equals, ≤ 0 before it', () => {
    const run: Run<Column> = { length: 5, keys: [{ values: Float64Array.from([1, 2, 2, 2, 3]) }] };
    const order: KeyOrder[] = [{ order: 'asc', missing: '_last' }];
    expect(countThrough(run, order, { values: [2], tie: 0 })).toBe(4);
    expect(countThrough(run, order, { values: [2], tie: -1 })).toBe(4);
    expect(countThrough(run, order, { values: [2], tie: 1 })).toBe(1);
    expect(countThrough(run, order, { values: [], tie: 1 })).toBe(0);
    expect(countThrough(run, order, { values: [], tie: -1 })).toBe(5);
    expect(countThrough(run, order, { values: [NaN], tie: 0 })).toBe(5);
  });
});

// ---- Sources against a model of shards, generations and pins ----

type SourceStep =
  | { kind: 'write'; shard: number; ops: { id: number; del: boolean }[] }
  | { kind: 'commit' }
  | { kind: 'publish'; shard: number }
  | { kind: 'pin'; shard: number; pick: number }
  | { kind: 'unpin'; shard: number; pick: number };

const SHARDS = 2;

/** `_source` as storage keeps it: the JSON text (the cast lets the test run where the type still says an object). */
const stored = (value: Record<string, unknown>) => JSON.stringify(value) as unknown as StoredDoc['source'];

const sourceStepArb: fc.Arbitrary<SourceStep> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), shard: fc.nat(SHARDS - 1), ops: fc.array(fc.record({ id: fc.nat(5), del: fc.boolean() }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('commit' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('publish' as const), shard: fc.nat(SHARDS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), shard: fc.nat(SHARDS - 1), pick: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unpin' as const), shard: fc.nat(SHARDS - 1), pick: fc.nat(3) }) },
);

/** One shard as the engine sees it: ids to seqs (real time), and what each live generation shows. */
class ShardModel {
  readonly live = new Map<number, number>();
  readonly docs = new Map<number, StoredDoc>();
  newest = 0;
  /** Seqs each generation that is newest or pinned shows. */
  readonly shown = new Map<number, Set<number>>([[0, new Set()]]);
  readonly pins = new Map<number, number>();
  /** Retired seqs and the newest generation when they were retired. */
  readonly retired = new Map<number, number>();
  #nextSeq = 0;

  takeSeq(): number {
    return this.#nextSeq++;
  }

  liveGenerations(): number[] {
    return [this.newest, ...this.pins.keys()];
  }

  /** Forgets generations no one reads any more, and retired documents no live generation up to theirs needs. */
  settle(): void {
    const live = new Set(this.liveGenerations());
    for (const g of this.shown.keys()) if (!live.has(g)) this.shown.delete(g);
    const oldest = Math.min(...live);
    for (const [seq, through] of this.retired) if (through < oldest) this.retired.delete(seq);
  }

  /** Retired documents some live generation actually shows (a lower bound for what must be kept). */
  needed(): number {
    let n = 0;
    for (const seq of this.retired.keys()) if ([...this.shown.values()].some((seqs) => seqs.has(seq))) n++;
    return n;
  }
}

describe('Sources', () => {
  let store: DocStore;
  let remove: () => void;
  beforeAll(() => {
    const dir = tempDir();
    remove = dir.remove;
    store = DocStore.open(dir.dir);
  });
  afterAll(async () => {
    await store.close();
    remove();
  });

  let run = 0;

  it('load shows every live generation what it showed, and keeps exactly what the rule says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sourceStepArb, { minLength: 5, maxLength: 60, size: 'max' }), async (steps) => {
        const uuid = `u${run++}`;
        const sources = new Sources(store);
        const shards = Array.from({ length: SHARDS }, () => new ShardModel());
        const inflight: { writes: DocWrite[]; done: Promise<void> }[] = [];

        const check = () => {
          let retained = 0, needed = 0, pinned = 0;
          shards.forEach((model, shard) => {
            for (const [g, seqs] of model.shown) {
              for (const seq of seqs) expect(sources.load(uuid, shard, seq), `generation ${g} of shard ${shard} reads seq ${seq}`).toEqual(model.docs.get(seq));
            }
            for (const seq of model.live.values()) expect(sources.load(uuid, shard, seq), `real-time seq ${seq}`).toEqual(model.docs.get(seq));
            retained += model.retired.size;
            needed += model.needed();
            pinned += model.pins.size;
          });
          const stats = sources.stats();
          expect(stats.retained).toBe(retained);
          expect(stats.retained).toBeGreaterThanOrEqual(needed);
          expect(stats.pinned_generations).toBe(pinned);
          // Documents held for batches in flight: those they write and those they replace or delete.
          expect(stats.committing).toBe(new Set(inflight.flatMap((batch) => batch.writes.map((w) => `${w.shard}/${w.seq}`))).size);
        };
        const commit = async () => {
          const batch = inflight.shift()!;
          await batch.done;
          sources.committed(batch.writes);
        };

        for (const step of steps) {
          const model = 'shard' in step ? shards[step.shard] : undefined;
          switch (step.kind) {
            case 'write': {
              // Per op, retire a refreshed old version, then its writes are committing; one store write.
              const writes: DocWrite[] = [];
              sources.writing(writes);
              for (const op of step.ops) {
                const old = model!.live.get(op.id);
                const own: DocWrite[] = [];
                if (old !== undefined) own.push({ op: 'delete', uuid, shard: step.shard, seq: old, at: old + 1 });
                if (op.del) model!.live.delete(op.id);
                else {
                  const seq = model!.takeSeq();
                  const doc: StoredDoc = { id: String(op.id), version: seq + 1, source: stored({ id: op.id, seq }) };
                  model!.docs.set(seq, doc);
                  model!.live.set(op.id, seq);
                  own.push({ op: 'put', uuid, shard: step.shard, seq, doc });
                }
                if (old !== undefined && model!.shown.get(model!.newest)!.has(old)) {
                  sources.retire(uuid, step.shard, old, model!.newest);
                  model!.retired.set(old, model!.newest);
                }
                for (const write of own) if (write.op === 'delete') sources.committing(write);
                writes.push(...own);
              }
              inflight.push({ writes, done: store.write(writes) });
              break;
            }
            case 'commit':
              if (inflight.length > 0) await commit();
              break;
            case 'publish':
              model!.newest++;
              model!.shown.set(model!.newest, new Set(model!.live.values()));
              sources.published(uuid, step.shard, model!.newest);
              model!.settle();
              break;
            case 'pin': {
              // A new holder of the newest generation, or another of one already pinned.
              const choices = [model!.newest, ...model!.pins.keys()];
              const g = choices[step.pick % choices.length];
              model!.pins.set(g, (model!.pins.get(g) ?? 0) + 1);
              sources.pin(uuid, step.shard, g);
              break;
            }
            case 'unpin': {
              const pinned = [...model!.pins.keys()];
              if (pinned.length === 0) break;
              const g = pinned[step.pick % pinned.length];
              const count = model!.pins.get(g)!;
              if (count > 1) model!.pins.set(g, count - 1);
              else model!.pins.delete(g);
              sources.unpin(uuid, step.shard, g);
              model!.settle();
              break;
            }
          }
          check();
        }

        // Everything committed, every holder gone, one more refresh: nothing is kept.
        while (inflight.length > 0) await commit();
        shards.forEach((model, shard) => {
          for (const [g, count] of [...model.pins]) for (let i = 0; i < count; i++) sources.unpin(uuid, shard, g);
          model.pins.clear();
          model.newest++;
          model.shown.set(model.newest, new Set(model.live.values()));
          sources.published(uuid, shard, model.newest);
          model.settle();
        });
        check();
        expect(sources.stats()).toEqual({ retained: 0, committing: 0, pinned_generations: 0 });
      }),
      { numRuns: 100 },
    );
  });

  it('dropIndex forgets only that index (not one whose uuid starts the same)', async () => {
    const sources = new Sources(store);
    const doc = (id: string): StoredDoc => ({ id, version: 1, source: stored({ id }) });
    const writes: DocWrite[] = [
      { op: 'put', uuid: 'd', shard: 0, seq: 0, doc: doc('a') },
      { op: 'put', uuid: 'dd', shard: 0, seq: 0, doc: doc('b') },
    ];
    sources.writing(writes);
    await store.write(writes);
    sources.committed(writes);
    for (const uuid of ['d', 'dd']) {
      sources.pin(uuid, 0, 1);
      sources.retire(uuid, 0, 0, 1);
    }
    await store.write(writes.map(({ uuid, shard, seq }) => ({ op: 'delete', uuid, shard, seq, at: seq + 1 })));
    expect(sources.stats()).toEqual({ retained: 2, committing: 0, pinned_generations: 2 });
    sources.dropIndex('d');
    expect(sources.load('d', 0, 0)).toBeUndefined();
    expect(sources.load('dd', 0, 0)).toEqual(doc('b'));
    expect(sources.stats()).toEqual({ retained: 1, committing: 0, pinned_generations: 1 });
  });
});
