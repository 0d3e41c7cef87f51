/**
 * The queries that hold other queries: `bool`, `constant_score` and `dis_max`. Their clauses are
 * parsed with `inner`, one nesting level deeper.
 *
 * `bool` is read by ES's ObjectParser, so any failure inside one of its fields, an inner clause's
 * included, comes back wrapped: `x_content_parse_exception` `[bool] failed to parse field [must]`
 * caused by the clause's own error. `constant_score` and `dis_max` pass inner errors through as they are.
 */
import type { Query } from '../../query/query.ts';
import { EsError, parsingError } from '../../errors.ts';
import { isObject } from '../../patterns.ts';
import { tokenName } from '../request-values.ts';
import { BOOLEAN, declaredField, FLOAT, OBJECT_ARRAY_OR_NULL, unknownField, VALUE } from './object-parser.ts';
import {
  booleanValue,
  checkedBoost,
  doesNotSupport,
  floatValue,
  isScalar,
  mustStartWithObject,
  namedQueries,
  textOrNull,
  unsupportedOption,
  type JsonObject,
  type ParseInner,
} from './values.ts';

/** Each clause list, under its JSON name (`mustNot` is ES's deprecated spelling, still accepted). */
const OCCURS = { must: 'must', filter: 'filter', should: 'should', must_not: 'mustNot', mustNot: 'mustNot' } as const;

const BOOL_FIELDS = [...Object.keys(OCCURS), 'minimum_should_match', 'adjust_pure_negative', 'boost', '_name'];

/**
 * Clauses as one object or an array. `minimum_should_match` is kept as text (a number as its JSON
 * text); `adjust_pure_negative: false` (a bool of only `must_not` clauses matching nothing) is not run yet.
 */
export function bool(body: JsonObject, inner: ParseInner): Query {
  const query: Extract<Query, { kind: 'bool' }> = { kind: 'bool', must: [], filter: [], should: [], mustNot: [], boost: 1 };
  for (const [key, value] of Object.entries(body)) {
    if (Object.hasOwn(OCCURS, key)) {
      const clauses = declaredField('bool', key, value, OBJECT_ARRAY_OR_NULL, () => boolClauses(value, inner));
      query[OCCURS[key as keyof typeof OCCURS]].push(...clauses);
    } else if (key === 'minimum_should_match') {
      const msm = declaredField('bool', key, value, VALUE, () => textOrNull(value));
      if (msm === undefined) delete query.minimumShouldMatch;
      else query.minimumShouldMatch = msm;
    } else if (key === 'boost') {
      query.boost = declaredField('bool', key, value, FLOAT, () => checkedBoost(floatValue('bool', key, value), 'bool', body, body));
    } else if (key === 'adjust_pure_negative') {
      if (!declaredField('bool', key, value, BOOLEAN, () => booleanValue('bool', key, value))) throw unsupportedOption('bool', `${key}: false`);
    } else if (key === '_name') {
      throw namedQueries();
    } else {
      throw unknownField('bool', key, BOOL_FIELDS);
    }
  }
  return query;
}

/** `null` adds no clause; an item that is not a clause object fails like any malformed clause. */
function boolClauses(value: unknown, inner: ParseInner): Query[] {
  if (value === null) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => {
    if (Array.isArray(item)) throw new EsError(400, 'illegal_state_exception', 'expected value but got [START_ARRAY]');
    return inner(item);
  });
}

export function constantScore(body: JsonObject, inner: ParseInner): Query {
  let filter: Query | undefined;
  let boost = 1;
  for (const [key, value] of Object.entries(body)) {
    if (isObject(value)) {
      if (key !== 'filter') throw doesNotSupport('constant_score', key);
      filter = inner(value);
    } else if (isScalar(value)) {
      if (key === '_name') throw namedQueries();
      if (key !== 'boost') throw doesNotSupport('constant_score', key);
      boost = floatValue('constant_score', key, value);
    } else {
      throw parsingError(`unexpected token [${tokenName(value)}]`);
    }
  }
  if (filter === undefined) throw parsingError("[constant_score] requires a 'filter' element");
  return { kind: 'constant_score', filter, boost: checkedBoost(boost, 'constant_score', body, body) };
}

/** `queries` as one clause or a non-empty array of them; `tie_breaker` 0 unless given. */
export function disMax(body: JsonObject, inner: ParseInner): Query {
  let queries: Query[] | undefined;
  let tieBreaker = 0;
  let boost = 1;
  for (const [key, value] of Object.entries(body)) {
    if (isObject(value) || Array.isArray(value)) {
      if (key !== 'queries') throw doesNotSupport('dis_max', key);
      if (Array.isArray(value) && value.length === 0) throw mustStartWithObject();
      queries = [...(queries ?? []), ...(Array.isArray(value) ? value : [value]).map((clause) => inner(clause))];
    } else if (key === 'boost') {
      boost = floatValue('dis_max', key, value);
    } else if (key === 'tie_breaker') {
      tieBreaker = floatValue('dis_max', key, value);
    } else if (key === '_name') {
      throw namedQueries();
    } else {
      throw doesNotSupport('dis_max', key);
    }
  }
  if (queries === undefined) throw parsingError("[dis_max] requires 'queries' field with at least one clause");
  return { kind: 'dis_max', queries, tieBreaker, boost: checkedBoost(boost, 'dis_max', body, body) };
}
