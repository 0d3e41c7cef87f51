import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, WasmKernels, wasmKernels, wasmModule } from '../../src/core/index.ts';
import { runsOf, totalOf } from './arbitraries.ts';
import { placeRuns } from './in-wasm.ts';

const wasm = wasmKernels();

describe('mergeRuns matches the reference', () => {
  it('1..64 runs, some empty, any from and size', () => {
    fc.assert(
      fc.property(
        runsOf(64, 40, 3).chain((runs) => {
          const total = totalOf(runs);
          return fc.tuple(fc.constant(runs), fc.nat(total + 10), fc.nat(total + 10));
        }),
        ([runs, from, size]) => {
          const got = wasm.mergeRuns(runs, from, size);
          const want = reference.mergeRuns(runs, from, size);
          expect([...got.run]).toEqual([...want.run]);
          expect([...got.pos]).toEqual([...want.pos]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('consecutive pages concatenate to the whole merge: no duplicates, no gaps', () => {
    fc.assert(
      fc.property(runsOf(16, 60, 2), fc.integer({ min: 1, max: 25 }), (runs, size) => {
        const total = totalOf(runs);
        const whole = wasm.mergeRuns(runs, 0, total);
        const pages: string[] = [];
        for (let from = 0; from < total; from += size) {
          const page = wasm.mergeRuns(runs, from, size);
          page.run.forEach((r, i) => pages.push(`${r}:${page.pos[i]}`));
        }
        expect(pages).toEqual([...whole.run].map((r, i) => `${r}:${whole.pos[i]}`));
      }),
      { numRuns: 100 },
    );
  });

  it('past the end yields nothing', () => {
    const runs = { order: [{}], runs: [{ length: 3, keys: [{ values: Float64Array.from([1, 2, 3]) }] }] };
    expect(wasm.mergeRuns(runs, 3, 10).run.length).toBe(0);
    expect(wasm.mergeRuns(runs, 0, 0).run.length).toBe(0);
  });

  it('copies plain columns in even when that grows the memory: the run table is written after, right', () => {
    // A fresh instance starts with little memory: copying these in grows it, detaching earlier views.
    const fresh = new WasmKernels(wasmModule());
    const before = fresh.memory.buffer.byteLength;
    const n = 1 << 20;
    const runs = {
      order: [{ order: 'desc' as const }],
      runs: [0, 1, 2].map((r) => ({ length: n, keys: [{ values: Float64Array.from({ length: n }, (_, i) => (n - i) * 3 + r) }] })),
    };
    const got = fresh.mergeRuns(runs, 5, 7);
    expect(fresh.memory.buffer.byteLength).toBeGreaterThan(before);
    const want = reference.mergeRuns(runs, 5, 7);
    expect([...got.run]).toEqual([...want.run]);
    expect([...got.pos]).toEqual([...want.pos]);
  });
});

describe('mergeLaidOut: runs laid out once, merged again and again', () => {
  it('every page of runs laid out once matches the reference (1..32 runs, maps and offsets, any from and size)', () => {
    fc.assert(
      fc.property(
        runsOf(32, 40, 3).chain((runs) => {
          const total = totalOf(runs);
          return fc.tuple(fc.constant(runs), fc.array(fc.tuple(fc.nat(total + 10), fc.nat(total + 10)), { minLength: 1, maxLength: 6 }));
        }),
        ([runs, pages]) => {
          const placed = placeRuns(wasm, runs);
          try {
            const laid = wasm.layOut(placed.runs)!;
            expect(laid.count).toBe(runs.runs.length);
            expect(laid.total).toBe(totalOf(runs));
            for (const [from, size] of pages) {
              const got = wasm.mergeLaidOut(laid, from, size);
              const want = reference.mergeRuns(runs, from, size);
              expect([...got.run]).toEqual([...want.run]);
              expect([...got.pos]).toEqual([...want.pos]);
            }
          } finally {
            placed.free();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('lays out only runs whose columns all live in the module (a plain column would be copied per merge)', () => {
    const runs = { order: [{}], runs: [{ length: 3, keys: [{ values: Float64Array.from([1, 2, 3]) }] }] };
    expect(wasm.layOut(runs)).toBeUndefined();
    const placed = placeRuns(wasm, runs);
    const withPlainMap = { order: [{}], runs: [{ length: 3, keys: [{ values: placed.runs.runs[0].keys[0].values, map: Float64Array.from([5, 6, 7]) }] }] };
    expect(wasm.layOut(withPlainMap)).toBeUndefined();
    placed.free();
  });

  it('still right after the memory grows between the layout and the merge (addresses hold, views detach)', () => {
    const fresh = new WasmKernels(wasmModule());
    const runs = { order: [{ order: 'desc' as const }], runs: [0, 1, 2].map((r) => ({ length: 50, keys: [{ values: Float64Array.from({ length: 50 }, (_, i) => (50 - i) * 3 + r) }] })) };
    const placed = placeRuns(fresh, runs);
    const laid = fresh.layOut(placed.runs)!;
    const before = fresh.memory.buffer.byteLength;
    const big = fresh.f64(1 << 21);
    expect(fresh.memory.buffer.byteLength).toBeGreaterThan(before);
    const got = fresh.mergeLaidOut(laid, 40, 30);
    const want = reference.mergeRuns(runs, 40, 30);
    expect([...got.run]).toEqual([...want.run]);
    expect([...got.pos]).toEqual([...want.pos]);
    big.free();
    placed.free();
    expect(fresh.inUse().blocks).toBe(0);
  });

  it('refuses to merge once an array it names is freed, rather than read freed memory', () => {
    const runs = { order: [{}], runs: [{ length: 3, keys: [{ values: Float64Array.from([1, 2, 3]) }] }, { length: 2, keys: [{ values: Float64Array.from([0, 4]) }] }] };
    const placed = placeRuns(wasm, runs);
    const laid = wasm.layOut(placed.runs)!;
    placed.placed[1].free();
    expect(() => wasm.mergeLaidOut(laid, 0, 5)).toThrow('a laid-out run was freed');
    placed.free();
  });
});
