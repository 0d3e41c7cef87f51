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

/** The score as a response shows it: the shortest decimal of its float32 value. */
export function shownScore(score: number): number {
  if (!Number.isFinite(score) || score === 0) return score;
  // Most scores need 7 to 9 digits (9 always reads back): start at 7, go down while it reads back.
  let digits = 7;
  if (readsBack(score, digits)) while (digits > 1 && readsBack(score, digits - 1)) digits--;
  else while (digits < 9 && !readsBack(score, digits)) digits++;
  return Number(score.toPrecision(digits));
}

function readsBack(score: number, digits: number): boolean {
  return Math.fround(Number(score.toPrecision(digits))) === score;
}

/** A `search_after` value of a `_score` clause, read as a float. */
export function afterScore(raw: unknown): number {
  return Math.fround(afterNumber('_score', raw));
}
