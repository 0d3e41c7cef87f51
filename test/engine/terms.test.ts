/** Keyword term order: code point order, whichever way the distinct terms are sorted. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/lib/data.ts';
import { finish, SLICE } from '../../src/engine/steps.ts';
import { compareTerms, globalOrdinals, sortedDistinct, sortedSteps, subsetSteps } from '../../src/engine/terms.ts';

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

  it('sorts a dictionary of tens of thousands in chunks merged a step at a time, in the same order', () => {
    const random = mulberry32(20261123);
    const next = () => random() / 2 ** 32;
    const word = (beyond: boolean) => {
      let out = '';
      const length = 1 + Math.floor(next() * 8);
      for (let i = 0; i < length; i++) out += beyond && next() < 0.1 ? pick(['😀', 'ｚ', 'é']) : String.fromCharCode(97 + Math.floor(next() * 26));
      return out;
    };
    const pick = (list: string[]) => list[Math.floor(next() * list.length)];
    for (const beyond of [false, true]) {
      const terms = Array.from({ length: 30_000 }, () => word(beyond));
      const steps = sortedSteps([...new Set(terms)]);
      let yields = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) yields++;
      // Several chunks, and a merge that went on over several steps.
      expect(yields).toBeGreaterThan(4);
      expect(step.value).toEqual([...new Set(terms)].sort(byCodePoints));
    }
  });
});

describe('global ordinals', () => {
  /** The union of the dictionaries, sorted, and each dictionary's terms found in it: the plain way. */
  const reference = (dictionaries: string[][]) => {
    const terms = [...new Set(dictionaries.flat())].sort(byCodePoints);
    return { terms, maps: dictionaries.map((d) => Uint32Array.from(d, (term) => terms.indexOf(term))) };
  };
  const term = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('ｚ', '😀', 'é', 'z', 'a', 'ab'));
  const dictionary = fc.array(term, { maxLength: 30 }).map((terms) => sortedDistinct(terms));

  it('merges sorted dictionaries into their union, each term mapped to its place', () => {
    fc.assert(
      fc.property(fc.array(dictionary, { maxLength: 12 }), (dictionaries) => {
        expect(globalOrdinals(dictionaries)).toEqual(reference(dictionaries));
      }),
      { numRuns: 500 },
    );
  });
});

describe('subsetSteps', () => {
  const term = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('ｚ', '😀', 'é', 'z', 'a', 'ab'));

  it('keeps the marked terms in order, and they merge with other dictionaries as the plain union does', () => {
    fc.assert(
      fc.property(fc.array(term, { maxLength: 30 }), fc.array(fc.boolean(), { maxLength: 30 }), fc.array(term, { maxLength: 30 }), (terms, marks, others) => {
        const dictionary = sortedDistinct(terms), other = sortedDistinct(others);
        const used = Uint8Array.from(dictionary, (_, ord) => (marks[ord] ? 1 : 0));
        const subset = finish(subsetSteps(dictionary, used));
        expect(subset).toEqual(dictionary.filter((_, ord) => used[ord] === 1));
        // The merge compares by code units only where the subset and the other hold unit order.
        expect(globalOrdinals([subset, other]).terms).toEqual([...new Set([...subset, ...other])].sort(byCodePoints));
      }),
      { numRuns: 500 },
    );
  });

  it('goes a slice at a time over a long dictionary', () => {
    const dictionary = sortedDistinct(Array.from({ length: 3 * SLICE }, (_, i) => `t${i}`));
    const steps = subsetSteps(dictionary, new Uint8Array(dictionary.length).fill(1));
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBe(3);
    expect(step.value).toEqual(dictionary);
  });
});
