/** Whole numbers in the narrowest array (src/engine/segments/narrow.ts), against a plain reference. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { narrowest, widened } from '../../src/engine/segments/narrow.ts';

/** The reference: the first width, narrowest first, whose array gives every value back unchanged. */
function referenceWidth(values: number[]): number {
  for (const Type of [Uint8Array, Uint16Array, Uint32Array]) {
    const stored = Type.from(values);
    if (values.every((value, i) => Object.is(stored[i], value) || (value === 0 && stored[i] === 0))) return Type.BYTES_PER_ELEMENT;
  }
  return 8;
}

const value = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.integer({ min: 0, max: 70_000 }),
  fc.constantFrom(0, -0, 1, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 2 ** 32, 2 ** 53, -1, 0.5, NaN, Infinity),
  fc.double({ noNaN: false }),
);

describe('narrowest', () => {
  it('keeps every value exactly, in the narrowest width that does, and widens back to the same f64', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), (values) => {
        const f64 = Float64Array.from(values);
        const narrow = narrowest(f64);
        expect(narrow.length).toBe(values.length);
        expect(narrow.BYTES_PER_ELEMENT).toBe(referenceWidth(values));
        const back = widened(narrow);
        for (let i = 0; i < values.length; i++) expect(back[i] === f64[i] || (Number.isNaN(back[i]) && Number.isNaN(f64[i]))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('takes one byte a document for versions that are all 1, four for seqs under 2^32', () => {
    expect(narrowest(new Float64Array(1000).fill(1))).toBeInstanceOf(Uint8Array);
    expect(narrowest(Float64Array.from({ length: 10 }, (_, i) => 4_000_000_000 + i))).toBeInstanceOf(Uint32Array);
    expect(narrowest(Float64Array.of(2 ** 32))).toBeInstanceOf(Float64Array);
  });
});
