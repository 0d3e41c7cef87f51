/**
 * The analyzed queries: `match`, `match_phrase` and `multi_match` (types `best_fields` and
 * `most_fields`), after ES 8's `MatchQueryBuilder`, `MatchPhraseQueryBuilder` and
 * `MultiMatchQueryBuilder`. The analyzer is always the field's own and there is no fuzziness yet,
 * so the options that change either are refused rather than ignored.
 */
import type { Query, QueryValue, ZeroTermsQuery } from '../../query/query.ts';
import { badRequest, illegalArgument, parsingError } from '../../errors.ts';
import { isObject } from '../../patterns.ts';
import { bodyInt, notSupported } from '../request-values.ts';
import {
  booleanValue,
  checkedBoost,
  doesNotSupport,
  floatValue,
  isScalar,
  javaFloat,
  namedQueries,
  oneField,
  operator,
  text,
  unknownToken,
  unsupportedOption,
  zeroTermsQuery,
  type JsonObject,
} from './values.ts';

/** Options that pick another analyzer or turn on fuzzy matching. */
const UNSUPPORTED = new Set(['analyzer', 'fuzziness', 'prefix_length', 'max_expansions', 'fuzzy_rewrite', 'fuzzy_transpositions']);

/** The options `match` and `multi_match` share, with ES's defaults. */
interface MatchOptions {
  operator: 'or' | 'and';
  minimumShouldMatch?: string;
  zeroTermsQuery: ZeroTermsQuery;
  lenient?: boolean;
  boost: number;
}

/**
 * Reads one of the shared options; false when `option` is not one. `auto_generate_synonyms_phrase_query`
 * only changes queries built from multi-word synonyms, which deeppage's analyzers never produce, so
 * either value gives ES's query.
 */
function matchOption(query: string, option: string, value: QueryValue, into: MatchOptions): boolean {
  switch (option) {
    case 'boost':
      into.boost = floatValue(query, option, value);
      return true;
    case 'operator':
      into.operator = operator(value);
      return true;
    case 'minimum_should_match':
      into.minimumShouldMatch = text(value);
      return true;
    case 'zero_terms_query':
      into.zeroTermsQuery = zeroTermsQuery(value);
      return true;
    case 'lenient':
      into.lenient = booleanValue(query, option, value);
      return true;
    case 'auto_generate_synonyms_phrase_query':
      booleanValue(query, option, value);
      return true;
    case '_name':
      throw namedQueries();
    default:
      if (UNSUPPORTED.has(option)) throw unsupportedOption(query, option);
      return false;
  }
}

/** `{"f": "text"}` or `{"f": {"query": …, "operator": …, "minimum_should_match": …, …}}`. */
export function match(body: JsonObject): Query {
  let field: string | undefined;
  let value: QueryValue | undefined;
  const options: MatchOptions = { operator: 'or', zeroTermsQuery: 'none', boost: 1 };
  let holder = body;
  for (const [key, given] of Object.entries(body)) {
    field = oneField('match', field, key);
    if (!isObject(given)) {
      value = shortFormText('match', key, given);
      continue;
    }
    holder = given;
    for (const [option, v] of Object.entries(given)) {
      if (!isScalar(v)) throw unknownToken('match', v, option);
      if (option === 'query') value = v;
      else if (!matchOption('match', option, v, options)) throw doesNotSupport('match', option);
    }
  }
  if (value === undefined) throw parsingError('No text specified for text query');
  if (!field) throw illegalArgument('[match] requires fieldName');
  const { operator, minimumShouldMatch, zeroTermsQuery, lenient = false, boost } = options;
  return {
    kind: 'match',
    field,
    query: value,
    operator,
    ...(minimumShouldMatch !== undefined && { minimumShouldMatch }),
    zeroTermsQuery,
    lenient,
    boost: checkedBoost(boost, 'match', body, holder),
  };
}

/** `{"f": "a b"}` or `{"f": {"query": …, "slop": …, "zero_terms_query": …}}`. */
export function matchPhrase(body: JsonObject): Query {
  let field: string | undefined;
  let value: QueryValue | undefined;
  let slop = 0;
  let zeroTerms: ZeroTermsQuery = 'none';
  let boost = 1;
  let holder = body;
  for (const [key, given] of Object.entries(body)) {
    field = oneField('match_phrase', field, key);
    if (!isObject(given)) {
      value = shortFormText('match_phrase', key, given);
      continue;
    }
    holder = given;
    for (const [option, v] of Object.entries(given)) {
      if (!isScalar(v)) throw unknownToken('match_phrase', v, option);
      if (option === 'query') value = v;
      else if (option === 'slop') slop = bodyInt(option, v);
      else if (option === 'zero_terms_query') zeroTerms = zeroTermsQuery(v);
      else if (option === 'boost') boost = floatValue('match_phrase', option, v);
      else if (option === '_name') throw namedQueries();
      else if (option === 'analyzer') throw unsupportedOption('match_phrase', option);
      else throw doesNotSupport('match_phrase', option);
    }
  }
  if (!field) throw illegalArgument('[match_phrase] requires fieldName');
  if (value === undefined) throw illegalArgument('[match_phrase] requires query value');
  if (slop < 0) throw illegalArgument('No negative slop allowed.');
  return { kind: 'match_phrase', field, query: value, slop, zeroTermsQuery: zeroTerms, boost: checkedBoost(boost, 'match_phrase', body, holder) };
}

/**
 * ES reads the short form's value with `objectText`, so `null` leaves the text unset. An array has no
 * text; ES's token loop then misreads its items, so this answers with the long form's error instead.
 */
function shortFormText(query: string, field: string, value: unknown): QueryValue | undefined {
  if (Array.isArray(value)) throw unknownToken(query, value, field);
  return value === null ? undefined : (value as QueryValue);
}

const MULTI_MATCH_TYPES = ['best_fields', 'most_fields', 'cross_fields', 'phrase', 'phrase_prefix', 'bool_prefix'];

/** The tie breaker each type has unless one is given. */
const TYPE_TIE_BREAKER = { best_fields: 0, most_fields: 1 };

/**
 * `{"query": …, "fields": ["title^3", "body"], "type": …, "tie_breaker": …, …}`. Without `fields`
 * ES searches `index.query.default_field` (all fields unless set), left to the executor as `[]`.
 * Leniency defaults to true when the fields are all fields (`*`), as in ES.
 */
export function multiMatch(body: JsonObject): Query {
  let value: QueryValue | undefined;
  const fields = new Map<string, number>();
  let type: 'best_fields' | 'most_fields' = 'best_fields';
  let tieBreaker: number | undefined;
  const options: MatchOptions = { operator: 'or', zeroTermsQuery: 'none', boost: 1 };
  for (const [key, given] of Object.entries(body)) {
    if (key === 'fields') {
      if (Array.isArray(given)) for (const entry of given) addField(fields, entry);
      else if (isScalar(given)) addField(fields, given);
      else throw doesNotSupport('multi_match', key);
      continue;
    }
    if (!isScalar(given)) throw unknownToken('multi_match', given, key);
    if (key === 'query') value = given;
    else if (key === 'type') type = multiMatchType(text(given));
    else if (key === 'tie_breaker') tieBreaker = floatValue('multi_match', key, given);
    else if (key === 'slop') throw unsupportedOption('multi_match', key);
    else if (!matchOption('multi_match', key, given, options)) throw doesNotSupport('multi_match', key);
  }
  if (value === undefined) throw parsingError('No text specified for multi_match query');
  const { operator, minimumShouldMatch, zeroTermsQuery, boost } = options;
  const allFields = fields.size === 0 || fields.has('*');
  return {
    kind: 'multi_match',
    query: value,
    fields: [...fields].map(([field, fieldBoost]) => ({ field, boost: fieldBoost })),
    type,
    tieBreaker: tieBreaker ?? TYPE_TIE_BREAKER[type],
    operator,
    ...(minimumShouldMatch !== undefined && { minimumShouldMatch }),
    zeroTermsQuery,
    lenient: options.lenient ?? allFields,
    boost: checkedBoost(boost, 'multi_match', body, body),
  };
}

/** `name^boost`, split at the first `^`; a field given twice keeps its last boost (ES keeps a map). */
function addField(fields: Map<string, number>, entry: unknown): void {
  const spec = text(entry);
  const caret = spec.indexOf('^');
  if (caret < 0) fields.set(spec, 1);
  else fields.set(spec.slice(0, caret), javaFloat(spec.slice(caret + 1)));
}

function multiMatchType(name: string): 'best_fields' | 'most_fields' {
  if (name === 'best_fields' || name === 'most_fields') return name;
  if (MULTI_MATCH_TYPES.includes(name)) throw notSupported(`[multi_match] type [${name}]`);
  throw badRequest('parse_exception', `failed to parse [multi_match] query type [${name}]. unknown type.`);
}
