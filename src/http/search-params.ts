/**
 * A search request from its URI parameters and JSON body, read in ES's order: the body first, then
 * the URI on top of it. URI `from`, `size`, `_source` and `track_total_hits` replace the body's; a URI
 * `sort` appends its clauses to the body's, as ES's RestSearchAction does. Every key is honoured,
 * ignored because it cannot change which hits come back, or refused with a 400: none is dropped
 * silently.
 *
 * @example
 * parseSearchRequest({ from: '20', sort: 'price:desc' }, { size: 5, query: { match_all: {} } })
 * // { from: 20, size: 5, sort: [{ kind: 'field', field: 'price', order: 'desc', missing: '_last' }], … }
 */
import { badRequest, illegalArgument, parsingError, validationFailed } from '../engine/errors.ts';
import { timeValueMs } from '../engine/time-value.ts';
import { isObject } from '../engine/patterns.ts';
import { searchRequest, type Paging, type Query, type SearchRequest, type SortClause, type SourceFilter } from '../engine/search/request.ts';
import { booleanParam, bodyFloat, bodyInt, INT_MAX, intParam, notSupported, tokenName, unknownKey } from './request-values.ts';
import { parseQueryDsl } from './query-dsl.ts';
import { parseQueryString } from './query-string.ts';
import { sortFromBody, sortFromParam } from './search-sort.ts';
import { sourceFromBody, sourceFromParams } from './search-source.ts';

type Params = Record<string, string | undefined>;

/** What the request said, before defaults: `undefined` is "not given", which ES tells apart from a default. */
interface Given {
  from?: number;
  size?: number;
  sort: SortClause[];
  source?: SourceFilter;
  query?: Query;
  trackTotalHits?: boolean | number;
  trackScores?: boolean;
  minScore?: number;
  after?: unknown[];
  pit?: { id: string; keepAliveMs?: number };
}

/** Body keys that cannot change the hits deeppage returns (one node, no timeouts, no scoring work). */
const IGNORED_KEYS = new Set(['timeout', 'explain', 'version', 'seq_no_primary_term', 'stored_fields', 'docvalue_fields', 'profile']);

/** Body keys ES understands and deeppage does not implement yet. */
const UNSUPPORTED_KEYS = new Set([
  'aggs', 'aggregations', 'highlight', 'suggest', 'collapse', 'rescore', 'post_filter',
  'script_fields', 'fields', 'knn', 'runtime_mappings', 'indices_boost', 'terminate_after', 'slice', 'stats', 'ext', 'retriever', 'rank',
]);

/** What shapes a URI `q=`: given without `q`, ES refuses them. */
const QUERY_STRING_PARAMS = ['df', 'default_operator', 'lenient', 'analyzer', 'analyze_wildcard'];

/** `paging` is deeppage's own: `sorted_runs` (default) or `top_k`, Elasticsearch's algorithm (request.ts). */
const READ_PARAMS = ['from', 'size', 'sort', '_source', '_source_includes', '_source_excludes', 'track_total_hits', 'rest_total_hits_as_int', 'paging', 'scroll', 'track_scores', 'q', ...QUERY_STRING_PARAMS];
const PAGING: readonly Paging[] = ['sorted_runs', 'top_k'];

/** Formatting options the response layer applies to every API (ES's `responseParams()`). */
export const RESPONSE_PARAMS = ['pretty', 'human', 'error_trace', 'filter_path'];

/**
 * URI parameters taken without effect here (one node, no caches; the README lists them), plus the URI
 * forms of ignored body keys. `routing` is read by the search route itself.
 */
const IGNORED_PARAMS = [
  'timeout', 'request_cache', 'allow_no_indices', 'ignore_unavailable', 'expand_wildcards', 'preference', 'routing', 'typed_keys',
  'batched_reduce_size', 'ccs_minimize_roundtrips', 'search_type', 'allow_partial_search_results', 'max_concurrent_shard_requests',
  'pre_filter_shard_size', 'explain', 'version', 'seq_no_primary_term', 'stored_fields', 'docvalue_fields',
];

const UNSUPPORTED_PARAMS = new Set(['terminate_after']);

const KNOWN_PARAMS = new Set([...READ_PARAMS, ...RESPONSE_PARAMS, ...IGNORED_PARAMS, ...UNSUPPORTED_PARAMS]);

/**
 * @param path names the request in the unrecognized-parameter error, as ES does.
 * @param hasIndex the path names indices (a point in time must not).
 */
export function parseSearchRequest(query: Params, body: unknown, path = '/_search', hasIndex = false): SearchRequest {
  const given: Given = { sort: [] };
  if (body !== undefined) readBody(body, given);
  readParams(query, given);
  checkParamNames(query, path);
  if (query.q !== undefined) given.query = queryStringParam(query);
  else {
    const stray = QUERY_STRING_PARAMS.filter((name) => query[name] !== undefined);
    if (stray.length > 0) throw illegalArgument(`request [${path}] contains parameters [${stray.join(', ')}] but missing query string parameter 'q'.`);
  }

  const restTotalHitsAsInt = query.rest_total_hits_as_int !== undefined && booleanParam(query.rest_total_hits_as_int);
  // A bound on the count would make an int total a lie, so ES forbids it and counts exactly by default.
  if (restTotalHitsAsInt && typeof given.trackTotalHits === 'number') {
    throw illegalArgument(`[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got ${given.trackTotalHits}`);
  }
  const trackTotalHits = given.trackTotalHits ?? (restTotalHitsAsInt ? true : undefined);

  const request = searchRequest({ sort: given.sort, restTotalHitsAsInt });
  if (given.from !== undefined) request.from = given.from;
  if (given.size !== undefined) request.size = given.size;
  if (given.source !== undefined) request.source = given.source;
  if (given.query !== undefined) request.query = given.query;
  if (trackTotalHits !== undefined) request.trackTotalHits = trackTotalHits;
  if (query.paging !== undefined) request.paging = pagingParam(query.paging);
  if (given.after !== undefined) request.after = given.after;
  if (query.track_scores !== undefined) request.trackScores = booleanParam(query.track_scores);
  else if (given.trackScores !== undefined) request.trackScores = given.trackScores;
  if (given.pit !== undefined) request.pit = given.pit;
  if (given.minScore !== undefined) request.minScore = given.minScore;
  if (query.scroll !== undefined) request.scroll = timeValueMs('scroll', query.scroll);
  validate(request, query, given, hasIndex);
  return request;
}

/** SearchRequest.validate's checks, all reported at once as ES numbers them. */
function validate(request: SearchRequest, query: Params, given: Given, hasIndex: boolean): void {
  const problems: string[] = [];
  if (request.scroll !== undefined) {
    if (given.trackTotalHits !== undefined && given.trackTotalHits !== true) problems.push('disabling [track_total_hits] is not allowed in a scroll context');
    if (request.from > 0) problems.push('using [from] is not allowed in a scroll context');
    if (request.size === 0) problems.push('[size] cannot be [0] in a scroll context');
    if (query.request_cache !== undefined && booleanParam(query.request_cache)) problems.push('[request_cache] cannot be used in a scroll context');
    if (request.after !== undefined) problems.push('[search_after] cannot be used in a scroll context');
  }
  if (request.pit) {
    if (request.scroll !== undefined) problems.push('using [point in time] is not allowed in a scroll context');
    if (hasIndex) problems.push('[indices] cannot be used with point in time. Do not specify any index with point in time.');
    if (query.routing !== undefined) problems.push('[routing] cannot be used with point in time. Do not specify any routing with point in time.');
    if (query.preference !== undefined) problems.push('[preference] cannot be used with point in time. Do not specify any preference with point in time.');
  } else if (request.sort.some((clause) => clause.kind === 'shard_doc')) {
    problems.push('[_shard_doc] sort field cannot be used without [point in time]');
  }
  if (problems.length > 0) throw validationFailed(problems);
}

function readBody(body: unknown, given: Given): void {
  if (!isObject(body)) throw parsingError(`Expected [START_OBJECT] but found [${tokenName(body)}]`);
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'from':
        given.from = checkFrom(bodyInt(key, value));
        break;
      case 'size':
        given.size = checkSize(bodyInt(key, value));
        break;
      case 'sort':
        given.sort = sortFromBody(value);
        break;
      case '_source':
        given.source = sourceFromBody(value);
        break;
      case 'query':
        given.query = parseQueryDsl(value);
        break;
      case 'track_scores':
        // Jackson's booleanValue takes the strings too.
        if (typeof value !== 'boolean' && value !== 'true' && value !== 'false') throw badRequest('x_content_parse_exception', '[track_scores] failed to parse field value');
        given.trackScores = value === true || value === 'true';
        break;
      case 'min_score':
        given.minScore = bodyFloat(key, value);
        break;
      case 'track_total_hits':
        given.trackTotalHits = typeof value === 'boolean' ? value : trackTotalHits(value, () => bodyInt(key, value));
        break;
      case 'search_after':
        given.after = searchAfterValues(value);
        break;
      case 'pit':
        given.pit = pointInTime(value);
        break;
      default:
        if (UNSUPPORTED_KEYS.has(key)) throw notSupported(`[${key}]`);
        if (!IGNORED_KEYS.has(key)) throw unknownKey(key, value);
    }
  }
}

function readParams(query: Params, given: Given): void {
  const { from, size, sort, track_total_hits: track } = query;
  if (from !== undefined) given.from = checkFrom(intParam('from', from));
  if (size !== undefined) given.size = checkSize(intParam('size', size));
  if (sort !== undefined) given.sort = [...given.sort, ...sortFromParam(sort)];
  given.source = sourceFromParams(query) ?? given.source;
  if (track !== undefined) given.trackTotalHits = trackTotalHits(track, () => intParam('track_total_hits', track));
}

/** `q` with `df`, `default_operator` and `lenient`; the analyzer is always `standard`. */
function queryStringParam(query: Params): Query {
  const operator = (query.default_operator ?? 'OR').toUpperCase();
  if (operator !== 'AND' && operator !== 'OR') throw illegalArgument(`operator needs to be either [AND, OR], but not [${query.default_operator}]`);
  if (query.analyzer !== undefined && query.analyzer !== 'standard') throw notSupported(`[analyzer] other than [standard]`);
  if (query.analyze_wildcard !== undefined && booleanParam(query.analyze_wildcard)) throw notSupported('[analyze_wildcard=true]');
  return parseQueryString(query.q!, {
    defaultOperator: operator === 'AND' ? 'and' : 'or',
    ...(query.df !== undefined && { defaultFields: [query.df] }),
    ...(query.lenient !== undefined && { lenient: booleanParam(query.lenient) }),
  });
}

/** Refuses parameters the endpoint does not know (or deeppage does not support yet), in ES's words. */
export function checkParamNames(query: Params, path: string, known: ReadonlySet<string> = KNOWN_PARAMS): void {
  const names = Object.keys(query).filter((name) => query[name] !== undefined);
  const unsupported = names.find((name) => UNSUPPORTED_PARAMS.has(name));
  if (unsupported !== undefined) throw notSupported(`[${unsupported}]`);
  const unknown = names.filter((name) => !known.has(name)).sort();
  if (unknown.length > 0) {
    const list = unknown.map((name) => `[${name}]`).join(', ');
    throw illegalArgument(`request [${path}] contains unrecognized parameter${unknown.length > 1 ? 's' : ''}: ${list}`);
  }
}

/**
 * The strings `true` and `false` are booleans (in the body too, as ES's `Booleans.isBoolean` check
 * runs on both); anything else is an int bound. ES stores the bound as an int where -1 means "do
 * not count" and int max "count exactly", so those two come back as booleans.
 */
function trackTotalHits(value: unknown, readInt: () => number): boolean | number {
  if (value === 'true' || value === 'false') return value === 'true';
  const n = readInt();
  if (n < -1) throw illegalArgument(`[track_total_hits] parameter must be positive or equals to -1, got ${n}`);
  if (n === -1) return false;
  return n === INT_MAX ? true : n;
}

/** `search_after`: an array of sort values (strings, numbers, booleans, null), as SearchAfterBuilder reads it. */
function searchAfterValues(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw unknownKey('search_after', value);
  for (const item of value) {
    if (item !== null && typeof item === 'object') {
      throw parsingError(`Expected [VALUE_STRING] or [VALUE_NUMBER] or [VALUE_BOOLEAN] or [VALUE_NULL] but found [${tokenName(item)}] inside search_after.`);
    }
  }
  return value;
}

/** `pit`: `{"id": …, "keep_alive": "1m"}` (PointInTimeBuilder's fields). */
function pointInTime(value: unknown): { id: string; keepAliveMs?: number } {
  if (!isObject(value)) throw badRequest('x_content_parse_exception', `[pit] pit doesn't support values of type: ${tokenName(value)}`);
  let id: string | undefined;
  let keepAliveMs: number | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (key === 'id' && typeof field === 'string') id = field;
    else if (key === 'keep_alive' && typeof field === 'string') keepAliveMs = timeValueMs('keep_alive', field);
    else if (key === 'id' || key === 'keep_alive') throw badRequest('x_content_parse_exception', `[pit] ${key} doesn't support values of type: ${tokenName(field)}`);
    else throw badRequest('x_content_parse_exception', `[pit] unknown field [${key}]`);
  }
  if (id === undefined) throw badRequest('x_content_parse_exception', '[pit] Required [id]');
  return keepAliveMs === undefined ? { id } : { id, keepAliveMs };
}

function pagingParam(value: string): Paging {
  if (!(PAGING as readonly string[]).includes(value)) throw illegalArgument(`[paging] must be one of [${PAGING.join(', ')}], got [${value}]`);
  return value as Paging;
}

function checkFrom(from: number): number {
  if (from < 0) throw illegalArgument(`[from] parameter cannot be negative but was [${from}]`);
  return from;
}

function checkSize(size: number): number {
  if (size < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${size}]`);
  return size;
}
