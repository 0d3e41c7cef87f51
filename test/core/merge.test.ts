import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, WasmKernels, wasmKernels, wasmModule } from '../../src/core/index.ts';
import { runsOf, totalOf } from './arbitraries.ts';

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
