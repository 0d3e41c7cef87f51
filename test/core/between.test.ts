import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareValues, reference, runValue, wasmKernels, type Runs } from '../../src/core/index.ts';
import { runsOf, value } from './arbitraries.ts';

const wasm = wasmKernels();

/** The runs with each one's entries in a scrambled order (countBetween reads them in any order). */
function scrambled(runs: Runs, seed: number): Runs {
  return {
    order: runs.order,
    runs: runs.runs.map((run) => {
      const at = Array.from({ length: run.length }, (_, i) => i);
      let s = seed | 1;
      for (let i = at.length - 1; i > 0; i--) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const j = s % (i + 1);
        [at[i], at[j]] = [at[j], at[i]];
      }
      return { length: run.length, keys: run.keys.map((key) => ({ ...key, values: Float64Array.from(at, (i) => key.values[i]) })) };
    }),
  };
}

describe('countBetween matches the reference', () => {
  it('any runs, bounds among their values or anywhere, ends included', () => {
    fc.assert(
      fc.property(runsOf(12, 300, 2), fc.integer(), fc.tuple(fc.nat(), fc.nat(), value, value, fc.boolean()), (sorted, seed, [a, b, x, y, fromValues]) => {
        const runs = scrambled(sorted, seed);
        const present: number[] = [];
        for (const run of runs.runs) for (let p = 0; p < run.length; p++) present.push(runValue(run, 0, p));
        const pool = present.filter((v) => !Number.isNaN(v));
        let low = fromValues && pool.length > 0 ? pool[a % pool.length] : Number.isNaN(x) ? 0 : x;
        let high = fromValues && pool.length > 0 ? pool[b % pool.length] : Number.isNaN(y) ? 1 : y;
        const { order, missing } = runs.order[0];
        if (compareValues(high, low, order, missing) < 0) [low, high] = [high, low];
        const got = wasm.countBetween(runs, low, high);
        const want = reference.countBetween(runs, low, high);
        expect([...got.before]).toEqual([...want.before]);
        expect([...got.between]).toEqual([...want.between]);
        expect([...got.positions]).toEqual([...want.positions]);
        expect(Array.from(got.values, (v) => (Object.is(v, -0) ? '-0' : v))).toEqual(Array.from(want.values, (v) => (Object.is(v, -0) ? '-0' : v)));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses NaN bounds', () => {
    const runs = { order: [{ order: 'asc' as const }], runs: [{ length: 1, keys: [{ values: Float64Array.of(1) }] }] };
    expect(() => wasm.countBetween(runs, NaN, 1)).toThrow(RangeError);
  });
});
