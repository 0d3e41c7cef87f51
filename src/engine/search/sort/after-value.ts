/**
 * `search_after` values as Elasticsearch reads them back (SearchAfterBuilder): what a hit's `sort`
 * array showed, in the key's comparable space. `null` stands for a missing value (NaN).
 */
import { illegalArgument } from '../../errors.ts';
import { parseDate } from '../../mapping.ts';

/** A numeric key's value: a number, a numeric or date string, or a boolean (ES's boolean format reads them as 1 and 0). */
export function afterNumber(field: string, value: unknown): number {
  if (value === null) return NaN;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const n = value.trim() === '' ? NaN : Number(value);
    if (!Number.isNaN(n)) return n;
    const date = parseDate(value);
    if (date !== undefined) return date;
  }
  throw illegalArgument(`Failed to parse search_after value for field [${field}].`);
}

/**
 * A keyword key's value: the term's global ordinal, or, for a term no segment holds, a place
 * between the ordinals of its neighbours (so it compares as the term would).
 */
export function afterTerm(field: string, value: unknown, ordinalOf: (term: string) => number): number {
  if (value === null) return NaN;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw illegalArgument(`Failed to parse search_after value for field [${field}].`);
  }
  return ordinalOf(String(value));
}
