/**
 * Range bounds and term values as a field reads them at query time: numbers as the field's type
 * parses them, dates through date math (date-math.ts). A value the field cannot read fails the
 * query as Elasticsearch fails it: `failed to create query: …` on every shard.
 */
import { badRequest, EsError } from '../errors.ts';
import { parseValue, type FieldMapping } from '../mapping.ts';
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
