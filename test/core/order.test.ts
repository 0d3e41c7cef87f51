import { describe, expect, it } from 'vitest';
import { reference, wasmKernels, type SortKey } from '../../src/core/index.ts';

const wasm = wasmKernels();
const values = Float64Array.from([2, NaN, -0, 0, -Infinity, Infinity, NaN, 2, -1]);
const n = values.length;

/** The documented order, spelled out entry by entry; the reference and the kernel must both give it. */
const cases: [string, SortKey, number[]][] = [
  ['asc: -0 before +0, missing last', { values }, [4, 8, 2, 3, 0, 7, 5, 1, 6]],
  ['desc: +0 before -0, missing still last', { values, order: 'desc' }, [5, 0, 7, 3, 2, 8, 4, 1, 6]],
  ['asc, missing first', { values, missing: '_first' }, [1, 6, 4, 8, 2, 3, 0, 7, 5]],
  ['desc, missing first', { values, order: 'desc', missing: '_first' }, [1, 6, 5, 0, 7, 3, 2, 8, 4]],
  ['asc, missing as 2: ties with 2 by entry', { values, missing: 2 }, [4, 8, 2, 3, 0, 1, 6, 7, 5]],
  ['desc, missing as -Infinity', { values, order: 'desc', missing: -Infinity }, [5, 0, 7, 3, 2, 8, 1, 4, 6]],
];

describe('the sort order', () => {
  it.each(cases)('%s', (_, key, expected) => {
    expect([...reference.topK([key], n, n)]).toEqual(expected);
    expect([...wasm.topK([key], n, n)]).toEqual(expected);
  });

  it('breaks ties on the first key with the second, then by entry', () => {
    const country = Float64Array.from([1, 0, 1, 0, 1]);
    const population = Float64Array.from([5, 7, 9, 7, NaN]);
    const keys: SortKey[] = [{ values: country }, { values: population, order: 'desc' }];
    expect([...wasm.topK(keys, 5, 5)]).toEqual([1, 3, 2, 0, 4]);
    expect([...reference.topK(keys, 5, 5)]).toEqual([1, 3, 2, 0, 4]);
  });
});
