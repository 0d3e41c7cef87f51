/**
 * Range bounds and term values as a field reads them at query time: numbers as the field's type
 * parses them, dates through date math (date-math.ts). A value the field cannot read fails the
 * query as Elasticsearch fails it: `failed to create query: …` on every shard.
 */
import { badRequest, EsError } from '../errors.ts';
import { parseValue, WHOLE_TYPES, type FieldMapping } from '../mapping.ts';
import { dateBound } from './date-math.ts';
import type { QueryValue } from './query.ts';

export function failedToCreateQuery(reason: string, _field?: string): EsError {
  return badRequest('query_shard_exception', `failed to create query: ${reason}`);
}

export function parseBound(mapping: FieldMapping, field: string, value: QueryValue, options: { roundUp: boolean; now: number; format?: string; timeZone?: string }): number {
  if (mapping.type === 'date') {
    if (typeof value === 'boolean') throw failedToCreateQuery(`failed to parse date field [${value}] with format [strict_date_optional_time||epoch_millis]`, field);
    try {
      return dateBound(value, options);
    } catch (e) {
      // Elasticsearch reports whatever fails while the query is built as the query's failure.
      if (e instanceof EsError && e.type === 'parse_exception') throw badRequest('query_shard_exception', `failed to create query: ${e.reason}`, {}, e);
      throw e;
    }
  }
  const number = parseValue(mapping, value);
  if (typeof number !== 'number') throw failedToCreateQuery(`For input string: "${String(value)}"`, field);
  return number;
}

/**
 * The values a term on a numeric field matches: the number itself; on a date every instant of the
 * value's rounding unit, as Elasticsearch turns a term on a date into a range from the value
 * rounded down to the value rounded up (`2024-01-02` is the whole day; epoch millis one instant);
 * on a whole-number field nothing for a value with a fraction (an empty interval).
 */
export function termBounds(mapping: FieldMapping, field: string, value: QueryValue, now: number): [lo: number, hi: number] {
  if (mapping.type === 'date') return [parseBound(mapping, field, value, { roundUp: false, now }), parseBound(mapping, field, value, { roundUp: true, now })];
  const number = parseBound(mapping, field, value, { roundUp: false, now });
  if (WHOLE_TYPES.has(mapping.type) && fractionOf(value) !== undefined) return [1, 0];
  return [number, number];
}

/**
 * A range's ends as one closed interval [lo, hi] of the field's values (a missing end is ±∞).
 * On a whole-number field an end given with a fraction is taken inward and inclusive, whatever
 * `gt`/`gte` or `lt`/`lte` said, as Elasticsearch's numeric range query reads it: `gt: 1.5` and
 * `gte: 1.5` are both ≥ 2, `gt: -1.5` is ≥ −1, `lt: -1.5` ≤ −2. Elsewhere an open end moves to the
 * next double inward.
 */
export function closedInterval(mapping: FieldMapping, field: string, range: { gt?: QueryValue; gte?: QueryValue; lt?: QueryValue; lte?: QueryValue }, options: { now: number; format?: string; timeZone?: string }): [lo: number, hi: number] {
  const end = (value: QueryValue | undefined, lower: boolean, open: boolean): number => {
    if (value === undefined) return lower ? -Infinity : Infinity;
    // Dates round an open lower end and a closed upper end up (date math's rounding).
    const bound = parseBound(mapping, field, value, { ...options, roundUp: lower === open });
    const fraction = WHOLE_TYPES.has(mapping.type) ? fractionOf(value) : undefined;
    if (fraction !== undefined) return lower ? Math.ceil(fraction) : Math.floor(fraction);
    if (!open) return bound;
    return lower ? nextUp(bound) : nextDown(bound);
  };
  return [Math.max(end(range.gte, true, false), end(range.gt, true, true)), Math.min(end(range.lte, false, false), end(range.lt, false, true))];
}

/** The number a value reads as, if it has a fractional part. */
function fractionOf(value: QueryValue): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) && number % 1 !== 0 ? number : undefined;
}

const bits = new Float64Array(1);
const bitsAsInt = new BigInt64Array(bits.buffer);

/** The next double above `x` (x itself for +∞ or NaN). */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  bits[0] = x;
  bitsAsInt[0] += x > 0 ? 1n : -1n;
  return bits[0];
}

/** The next double below `x`. */
export function nextDown(x: number): number {
  return -nextUp(-x);
}
