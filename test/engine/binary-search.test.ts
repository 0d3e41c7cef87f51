/**
 * The one binary search against the plainest reading of each question: a walk from the start.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstNotBefore, gallop, lowerBound, upperBound } from '../../src/engine/binary-search.ts';

const sorted = fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(Number.NaN)), { maxLength: 40 }).map((values) => {
  // Ascending, NaN last: as the engine's columns and runs hold missing values.
  const numbers = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return Float64Array.from([...numbers, ...values.filter((v) => Number.isNaN(v))]);
});

/** The first index in [lo, hi) where `test` fails, walking. */
function walk(lo: number, hi: number, test: (i: number) => boolean): number {
  let i = lo;
  while (i < hi && test(i)) i++;
  return i;
}

describe('binary search', () => {
  it('lowerBound and upperBound find what a walk finds, within any [lo, hi)', () => {
    fc.assert(
      fc.property(sorted, fc.integer({ min: -6, max: 6 }), fc.nat(), fc.nat(), (values, value, a, b) => {
        const lo = Math.min(a, b) % (values.length + 1), hi = Math.max(lo, Math.max(a, b) % (values.length + 1));
        expect(lowerBound(values, value, lo, hi)).toBe(walk(lo, hi, (i) => values[i] < value));
        expect(upperBound(values, value, lo, hi)).toBe(walk(lo, hi, (i) => values[i] <= value));
        expect(lowerBound(values, value)).toBe(walk(0, values.length, (i) => values[i] < value));
      }),
    );
  });

  it('gallop from any start finds the first value not below, under any order', () => {
    fc.assert(
      fc.property(sorted, fc.integer({ min: -6, max: 6 }), fc.nat(), (values, value, start) => {
        const from = start % (values.length + 1);
        expect(gallop(values, value, from)).toBe(walk(from, values.length, (i) => values[i] < value));
        const terms = Array.from(values, (v) => String.fromCharCode(97 + (Number.isNaN(v) ? 20 : v + 5)));
        const below = (x: string, y: string) => x < y;
        expect(gallop(terms, 'f', from, below)).toBe(walk(from, terms.length, (i) => terms[i] < 'f'));
      }),
    );
  });

  it('firstNotBefore is where a prefix of "before" ends', () => {
    fc.assert(
      fc.property(fc.nat(30), fc.nat(30), (length, cut) => {
        expect(firstNotBefore(0, length, (i) => i < cut)).toBe(Math.min(cut, length));
      }),
    );
  });
});
