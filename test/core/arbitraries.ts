/** fast-check generators shared by the kernel property tests. */
import fc from 'fast-check';
import { compareEntries, type Missing, type Runs, type SortKey } from '../../src/core/index.ts';

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

/** Runs of random lengths (some empty), each sorted by the keys, over shared columns. */
export function runsOf(maxRuns: number, maxLength: number, maxKeys: number): fc.Arbitrary<Runs> {
  return fc
    .record({
      lengths: fc.array(fc.oneof(fc.constant(0), fc.nat(maxLength)), { minLength: 1, maxLength: maxRuns }),
      keys: fc.array(fc.tuple(fc.array(value, { minLength: 1, maxLength: 50 }), keyShape), { minLength: 1, maxLength: maxKeys }),
      lead: fc.nat(3),
    })
    .map(({ lengths, keys, lead }) => {
      const starts = new Uint32Array(lengths.length + 1);
      starts[0] = lead;
      lengths.forEach((len, s) => (starts[s + 1] = starts[s] + len));
      const total = starts[lengths.length];
      const sortKeys: SortKey[] = keys.map(([vals, shape], j) => ({
        values: Float64Array.from({ length: total }, (_, i) => vals[(i * (j + 3)) % vals.length]),
        ...shape,
      }));
      for (let s = 0; s < lengths.length; s++) sortRun(sortKeys, starts[s], starts[s + 1]);
      return { keys: sortKeys, starts };
    });
}

function sortRun(keys: SortKey[], from: number, to: number): void {
  const order = Array.from({ length: to - from }, (_, i) => from + i);
  order.sort((a, b) => compareEntries(keys, a, b) || a - b);
  for (const key of keys) {
    const sorted = order.map((e) => key.values[e]);
    key.values.set(sorted, from);
  }
}
