import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, wasmKernels } from '../../src/core/index.ts';
import { runsOf, totalOf } from './arbitraries.ts';

const wasm = wasmKernels();

describe('rankSelect matches the reference', () => {
  it('any rank from 0 to past the total, 1..64 runs with empty ones', () => {
    fc.assert(
      fc.property(
        runsOf(64, 50, 3).chain((runs) => {
          const total = totalOf(runs);
          return fc.tuple(fc.constant(runs), fc.oneof(fc.constant(0), fc.constant(total), fc.nat(total + 5)));
        }),
        ([runs, rank]) => {
          expect([...wasm.rankSelect(runs, rank)]).toEqual([...reference.rankSelect(runs, rank)]);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('deep ranks in long runs', () => {
    fc.assert(
      fc.property(runsOf(8, 5000, 1), fc.double({ min: 0, max: 1, noNaN: true }), (runs, at) => {
        const total = totalOf(runs);
        const rank = Math.floor(at * total);
        expect([...wasm.rankSelect(runs, rank)]).toEqual([...reference.rankSelect(runs, rank)]);
      }),
      { numRuns: 30 },
    );
  });
});
