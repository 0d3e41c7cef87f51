/** fast-check generators shared by the kernel property tests. */
import fc from 'fast-check';
import { compareEntries, type Missing, type RunKey, type Runs, type SortKey } from '../../src/core/index.ts';

/** Values that make ties, missing entries, signed zeros and infinities common. */
export const value = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }) },
  { weight: 2, arbitrary: fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 1.5, -1.5) },
  { weight: 2, arbitrary: fc.double() },
);

export const missing: fc.Arbitrary<Missing> = fc.oneof(
  fc.constant<Missing>('_last'),
  fc.constant<Missing>('_first'),
  fc.constantFrom<Missing>(0, -0, 2, -Infinity, Infinity, NaN),
);

export const keyShape = fc.record({
  order: fc.constantFrom('asc' as const, 'desc' as const),
  missing,
});

export type Pattern = 'random' | 'ascending' | 'descending' | 'equal';
export const pattern = fc.constantFrom<Pattern>('random', 'ascending', 'descending', 'equal');

/** A column of n values laid out in the given pattern. */
export function column(values: number[], n: number, shape: Pattern): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = values.length ? values[i % values.length] : 0;
  if (shape === 'ascending') out.sort();
  if (shape === 'descending') out.sort().reverse();
  if (shape === 'equal') out.fill(out[0] ?? 0);
  return out;
}

/** One key over a column long enough for the sampled limit and the buffer's cuts (8,192 entries and more). */
export const largeKey: fc.Arbitrary<{ n: number; keys: SortKey[] }> = fc
  .tuple(fc.integer({ min: 8192, max: 30_000 }), fc.array(value, { minLength: 1, maxLength: 5000 }), pattern, keyShape)
  .map(([n, vals, shape, key]) => ({ n, keys: [{ values: column(vals, n, shape), ...key }] }));

/** A k for {@link largeKey}: small, middling or past the column. */
export const largeK = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 40_000 }));

/** 1..maxKeys keys over n entries. */
export function keysOf(n: number, maxKeys: number): fc.Arbitrary<SortKey[]> {
  return fc.array(
    fc.tuple(fc.array(value, { minLength: 1, maxLength: 200 }), pattern, keyShape).map(([vals, shape, k]) => ({
      values: column(vals, n, shape),
      ...k,
    })),
    { minLength: 1, maxLength: maxKeys },
  );
}

export type Encoding = 'plain' | 'map' | 'offset';

/**
 * Runs of random lengths (some empty), each sorted by the keys. A key's values are kept plainly, as
 * ordinals into a map, or less an offset (where that is exact), as the engine's runs keep them.
 */
export function runsOf(maxRuns: number, maxLength: number, maxKeys: number): fc.Arbitrary<Runs> {
  return fc
    .record({
      lengths: fc.array(fc.oneof(fc.constant(0), fc.nat(maxLength)), { minLength: 1, maxLength: maxRuns }),
      keys: fc.array(fc.tuple(fc.array(value, { minLength: 1, maxLength: 50 }), keyShape, fc.constantFrom<Encoding>('plain', 'map', 'offset')), { minLength: 1, maxLength: maxKeys }),
    })
    .map(({ lengths, keys }) => ({
      order: keys.map(([, shape]) => shape),
      runs: lengths.map((length, r) => {
        const plain: SortKey[] = keys.map(([pool, shape], j) => ({
          values: Float64Array.from({ length }, (_, e) => pool[(e * (j + 3) + r * 7) % pool.length]),
          ...shape,
        }));
        const order = Array.from({ length }, (_, e) => e).sort((a, b) => compareEntries(plain, a, b) || a - b);
        return { length, keys: plain.map((key, j) => encode(Float64Array.from(order, (e) => key.values[e]), keys[j][2], r)) };
      }),
    }));
}

/** A run key's values as the engine may hand them over: plain, as ordinals into a map, or shifted by an offset (run r's own). */
export function encode(values: Float64Array, encoding: Encoding, r: number): RunKey {
  if (encoding === 'offset') {
    const offset = (r + 1) * 10;
    const shifted = values.map((v) => v - offset);
    if (shifted.every((v, i) => Object.is(v + offset, values[i]))) return { values: shifted, offset };
  }
  if (encoding === 'map') {
    const distinct: number[] = [];
    for (const v of values) if (!Number.isNaN(v) && !distinct.some((d) => Object.is(d, v))) distinct.push(v);
    const map = Float64Array.from(distinct.reverse());
    return { values: values.map((v) => (Number.isNaN(v) ? NaN : map.findIndex((d) => Object.is(d, v)))), map };
  }
  return { values };
}

/** Entries in all runs. */
export function totalOf(runs: Runs): number {
  return runs.runs.reduce((n, run) => n + run.length, 0);
}
