/**
 * `_score`: relevance. `match_all` scores every hit 1.0, so a `_score` clause orders nothing and
 * is no kernel key: hits tie on it and fall through to the next clause, or to the tie-break.
 */
import type { SortClause } from '../request.ts';

export const MATCH_ALL_SCORE = 1.0;

export function isScore(clause: SortClause): clause is Extract<SortClause, { kind: 'score' }> {
  return clause.kind === 'score';
}
