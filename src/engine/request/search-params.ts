/**
 * A search request from its URI parameters and JSON body, read in ES's order: the body first, then
 * the URI on top of it. URI `from`, `size`, `_source`, `track_total_hits`, `version`,
 * `seq_no_primary_term`, `stored_fields` and `timeout` replace the body's; a URI `sort` or
 * `docvalue_fields` appends to the body's, as ES's RestSearchAction does. Every key is honoured,
 * taken where on one node it truly changes nothing (said beside each list below), or refused with a
 * 400: none is dropped silently.
 *
 * @example
 * parseSearchRequest({ from: '20', sort: 'price:desc' }, { size: 5, query: { match_all: {} } })
 * // { from: 20, size: 5, sort: [{ kind: 'field', field: 'price', order: 'desc', missing: '_last' }], … }
 */
import { badRequest, illegalArgument, parsingError, validationFailed } from '../errors.ts';
import { timeValueMs } from '../time-value.ts';
import { isObject } from '../patterns.ts';
import { PAGINGS, searchRequest, type DocValueField, type Paging, type Query, type SearchRequest, type SliceRequest, type SortClause, type SourceFilter } from '../search/request.ts';
import { INDICES_OPTIONS_PARAMS } from './indices-options.ts';
import { bodyBoolean, booleanParam, isBoolean, optionalBooleanParam, parseBoolean } from '../booleans.ts';
import { bodyFloat, bodyInt, commaList, INT_MAX, intParam, notSupported, tokenName, unknownKey } from './request-values.ts';
import { parseQueryDsl } from './query-dsl.ts';
import { parseQueryString } from './query-string.ts';
import { sortFromBody, sortFromParam } from './search-sort.ts';
import { SOURCE_PARAMS, sourceFromBody, sourceFromParams } from './search-source.ts';

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
  slice?: SliceRequest;
  version?: boolean;
  seqNoPrimaryTerm?: boolean;
  storedFields?: false | string[];
  docValueFields: DocValueField[];
}

/** Body keys ES understands and deeppage does not implement yet. */
const UNSUPPORTED_KEYS = new Set([
  'aggs', 'aggregations', 'highlight', 'suggest', 'collapse', 'rescore', 'post_filter',
  'script_fields', 'fields', 'knn', 'runtime_mappings', 'indices_boost', 'terminate_after', 'stats', 'ext', 'retriever', 'rank',
]);

/** What shapes a URI `q=`: given without `q`, ES refuses them. */
const QUERY_STRING_PARAMS = ['df', 'default_operator', 'lenient', 'analyzer', 'analyze_wildcard'];

/** A URI query: `q=` and what shapes it, which `_count` and `_cat/count` take as `_search` does. */
export const URI_QUERY_PARAMS = ['q', ...QUERY_STRING_PARAMS];

/** `paging` is deeppage's own: `sorted_runs` or `top_k`, Elasticsearch's algorithm (request.ts); unset, the node's `search.paging`. */
const READ_PARAMS = [
  'from', 'size', 'sort', ...SOURCE_PARAMS, 'track_total_hits', 'rest_total_hits_as_int', 'paging', 'scroll',
  'track_scores', 'q', ...QUERY_STRING_PARAMS, 'version', 'seq_no_primary_term', 'explain', 'timeout', 'stored_fields', 'docvalue_fields',
  'allow_partial_search_results', 'search_type',
];

/** Formatting options the response layer applies to every API (ES's `responseParams()`). */
export const RESPONSE_PARAMS = ['pretty', 'human', 'error_trace', 'filter_path'];

/** What the search route reads itself: the index options, `routing` and `preference` (indices-options.ts). */
const ROUTE_PARAMS = [...INDICES_OPTIONS_PARAMS, 'routing', 'preference'];

/**
 * URI parameters checked as ES checks them, that change nothing on one deeppage node: `request_cache`
 * (there is no request cache, and a cached answer is the same answer), `typed_keys` (it renames
 * aggregations and suggestions, which there are none of), `ccs_minimize_roundtrips` (cross-cluster
 * searches only), and how ES fans a search out to shards and reduces their results, not which hits
 * come back: `batched_reduce_size`, `max_concurrent_shard_requests`, `pre_filter_shard_size`.
 */
const NO_EFFECT_PARAMS = ['request_cache', 'typed_keys', 'ccs_minimize_roundtrips', 'batched_reduce_size', 'max_concurrent_shard_requests', 'pre_filter_shard_size'];

const UNSUPPORTED_PARAMS = new Set(['terminate_after']);

const KNOWN_PARAMS = new Set([...READ_PARAMS, ...RESPONSE_PARAMS, ...ROUTE_PARAMS, ...NO_EFFECT_PARAMS, ...UNSUPPORTED_PARAMS]);

/**
 * @param path names the request in the unrecognized-parameter error, as ES does.
 * @param hasIndex the path names indices (a point in time must not).
 */
export function parseSearchRequest(query: Params, body: unknown, path = '/_search', hasIndex = false): SearchRequest {
  const given: Given = { sort: [], docValueFields: [] };
  if (body !== undefined) readBody(body, given);
  readParams(query, given);
  checkParamNames(query, path);
  checkNoEffectParams(query);
  if (query.q !== undefined) given.query = queryStringParam(query);
  else {
    const stray = QUERY_STRING_PARAMS.filter((name) => query[name] !== undefined);
    if (stray.length > 0) throw illegalArgument(`request [${path}] contains parameters [${stray.join(', ')}] but missing query string parameter 'q'.`);
  }

  const restTotalHitsAsInt = booleanParam(query.rest_total_hits_as_int, false);
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
  if (query.track_scores !== undefined) request.trackScores = booleanParam(query.track_scores, false);
  else if (given.trackScores !== undefined) request.trackScores = given.trackScores;
  if (given.pit !== undefined) request.pit = given.pit;
  if (given.slice !== undefined) request.slice = given.slice;
  if (given.minScore !== undefined) request.minScore = given.minScore;
  if (query.scroll !== undefined) request.scroll = timeValueMs('scroll', query.scroll);
  if (given.version) request.version = true;
  if (given.seqNoPrimaryTerm) request.seqNoPrimaryTerm = true;
  if (given.docValueFields.length > 0) request.docValueFields = given.docValueFields;
  if (given.storedFields !== undefined) {
    request.storedFields = given.storedFields;
    // Stored fields asked for, `_source` is left out unless asked for too (ES's FetchContext).
    const sourceNamed = given.storedFields !== false && given.storedFields.includes('_source');
    if (given.source === undefined && !sourceNamed) request.source = false;
  }
  const allowPartial = optionalBooleanParam(query.allow_partial_search_results);
  if (allowPartial !== undefined) request.allowPartial = allowPartial;
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
    if (optionalBooleanParam(query.request_cache)) problems.push('[request_cache] cannot be used in a scroll context');
    if (request.after !== undefined) problems.push('[search_after] cannot be used in a scroll context');
  }
  if (request.slice && !request.pit && request.scroll === undefined) problems.push('[slice] can only be used with [scroll] or [point-in-time] requests');
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
        given.trackScores = bodyFlag(key, value);
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
      case 'slice':
        given.slice = slice(key, value);
        break;
      case 'version':
        given.version = bodyFlag(key, value);
        break;
      case 'seq_no_primary_term':
        given.seqNoPrimaryTerm = bodyFlag(key, value);
        break;
      case 'explain':
      case 'profile':
        if (bodyFlag(key, value)) throw notSupported(`[${key}]`);
        break;
      case 'timeout':
        // Checked as ES checks it. A search here runs to the end in one step and is never cut
        // short, so `timed_out` stays false, as it does in ES for a search done within its timeout.
        if (value === null || typeof value === 'object') throw unknownKey(key, value);
        timeValueMs('timeout', String(value));
        break;
      case 'stored_fields':
        given.storedFields = storedFields(storedFieldNames(value));
        break;
      case 'docvalue_fields':
        if (!Array.isArray(value)) throw unknownKey(key, value);
        given.docValueFields = value.map(docValueField);
        break;
      default:
        if (UNSUPPORTED_KEYS.has(key)) throw notSupported(`[${key}]`);
        throw unknownKey(key, value);
    }
  }
}

/**
 * A body flag, read by SearchSourceBuilder's token loop with `parser.booleanValue()` (booleans.ts);
 * an object or array falls in the loop's branches that do not know the key.
 */
function bodyFlag(key: string, value: unknown): boolean {
  return bodyBoolean(value, () => (value !== null && typeof value === 'object' ? unknownKey(key, value) : badRequest('x_content_parse_exception', `[${key}] failed to parse field value`)));
}

/** `stored_fields` in the body: one name or a list (StoredFieldsContext.fromXContent). */
function storedFieldNames(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map((name) => (typeof name === 'string' ? name : JSON.stringify(name)));
  throw parsingError(`Expected [VALUE_STRING] or [START_ARRAY] in [stored_fields] but found [${tokenName(value)}]`);
}

/** `_none_` alone turns stored fields off (no `_id`, `_routing` or `_source`); with other names it is an error. */
function storedFields(names: string[]): false | string[] {
  if (names.length === 1 && names[0] === '_none_') return false;
  if (names.includes('_none_')) throw illegalArgument('cannot combine _none_ with other fields');
  return names;
}

/**
 * A `docvalue_fields` entry: a field name (any scalar, as its text), or `{field, format}`
 * (FieldAndFormat; its `include_unmapped` changes nothing here, where unmapped fields give nothing).
 */
function docValueField(value: unknown): DocValueField {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return { field: String(value) };
  const parseError = (reason: string) => badRequest('x_content_parse_exception', `[fetch_field_and_format] ${reason}`);
  if (!isObject(value)) throw parseError(`Expected START_OBJECT but was: ${tokenName(value)}`);
  let field: string | undefined, format: string | undefined;
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'field' && typeof entry === 'string') field = entry;
    else if (key === 'format' && (typeof entry === 'string' || entry === null)) format = entry ?? undefined;
    else if (key === 'include_unmapped' && typeof entry === 'boolean') continue;
    else if (key === 'field' || key === 'format' || key === 'include_unmapped') throw parseError(`${key} doesn't support values of type: ${tokenName(entry)}`);
    else throw parseError(`unknown field [${key}]`);
  }
  if (field === undefined) throw parseError('Required [field]');
  return format === undefined ? { field } : { field, format };
}

function readParams(query: Params, given: Given): void {
  const { from, size, sort, track_total_hits: track } = query;
  if (from !== undefined) given.from = checkFrom(intParam('from', from));
  if (size !== undefined) given.size = checkSize(intParam('size', size));
  if (sort !== undefined) given.sort = [...given.sort, ...sortFromParam(sort)];
  given.source = sourceFromParams(query) ?? given.source;
  if (track !== undefined) given.trackTotalHits = trackTotalHits(track, () => intParam('track_total_hits', track));
  // ES reads these three as `paramAsBoolean(name, null)`: a bare `?version` sets nothing, and unsets the body's.
  if (query.version !== undefined) given.version = optionalBooleanParam(query.version);
  if (query.seq_no_primary_term !== undefined) given.seqNoPrimaryTerm = optionalBooleanParam(query.seq_no_primary_term);
  if (optionalBooleanParam(query.explain)) throw notSupported('[explain]');
  if (query.timeout !== undefined) timeValueMs('timeout', query.timeout);
  if (query.stored_fields !== undefined) given.storedFields = storedFields(commaList(query.stored_fields));
  if (query.docvalue_fields !== undefined) given.docValueFields = [...given.docValueFields, ...commaList(query.docvalue_fields).map((field) => ({ field }))];
  if (query.search_type !== undefined) searchType(query.search_type);
}

/**
 * `query_then_fetch` is how every search runs here. `dfs_query_then_fetch` would score with
 * statistics gathered from every shard first; deeppage scores with each shard's own.
 */
function searchType(value: string): void {
  if (value === 'query_then_fetch') return;
  if (value === 'dfs_query_then_fetch') throw notSupported('[search_type] [dfs_query_then_fetch]');
  if (value === 'query_and_fetch' || value === 'dfs_query_and_fetch') throw illegalArgument(`Unsupported search type [${value}]`);
  throw illegalArgument(`No search type for [${value}]`);
}

/** The parameters of {@link NO_EFFECT_PARAMS} still get ES's checks of their values. */
function checkNoEffectParams(query: Params): void {
  for (const name of ['request_cache', 'typed_keys', 'ccs_minimize_roundtrips']) booleanParam(query[name], false);
  const bounds: [name: string, min: number, reason: string][] = [
    ['batched_reduce_size', 2, 'batchedReduceSize must be >= 2'],
    ['max_concurrent_shard_requests', 1, 'maxConcurrentShardRequests must be >= 1'],
    ['pre_filter_shard_size', 1, 'preFilterShardSize must be >= 1'],
  ];
  for (const [name, min, reason] of bounds) {
    const value = query[name];
    if (value !== undefined && intParam(name, value) < min) throw illegalArgument(reason);
  }
}

/** `q` with `df`, `default_operator` and `lenient`; the analyzer is always `standard`. */
function queryStringParam(query: Params): Query {
  const operator = (query.default_operator ?? 'OR').toUpperCase();
  if (operator !== 'AND' && operator !== 'OR') throw illegalArgument(`operator needs to be either [AND, OR], but not [${query.default_operator}]`);
  if (query.analyzer !== undefined && query.analyzer !== 'standard') throw notSupported(`[analyzer] other than [standard]`);
  if (booleanParam(query.analyze_wildcard, false)) throw notSupported('[analyze_wildcard=true]');
  // `paramAsBoolean("lenient", null)`: a bare `?lenient` leaves the query's default.
  const lenient = optionalBooleanParam(query.lenient);
  return parseQueryString(query.q!, {
    defaultOperator: operator === 'AND' ? 'and' : 'or',
    ...(query.df !== undefined && { defaultFields: [query.df] }),
    ...(lenient !== undefined && { lenient }),
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
 * The path ES names a request by in its errors (`request [/books/_search] contains unrecognized
 * parameter …`), for a caller in process, which has no URL: `/{index}/{api}`, or `/{api}` with no index.
 */
export function requestPath(index: string | undefined, api: string): string {
  return index === undefined ? `/${api}` : `/${index}/${api}`;
}

/**
 * The strings `true` and `false` are booleans (in the body too, as ES's `Booleans.isBoolean` check
 * runs on both); anything else is an int bound. ES stores the bound as an int where -1 means "do
 * not count" and int max "count exactly", so those two come back as booleans.
 */
function trackTotalHits(value: unknown, readInt: () => number): boolean | number {
  if (typeof value === 'string' && isBoolean(value)) return parseBoolean(value);
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

/**
 * `slice`: `{"id": …, "max": …}` and an optional `field`, read as SliceBuilder's parser reads them, in
 * their order: `id` ≥ 0, `max` > 1, `max` > `id`, each a parse failure of its field caused by the
 * setter's complaint. A missing `id` or `max` is refused as a missing field (ES would slice nothing).
 * `field` may name `_shard_doc` or `_doc` (the document order) or `_id`; a numeric field, which ES
 * slices by its doc values, is not supported.
 */
function slice(key: string, value: unknown): SliceRequest {
  if (!isObject(value)) throw unknownKey(key, value);
  const failed = (field: string, reason: string) => badRequest('x_content_parse_exception', `[slice] failed to parse field [${field}]`, {}, illegalArgument(reason));
  let id = -1, max = -1;
  let field: string | undefined;
  for (const [name, entry] of Object.entries(value)) {
    if ((name === 'id' || name === 'max') && (typeof entry === 'number' || typeof entry === 'string')) {
      const n = bodyInt(name, entry);
      if (name === 'id' && n < 0) throw failed(name, 'id must be greater than or equal to 0');
      if (name === 'max' && n <= 1) throw failed(name, 'max must be greater than 1');
      if (name === 'id' ? max !== -1 && n >= max : id !== -1 && id >= n) throw failed(name, 'max must be greater than id');
      if (name === 'id') id = n;
      else max = n;
    } else if (name === 'field' && typeof entry === 'string') field = entry;
    else if (name === 'id' || name === 'max' || name === 'field') throw badRequest('x_content_parse_exception', `[slice] ${name} doesn't support values of type: ${tokenName(entry)}`);
    else throw badRequest('x_content_parse_exception', `[slice] unknown field [${name}]`);
  }
  if (id === -1) throw badRequest('x_content_parse_exception', '[slice] Required [id]');
  if (max === -1) throw badRequest('x_content_parse_exception', '[slice] Required [max]');
  if (field === undefined) return { id, max };
  if (field !== '_shard_doc' && field !== '_doc' && field !== '_id') throw notSupported(`[slice] on [${field}] (only [_shard_doc], [_doc] and [_id])`);
  return { id, max, field };
}

function pagingParam(value: string): Paging {
  if (!(PAGINGS as readonly string[]).includes(value)) throw illegalArgument(`[paging] must be one of [${PAGINGS.join(', ')}], got [${value}]`);
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
