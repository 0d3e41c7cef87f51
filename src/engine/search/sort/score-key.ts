/**
 * `_score`: relevance. `match_all` scores every hit 1.0, so a `_score` clause orders nothing and
 * is no kernel key: hits tie on it and fall through to the next clause, or to the tie-break. Under
 * other queries it is a real key (query-page.ts).
 *
 * Scores are float32 values. Elasticsearch writes a float as the shortest decimal that reads back
 * as the same float (0.22108284, where the double holding it prints 0.22108283638954163), and reads
 * a `search_after` score back as a float.
 */
import type { SortClause } from '../request.ts';
import { afterNumber } from './after-value.ts';

export const MATCH_ALL_SCORE = 1.0;

export function isScore(clause: SortClause): clause is Extract<SortClause, { kind: 'score' }> {
  return clause.kind === 'score';
}

/** Powers of ten that doubles hold exactly: 1e0 … 1e22. */
const EXACT_POWERS = Array.from({ length: 23 }, (_, p) => 10 ** p);

/**
 * The score as a response shows it: the shortest decimal of its float32 value, as the double
 * nearest that decimal.
 *
 * For d = 1, 2, … significant digits, the candidate is the score rounded to d digits; the first that
 * reads back as the same float is the answer. Rounding is scaled arithmetic on doubles: a float32
 * score has 24 bits, so `score · 10^p` (p ≤ 22) is within a few double units of its true value,
 * far finer than the rounding to d ≤ 9 digits, and `c / 10^p` with exact c and 10^p is the double
 * nearest the decimal. Scores outside the exact powers' reach take {@link shownScoreByText}.
 */
export function shownScore(score: number): number {
  if (!Number.isFinite(score) || score === 0) return score;
  const magnitude = Math.abs(score);
  let e = Math.floor(Math.log10(magnitude));
  // log10 may land one off near powers of ten.
  if (10 ** e > magnitude) e--;
  else if (10 ** (e + 1) <= magnitude) e++;
  for (let digits = 1; digits <= 9; digits++) {
    const p = digits - 1 - e;
    if (p < 0 || p > 22) return shownScoreByText(score);
    const scale = EXACT_POWERS[p];
    // Rounded on the magnitude: a tie goes away from zero, as toPrecision rounds (Math.round would
    // take -5.33203125 to -5.3320312 where toPrecision writes -5.3320313).
    const rounded = Math.round(magnitude * scale) / scale;
    const candidate = score < 0 ? -rounded : rounded;
    if (Math.fround(candidate) === score) return candidate;
  }
  return shownScoreByText(score);
}

/** {@link shownScore} through `toPrecision`: any float32, a few times slower. */
export function shownScoreByText(score: number): number {
  if (!Number.isFinite(score) || score === 0) return score;
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(score.toPrecision(digits));
    if (Math.fround(candidate) === score) return candidate;
  }
  return Number(score.toPrecision(9));
}

/** A `search_after` value of a `_score` clause, read as a float. */
export function afterScore(raw: unknown): number {
  return Math.fround(afterNumber('_score', raw));
}
