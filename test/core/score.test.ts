import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, wasmKernels, type ScoredTerm } from '../../src/core/index.ts';

const wasm = wasmKernels();
const f = Math.fround;

/** A term over a segment of `count`: ascending distinct documents, frequencies, a float32 weight and table. */
const term = (count: number) =>
  fc
    .tuple(
      fc.uniqueArray(fc.nat(count - 1), { maxLength: Math.min(count, 400) }),
      fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 400, maxLength: 400 }),
      fc.float({ min: f(0.001), max: 50, noNaN: true }),
      fc.array(fc.float({ min: f(0.01), max: 20, noNaN: true }), { minLength: 256, maxLength: 256 }),
    )
    .map(([docs, freqs, weight, inverse]): ScoredTerm => {
      const sorted = Uint32Array.from(docs).sort();
      return { docs: sorted, freqs: Uint32Array.from(freqs.slice(0, sorted.length)), weight, inverse: Float32Array.from(inverse) };
    });

describe('scoreTerms matches the reference', () => {
  it('any terms, overlaps, minimums, scored or not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 700 }).chain((count) =>
          fc.tuple(fc.constant(count), fc.array(term(count), { maxLength: 6 }), fc.uint8Array({ minLength: count, maxLength: count }), fc.integer({ min: 0, max: 7 }), fc.boolean()),
        ),
        ([, terms, norms, minimum, scored]) => {
          const got = wasm.scoreTerms(terms, norms, minimum, scored);
          const want = reference.scoreTerms(terms, norms, minimum, scored);
          expect([...got.docs]).toEqual([...want.docs]);
          if (scored) expect([...got.scores!]).toEqual([...want.scores!]);
          else expect(got.scores).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('bestScored: the count and the best k, deletes left out, ties by document', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 700 }).chain((count) =>
          fc.tuple(
            fc.constant(count),
            fc.array(term(count), { maxLength: 5 }),
            fc.uint8Array({ min: 0, max: 3, minLength: count, maxLength: count }),
            fc.option(fc.uint8Array({ min: 0, max: 1, minLength: count, maxLength: count })),
            fc.integer({ min: 0, max: 3 }),
            fc.integer({ min: 0, max: 40 }),
          ),
        ),
        ([, terms, norms, deleted, minimum, k]) => {
          // Few norm bytes and weights: many equal scores, so ties by document are exercised.
          const got = wasm.bestScored(terms, norms, minimum, k, deleted ?? undefined);
          const want = reference.bestScored(terms, norms, minimum, k, deleted ?? undefined);
          expect(got.count).toBe(want.count);
          expect([...got.docs]).toEqual([...want.docs]);
          expect([...got.scores!]).toEqual([...want.scores]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('documents past 2^16, the last word of the bitset, and memory left as found', () => {
    const count = 70_001;
    const docs = Uint32Array.from([0, 63, 64, 65_535, 65_536, 70_000]);
    const before = wasm.inUse();
    const got = wasm.scoreTerms([{ docs, freqs: new Uint32Array(6).fill(2), weight: 2, inverse: new Float32Array(256).fill(0.5) }], new Uint8Array(count), 1, true);
    expect([...got.docs]).toEqual([...docs]);
    expect([...got.scores!]).toEqual(Array(6).fill(f(2 - 2 / 2)));
    expect(wasm.inUse()).toEqual(before);
  });

  it('refuses a table of the wrong size', () => {
    expect(() => wasm.scoreTerms([{ docs: new Uint32Array(1), freqs: new Uint32Array(1), weight: 1, inverse: new Float32Array(10) }], new Uint8Array(4), 1, true)).toThrow(RangeError);
  });
});
