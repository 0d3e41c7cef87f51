import type { FieldClause } from '../request.ts';

/** Which value of a multi-valued field sorts the document: ES's default is the least ascending, the greatest descending. */
export function modeOf(clause: FieldClause): 'min' | 'max' {
  return clause.mode ?? (clause.order === 'asc' ? 'min' : 'max');
}
