import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lengthToNorm, normToLength, termScorer } from '../../src/engine/query/bm25.ts';

describe('BM25 as Elasticsearch 8 scores', () => {
  it("gives count/30_min_score's documents the scores its YAML test expects", () => {
    // "foo bar" (2 tokens) and "foo bar bar bar bar" (5): 2 documents, 7 tokens; `foo` in both.
    const foo = termScorer(1, { docFreq: 2, docCount: 2, sumTotalTermFreq: 7 });
    expect(foo.score(1, lengthToNorm(2))).toBe(Math.fround(0.22108284));
    expect(foo.score(1, lengthToNorm(5))).toBe(Math.fround(0.15512443));
  });

  it('matches the worked multi-field example (reference §1.9 B)', () => {
    const body = { docCount: 3, sumTotalTermFreq: 12 };
    const quick = termScorer(1, { docFreq: 2, ...body });
    const fox = termScorer(1, { docFreq: 1, ...body });
    expect(quick.weight).toBe(Math.fround(1.034008));
    expect(quick.score(1, lengthToNorm(4))).toBe(Math.fround(0.4700036));
    expect(fox.score(1, lengthToNorm(4))).toBe(Math.fround(0.9808291));
    // A match of both terms sums in double and rounds once.
    expect(Math.fround(quick.score(1, lengthToNorm(4)) + fox.score(1, lengthToNorm(4)))).toBe(Math.fround(1.4508327));
    expect(quick.score(2, lengthToNorm(5))).toBe(Math.fround(0.6038003));
    const title = { docCount: 3, sumTotalTermFreq: 6 };
    expect(termScorer(3, { docFreq: 1, ...title }).score(1, lengthToNorm(2))).toBe(Math.fround(2.9424877));
    expect(termScorer(2, { docFreq: 2, ...body }).score(1, lengthToNorm(4))).toBe(Math.fround(0.9400072));
  });

  it('quantizes lengths as Lucene does: exact to 40, then rounded down', () => {
    const decoded = (length: number) => normToLength(lengthToNorm(length));
    for (const [length, norm, back] of [[41, 40, 40], [42, 41, 42], [43, 41, 42], [47, 43, 46], [50, 45, 50], [60, 49, 60], [100, 57, 96], [256, 70, 248], [1000, 87, 984]]) {
      expect(lengthToNorm(length)).toBe(norm);
      expect(decoded(length)).toBe(back);
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (length) => {
        const back = decoded(length);
        expect(back).toBeLessThanOrEqual(length);
        if (length <= 40) expect(back).toBe(length);
        expect(lengthToNorm(back)).toBe(lengthToNorm(length));
        expect(lengthToNorm(length)).toBeLessThan(256);
      }),
    );
  });

  it('scores grow with frequency and shrink with length, never negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 200 }), (docCount, docFreqRaw, freq, length) => {
        const docFreq = Math.min(docFreqRaw, docCount);
        const scorer = termScorer(1, { docFreq, docCount, sumTotalTermFreq: docCount * 10 });
        const s = scorer.score(freq, lengthToNorm(length));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(scorer.score(freq + 1, lengthToNorm(length))).toBeGreaterThanOrEqual(s);
        expect(scorer.score(freq, lengthToNorm(length + 50))).toBeLessThanOrEqual(s);
      }),
    );
  });
});
