/** Keyword term order: code point order, whichever way the distinct terms are sorted. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareTerms, sortedDistinct } from '../../src/engine/terms.ts';

/** Code point order stated once more, plainly: compare the arrays of code points. */
function byCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!), y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

describe('sortedDistinct', () => {
  it('sorts distinct terms in code point order, ASCII-only lists (the fast path) and others alike', () => {
    const term = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('ｚ', '😀', 'é', 'z'));
    fc.assert(
      fc.property(fc.array(term, { maxLength: 40 }), (terms) => {
        const expected = [...new Set(terms)].sort(byCodePoints);
        expect(sortedDistinct(terms)).toEqual(expected);
        expect([...new Set(terms)].sort(compareTerms)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
