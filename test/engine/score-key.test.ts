import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shownScore, shownScoreByText } from '../../src/engine/search/sort/score-key.ts';

/** The plain rule: the fewest significant digits (1…9) whose decimal reads back as the same float32. */
function reference(score: number): number {
  if (!Number.isFinite(score) || score === 0) return score;
  for (let digits = 1; digits <= 9; digits++) {
    const shown = Number(score.toPrecision(digits));
    if (Math.fround(shown) === score) return shown;
  }
  throw new Error(`no decimal of 9 digits reads back as ${score}`);
}

const float32 = fc.integer({ min: 0, max: 0xffffffff }).map((bits) => new Float32Array(new Uint32Array([bits]).buffer)[0]);

describe('shownScore', () => {
  it('writes scores as Elasticsearch writes floats', () => {
    expect(shownScore(Math.fround(0.22108284))).toBe(0.22108284);
    expect(shownScore(Math.fround(0.15512443))).toBe(0.15512443);
    expect(shownScore(1)).toBe(1);
    // Exact ties on negative scores round away from zero, as toPrecision does (fast-check found these rarely).
    for (const [score, shown] of [[-5.33203125, -5.3320313], [-7.46484375, -7.4648438], [-3.22265625, -3.2226563]]) expect(shownScore(score)).toBe(shown);
    expect(shownScore(Math.fround(0.1))).toBe(0.1);
    expect(shownScore(Math.fround(1e-7))).toBe(1e-7);
    expect(shownScore(Math.fround(3.4e38))).toBe(3.4e38);
    expect(shownScore(Infinity)).toBe(Infinity);
    expect(Number.isNaN(shownScore(NaN))).toBe(true);
  });

  it('equals the plain rule for every kind of float32', () => {
    fc.assert(fc.property(float32, (score) => {
      expect(shownScore(score)).toBe(reference(score));
      expect(shownScoreByText(score)).toBe(reference(score));
    }), { numRuns: 50_000 });
  });

  it('equals the plain rule for scores in the usual range, powers of ten and their neighbours', () => {
    const near = (x: number) => {
      const f = Math.fround(x);
      const bits = new Uint32Array(new Float32Array([f]).buffer)[0];
      return [bits - 1, bits, bits + 1].map((b) => new Float32Array(new Uint32Array([b]).buffer)[0]);
    };
    for (let p = -38; p <= 38; p++) for (const score of near(10 ** p)) expect(shownScore(score)).toBe(reference(score));
    fc.assert(fc.property(fc.float({ min: Math.fround(1e-4), max: Math.fround(1e4), noNaN: true }), (score) => {
      expect(shownScore(score)).toBe(reference(score));
    }), { numRuns: 50_000 });
  });
});
