import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, wasmKernels, type Position, type SortKey } from '../../src/core/index.ts';
import { keysOf, largeK, largeKey, value } from './arbitraries.ts';

const wasm = wasmKernels();

/** A position: an entry's own values on the first keys (so ties with it are common), or values drawn at large; either tie. */
function positionOf(keys: SortKey[], n: number): fc.Arbitrary<Position> {
  const count = fc.integer({ min: 1, max: keys.length });
  const tie = fc.constantFrom(0, 1);
  const fromEntry = fc.tuple(fc.nat(Math.max(0, n - 1)), count, tie).map(([e, c, t]) => ({ values: keys.slice(0, c).map((key) => (n === 0 ? NaN : key.values[e])), tie: t }));
  const drawn = fc.tuple(fc.array(value, { minLength: keys.length, maxLength: keys.length }), count, tie).map(([vs, c, t]) => ({ values: vs.slice(0, c), tie: t }));
  return fc.oneof(fromEntry, drawn);
}

function same(keys: SortKey[], n: number, k: number, position: Position): void {
  expect([...wasm.topKAfter(keys, n, k, position)]).toEqual([...reference.topKAfter(keys, n, k, position)]);
}

describe('topKAfter matches the reference', () => {
  it('small inputs, 1..4 keys, any k, positions on and between entries', () => {
    fc.assert(
      fc.property(
        fc.nat(300).chain((n) => keysOf(n, 4).chain((keys) => fc.tuple(fc.constant(n), fc.constant(keys), fc.nat(n + 5), positionOf(keys, n)))),
        ([n, keys, k, position]) => same(keys, n, k, position),
      ),
      { numRuns: 400 },
    );
  });

  it('large inputs, where the sampled limit, the value filter and buffer cuts run', () => {
    fc.assert(
      fc.property(largeKey, largeK, fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1), ({ n, keys }, k, at, tie) => {
        // An entry's value, so that the position falls anywhere in the order.
        same(keys, n, k, { values: [keys[0].values[Math.floor(at * (n - 1))]], tie });
      }),
      { numRuns: 60 },
    );
  });

  it('large multi-key inputs, a unique last key as `_shard_doc` is', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8192, max: 20_000 }).chain((n) => fc.tuple(fc.constant(n), keysOf(n, 3), fc.nat(3000), fc.nat(n - 1))),
        ([n, keys, k, e]) => {
          const all = [...keys, { values: Float64Array.from({ length: n }, (_, i) => i) }];
          same(all, n, k, { values: all.map((key) => key.values[e]) });
        },
      ),
      { numRuns: 20 },
    );
  });

  it('a position with no values: the tie decides for every entry', () => {
    const keys = [{ values: Float64Array.of(3, 1, 2), order: 'desc' as const }];
    expect([...wasm.topKAfter(keys, 3, 2, { values: [], tie: 1 })]).toEqual([0, 2]);
    expect([...wasm.topKAfter(keys, 3, 2, { values: [] })]).toEqual([]);
  });

  it('skips the entry at the position and everything before it', () => {
    const keys = [{ values: Float64Array.of(5, 1, 3, 3, NaN, 4) }];
    expect([...wasm.topKAfter(keys, 6, 10, { values: [3] })]).toEqual([5, 0, 4]);
    expect([...wasm.topKAfter(keys, 6, 10, { values: [3], tie: 1 })]).toEqual([2, 3, 5, 0, 4]);
    expect([...wasm.topKAfter(keys, 6, 10, { values: [NaN] })]).toEqual([]);
  });

  it('rejects a position with more values than keys', () => {
    expect(() => wasm.topKAfter([{ values: new Float64Array(2) }], 2, 1, { values: [1, 2] })).toThrow(RangeError);
  });
});
