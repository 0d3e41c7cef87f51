/**
 * The queries that match indexed terms as given, without analysis (`term`, `terms`, `range`,
 * `exists`, `ids`, `prefix`, `wildcard`), and `match_all` / `match_none`. Each follows its ES 8
 * `*QueryBuilder.fromXContent`: the options it reads, their order, and its errors.
 */
import type { Query, QueryValue } from '../../query/query.ts';
import { EsError, illegalArgument, parsingError } from '../../errors.ts';
import { isObject } from '../../patterns.ts';
import { notSupported } from '../request-values.ts';
import { asParsingException, declaredField, FLOAT, STRING_ARRAY, unknownField } from './object-parser.ts';
import {
  booleanValue,
  checkedBoost,
  doesNotSupport,
  floatValue,
  isScalar,
  namedQueries,
  objectValue,
  oneField,
  text,
  textOrNull,
  unknownToken,
  unsupportedOption,
  type JsonObject,
} from './values.ts';

const STANDARD_FIELDS = ['boost', '_name'];

export function matchAll(body: JsonObject): Query {
  let boost = 1;
  asParsingException(() => {
    for (const [key, value] of Object.entries(body)) {
      if (key === '_name') throw namedQueries();
      if (key !== 'boost') throw unknownField('match_all', key, STANDARD_FIELDS);
      boost = declaredField('match_all', key, value, FLOAT, () => checkedBoost(floatValue('match_all', key, value), 'match_all', body, body));
    }
  });
  return { kind: 'match_all', boost };
}

export function matchNone(body: JsonObject): Query {
  let boost = 1;
  for (const [key, value] of Object.entries(body)) {
    if (!isScalar(value)) throw unknownToken('match_none', value, key);
    if (key === '_name') throw namedQueries();
    if (key !== 'boost') throw doesNotSupport('match_none', key);
    boost = floatValue('match_none', key, value);
  }
  return { kind: 'match_none', boost: checkedBoost(boost, 'match_none', body, body) };
}

/** `{"f": v}` or `{"f": {"value": v, "case_insensitive": …, "boost": …}}`; a `null` short form is skipped, as ES does. */
export function term(body: JsonObject): Query {
  let field: string | undefined;
  let value: QueryValue | undefined;
  let caseInsensitive = false;
  let boost = 1;
  let holder = body;
  for (const [key, given] of Object.entries(body)) {
    if (isObject(given)) {
      field = oneField('term', field, key);
      holder = given;
      for (const [option, v] of Object.entries(given)) {
        if (option === 'value' || option === 'term') {
          if (Array.isArray(v)) {
            throw parsingError(
              '[term] query does not support arrays for value - use a bool query with multiple term clauses in the should section or use a Terms query if scoring is not required',
            );
          }
          value = objectValue('term', option, v);
        } else if (option === '_name') throw namedQueries();
        else if (option === 'boost') boost = floatValue('term', option, v);
        else if (option === 'case_insensitive') caseInsensitive = booleanValue('term', option, v);
        else throw doesNotSupport('term', option);
      }
    } else if (isScalar(given)) {
      field = oneField('term', field, key);
      value = given;
    } else if (Array.isArray(given)) {
      throw parsingError('[term] query does not support array of values');
    }
  }
  if (!field) throw illegalArgument('field name is null or empty');
  if (value === undefined) throw illegalArgument('value cannot be null');
  return { kind: 'term', field, value, caseInsensitive, boost: checkedBoost(boost, 'term', body, holder) };
}

/** `{"f": [v1, v2], "boost": …}`; a terms lookup (`{"f": {"index", "id", "path"}}`) is not run yet. */
export function terms(body: JsonObject): Query {
  let field: string | undefined;
  let values: QueryValue[] = [];
  let boost = 1;
  for (const [key, given] of Object.entries(body)) {
    if (Array.isArray(given)) {
      if (field !== undefined) throw parsingError('[terms] query does not support multiple fields');
      field = key;
      values = given.map((v) => {
        const value = objectValue('terms', key, v);
        if (value === undefined) throw parsingError('No value specified for terms query');
        return value;
      });
    } else if (isObject(given)) {
      if (field !== undefined) {
        throw parsingError(`[terms] query does not support more than one field. Already got: [${field}] but also found [${key}]`);
      }
      throw notSupported('[terms] lookup');
    } else if (isScalar(given)) {
      if (key === '_name') throw namedQueries();
      if (key !== 'boost') throw doesNotSupport('terms', key);
      boost = floatValue('terms', key, given);
    } else {
      throw unknownToken('terms', given, key);
    }
  }
  if (field === undefined) {
    throw parsingError('[terms] query requires a field name, followed by array of terms or a document lookup specification');
  }
  if (field === '') throw illegalArgument('field name cannot be null.');
  return { kind: 'terms', field, values, boost: checkedBoost(boost, 'terms', body, body) };
}

/**
 * One lower and one upper bound: `gt`/`gte`/`lt`/`lte`, or the legacy `from`/`to` with
 * `include_lower`/`include_upper` (both true unless given); the last one given wins, as in ES.
 * `format` and `time_zone` are kept as given; they are checked against the field when the query runs.
 */
export function range(body: JsonObject): Query {
  let field: string | undefined;
  let from: QueryValue | undefined;
  let to: QueryValue | undefined;
  let includeLower = true;
  let includeUpper = true;
  let boost = 1;
  let format: string | undefined;
  let timeZone: string | undefined;
  let relation: string | undefined;
  let holder = body;
  for (const [key, given] of Object.entries(body)) {
    if (isObject(given)) {
      field = oneField('range', field, key);
      holder = given;
      for (const [option, v] of Object.entries(given)) {
        switch (option) {
          case 'from':
          case 'gt':
          case 'gte':
            from = objectValue('range', option, v);
            if (option !== 'from') includeLower = option === 'gte';
            break;
          case 'to':
          case 'lt':
          case 'lte':
            to = objectValue('range', option, v);
            if (option !== 'to') includeUpper = option === 'lte';
            break;
          case 'include_lower':
            includeLower = booleanValue('range', option, v);
            break;
          case 'include_upper':
            includeUpper = booleanValue('range', option, v);
            break;
          case 'boost':
            boost = floatValue('range', option, v);
            break;
          case 'format':
            format = text(v);
            break;
          case 'time_zone':
            timeZone = text(v);
            break;
          case 'relation':
            relation = text(v);
            break;
          case '_name':
            throw namedQueries();
          default:
            throw doesNotSupport('range', option);
        }
      }
    } else if (given !== null) {
      throw doesNotSupport('range', key);
    }
  }
  if (!field) throw illegalArgument('field name is null or empty');
  const query: Extract<Query, { kind: 'range' }> = { kind: 'range', field, boost: checkedBoost(boost, 'range', body, holder) };
  if (relation !== undefined) checkRelation(relation);
  if (from !== undefined) query[includeLower ? 'gte' : 'gt'] = from;
  if (to !== undefined) query[includeUpper ? 'lte' : 'lt'] = to;
  if (format !== undefined) query.format = format;
  if (timeZone !== undefined) query.timeZone = timeZone;
  return query;
}

/** `relation` only matters on range fields; deeppage takes only the default, `intersects`. */
function checkRelation(relation: string): void {
  const name = relation.toLowerCase();
  if (name === 'intersects') return;
  if (name === 'within' || name === 'contains') throw notSupported(`[range] relation [${relation}]`);
  if (name === 'disjoint') throw illegalArgument(`[range] query does not support relation [${relation}]`);
  throw illegalArgument(`${relation} is not a valid relation`);
}

export function exists(body: JsonObject): Query {
  let field: string | undefined;
  let boost = 1;
  for (const [key, value] of Object.entries(body)) {
    if (!isScalar(value)) throw unknownToken('exists', value, key);
    if (key === 'field') field = text(value);
    else if (key === '_name') throw namedQueries();
    else if (key === 'boost') boost = floatValue('exists', key, value);
    else throw doesNotSupport('exists', key);
  }
  if (field === undefined) throw parsingError('[exists] must be provided with a [field]');
  if (field === '') throw illegalArgument('field name is null or empty');
  return { kind: 'exists', field, boost: checkedBoost(boost, 'exists', body, body) };
}

const IDS_FIELDS = ['values', 'boost', '_name'];

/** `{"values": ["1", "2"]}`; ES keeps the ids in a set, so repeats are dropped. No `values` matches nothing. */
export function ids(body: JsonObject): Query {
  const values = new Set<string>();
  let boost = 1;
  asParsingException(() => {
    for (const [key, value] of Object.entries(body)) {
      if (key === '_name') throw namedQueries();
      if (key === 'values') {
        for (const id of declaredField('ids', key, value, STRING_ARRAY, () => stringArray(value))) values.add(id);
      } else if (key === 'boost') {
        boost = declaredField('ids', key, value, FLOAT, () => checkedBoost(floatValue('ids', key, value), 'ids', body, body));
      } else {
        throw unknownField('ids', key, IDS_FIELDS);
      }
    }
  });
  return { kind: 'ids', values: [...values], boost };
}

/** ObjectParser's string array: one string, or an array whose items each have text. */
function stringArray(value: unknown): string[] {
  if (!Array.isArray(value)) return [text(value)];
  return value.map((item) => {
    if (Array.isArray(item)) throw new EsError(400, 'illegal_state_exception', 'expected value but got [START_ARRAY]');
    return text(item);
  });
}

export const prefix = (body: JsonObject): Query => pattern('prefix', ['value'], body);

/** The pattern is under `value` or `wildcard`. */
export const wildcard = (body: JsonObject): Query => pattern('wildcard', ['wildcard', 'value'], body);

/**
 * `prefix` and `wildcard`: `{"f": "p*"}` or `{"f": {"value": …, "case_insensitive": …, "boost": …}}`.
 * `rewrite` picks how Lucene scores the expanded terms; deeppage has the default only.
 */
function pattern(kind: 'prefix' | 'wildcard', valueOptions: readonly string[], body: JsonObject): Query {
  // ES reads the prefix with textOrNull (null leaves it unset) and the wildcard pattern with text.
  const read = kind === 'prefix' ? textOrNull : text;
  let field: string | undefined;
  let value: string | undefined;
  let caseInsensitive = false;
  let boost = 1;
  let holder = body;
  for (const [key, given] of Object.entries(body)) {
    field = oneField(kind, field, key);
    if (!isObject(given)) {
      value = read(given);
      continue;
    }
    holder = given;
    for (const [option, v] of Object.entries(given)) {
      if (valueOptions.includes(option)) value = read(v);
      else if (option === '_name') throw namedQueries();
      else if (option === 'boost') boost = floatValue(kind, option, v);
      else if (option === 'case_insensitive') caseInsensitive = booleanValue(kind, option, v);
      else if (option === 'rewrite') throw unsupportedOption(kind, option);
      else throw doesNotSupport(kind, option);
    }
  }
  if (!field) throw illegalArgument('field name is null or empty');
  if (value === undefined) throw illegalArgument('value cannot be null');
  return { kind, field, value, caseInsensitive, boost: checkedBoost(boost, kind, body, holder) };
}
