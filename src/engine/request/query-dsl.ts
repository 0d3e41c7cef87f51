/**
 * The `query` of a search body, Elasticsearch 8's query DSL, parsed into the engine's `Query` tree
 * and checked for shape with ES's own errors. Each query follows its `*QueryBuilder.fromXContent`
 * (src/engine/request/query-dsl/); this module is `AbstractQueryBuilder.parseInnerQueryBuilder`: one query name
 * per clause, looked up among the queries deeppage runs. Nothing here looks at mappings: what a field
 * is, and how its text is analyzed, is decided per index when the query runs.
 *
 * ES reads the body token by token and its errors carry the JSON position (`[1:19] unknown field …`,
 * `… empty clause found at [1:11]`). A parsed value has no positions, so every reason here is written
 * without them.
 *
 * A query or option ES has and deeppage does not run yet is refused with a 400
 * `illegal_argument_exception` ("… is not supported by deeppage yet"), never ignored, as an ignored
 * option would answer with other hits.
 *
 * @example
 * parseQueryDsl({ match: { title: 'quick fox' } })
 * // { kind: 'match', field: 'title', query: 'quick fox', operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 }
 * parseQueryDsl({ boool: {} }) // throws 400 parsing_exception "unknown query [boool] did you mean [bool]?"
 */
import type { Query } from '../query/query.ts';
import { badRequest, illegalArgument, parsingError, type EsError } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { notSupported, unknownKey } from './request-values.ts';
import { bool, constantScore, disMax } from './query-dsl/compound.ts';
import { match, matchPhrase, multiMatch } from './query-dsl/full-text.ts';
import { didYouMean } from './query-dsl/suggest.ts';
import { exists, ids, matchAll, matchNone, prefix, range, term, terms, wildcard } from './query-dsl/term-level.ts';
import { mustStartWithObject, type QueryParser } from './query-dsl/values.ts';

/**
 * ES's `indices.query.bool.max_nested_depth`: how many queries may nest inside each other, the
 * outermost counting as 1. Its default is 30 since ES 8.6 (elastic/elasticsearch#90425; 20 before).
 */
export const MAX_NESTED_DEPTH = 30;

const PARSERS = new Map<string, QueryParser>([
  ['match_all', matchAll],
  ['match_none', matchNone],
  ['term', term],
  ['terms', terms],
  ['range', range],
  ['exists', exists],
  ['ids', ids],
  ['prefix', prefix],
  ['wildcard', wildcard],
  ['match', match],
  ['match_phrase', matchPhrase],
  ['multi_match', multiMatch],
  ['bool', bool],
  ['constant_score', constantScore],
  ['dis_max', disMax],
]);

/**
 * The queries an ES 8 node registers (server, bundled modules and x-pack): the candidates of its
 * "did you mean", and the names refused as not run yet rather than unknown.
 */
const ES_QUERIES = new Set([
  ...PARSERS.keys(),
  'boosting', 'combined_fields', 'distance_feature', 'field_masking_span', 'function_score', 'fuzzy',
  'geo_bounding_box', 'geo_distance', 'geo_polygon', 'geo_shape', 'has_child', 'has_parent', 'intervals',
  'knn', 'match_bool_prefix', 'match_phrase_prefix', 'more_like_this', 'nested', 'parent_id', 'percolate',
  'pinned', 'query_string', 'rank_feature', 'regexp', 'rule', 'script', 'script_score', 'semantic', 'shape',
  'simple_query_string', 'span_containing', 'span_field_masking', 'span_first', 'span_gap', 'span_multi',
  'span_near', 'span_not', 'span_or', 'span_term', 'span_within', 'sparse_vector', 'terms_set',
  'text_expansion', 'weighted_tokens', 'wrapper',
]);

/** Parses the value of a search body's `query` (ES's `SearchSourceBuilder` refuses a non-object there). */
export function parseQueryDsl(value: unknown): Query {
  if (!isObject(value)) throw unknownKey('query', value);
  return parseClause(value, 1);
}

/** Checks in ES's order: the clause's object, its query's object, the depth, the name, the query, stray keys. */
function parseClause(clause: unknown, depth: number): Query {
  if (!isObject(clause)) throw mustStartWithObject();
  const [name, ...others] = Object.keys(clause);
  if (name === undefined) throw illegalArgument('query malformed, empty clause found');
  const body = clause[name];
  if (!isObject(body)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
  if (depth > MAX_NESTED_DEPTH) {
    throw illegalArgument('The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]');
  }
  const parse = PARSERS.get(name);
  if (parse === undefined) throw ES_QUERIES.has(name) ? notSupported(`[${name}] query`) : unknownQuery(name);
  const query = parse(body, (inner) => parseClause(inner, depth + 1));
  if (others.length > 0) throw parsingError(`[${name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  return query;
}

function unknownQuery(name: string): EsError {
  const cause = badRequest('named_object_not_found_exception', `unknown field [${name}]`);
  return badRequest('parsing_exception', `unknown query [${name}]${didYouMean(name, ES_QUERIES)}`, undefined, cause);
}
