/**
 * `_msearch`: pairs of a header (indices, routing, preference, indices options, …) and a search body,
 * each read and run as `_search` reads and runs its search (search-call.ts), one after another.
 *
 * As in ES, the whole request is read before any search runs: a malformed header or body, a key ES
 * does not take, or a search that fails its checks fails the request (it throws). What a search meets
 * as it runs (a missing index, a failing shard, a `preference` it cannot follow) fails only its item:
 * that item's response is the EsError, among the others' responses.
 *
 * @example
 * const { responses } = await msearch(engine, 'books', {}, [{}, { query: { match: { title: 'fox' } } }, { index: 'authors' }, { size: 1 }]);
 * // [{ took, timed_out, _shards, hits }, { took, timed_out, _shards, hits }]
 */
import { hasText, nodeBoolean, parseBoolean } from '../booleans.ts';
import type { Engine } from '../engine.ts';
import { badRequest, EsError, illegalArgument, toEsError, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { javaString } from '../reindex/java-text.ts';
import type { SearchResponse } from '../search/search.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions, searchScope } from './indices-options.ts';
import { commaList, intParam, tokenName } from './request-values.ts';
import { runSearch, searchCall, type SearchCall } from './search-call.ts';
import { checkParamNames, parseSearchRequest, requestPath, RESPONSE_PARAMS } from './search-params.ts';

type Params = Record<string, string | undefined>;

/**
 * URI parameters every item's search takes as `_search` takes them, a header's keys over them.
 * `max_concurrent_shard_requests` and `pre_filter_shard_size` shape how ES fans a search out, not
 * what it finds (search-params.ts checks them and they change nothing here).
 */
const ITEM_PARAMS = [
  'rest_total_hits_as_int', 'typed_keys', 'search_type', 'ccs_minimize_roundtrips', 'max_concurrent_shard_requests', 'pre_filter_shard_size',
  'routing', ...INDICES_OPTIONS_PARAMS,
];

/** `max_concurrent_searches` bounds how many items run at once: here one runs at a time, within any bound. */
const MSEARCH_PARAMS = new Set([...RESPONSE_PARAMS, ...ITEM_PARAMS, 'max_concurrent_searches']);

/** The header keys ES takes under a second name (MultiSearchRequest.readMultiLineFormat). */
const HEADER_ALIASES = new Map([
  ['indices', 'index'], ['searchType', 'search_type'], ['ccsMinimizeRoundtrips', 'ccs_minimize_roundtrips'], ['requestCache', 'request_cache'],
  ['expandWildcards', 'expand_wildcards'], ['ignoreUnavailable', 'ignore_unavailable'], ['allowNoIndices', 'allow_no_indices'],
  ['ignoreThrottled', 'ignore_throttled'],
]);

/** Items read per turn before any runs. */
const READS_PER_TURN = 256;

export interface MsearchResponse {
  took: number;
  /** Each item's response, or the error that failed it, in the request's order. */
  responses: (SearchResponse | EsError)[];
}

export interface MsearchOptions {
  /** Names the request in errors, as the client sent it; `/{index}/_msearch` by default. */
  path?: string;
  /** Taken before each search runs, and every {@link READS_PER_TURN} items read, so that other work runs in between (the app's turns). */
  turns?: { take(): Promise<void> };
  /** Line `i`'s text as sent: a header that is not an object is reported at its first token, as ES's parser places it (else at column 1). */
  lineText?: (i: number) => string;
}

/**
 * @param body the body's lines, parsed: header, search, header, search, … (ES drops a last header
 * that has no search).
 */
export async function msearch(engine: Engine, index: string | undefined, params: Params, body: readonly unknown[] | undefined, options: MsearchOptions = {}): Promise<MsearchResponse> {
  const started = performance.now();
  const { path = requestPath(index, '_msearch'), turns } = options;
  checkParamNames(params, path, MSEARCH_PARAMS);
  const max = params.max_concurrent_searches;
  if (max !== undefined && intParam('max_concurrent_searches', max) < 1) throw illegalArgument('maxConcurrentSearchRequests must be positive');
  const defaults: Params = Object.fromEntries(ITEM_PARAMS.filter((name) => params[name] !== undefined).map((name) => [name, params[name]]));
  // The request's own parameters are checked once, as a search given only them checks them.
  parseSearchRequest(defaults, undefined, path);
  searchScope(defaults);
  if (body === undefined || body.length === 0) throw badRequest('parse_exception', 'request body or source parameter is required');

  const calls = await readSearches(body, defaults, index, path, options);
  const responses: (SearchResponse | EsError)[] = [];
  for (const call of calls) {
    await turns?.take();
    responses.push(runItem(engine, call));
  }
  return { took: Math.round(performance.now() - started), responses };
}

/**
 * Every search of the body, read and checked before any runs. A search's failed checks
 * (`action_request_validation_exception`) are reported once every item is read, as ES validates the
 * request after parsing it, so a later item's malformed body is the error a client sees first.
 */
async function readSearches(lines: readonly unknown[], defaults: Params, pathIndex: string | undefined, path: string, { turns, lineText }: MsearchOptions): Promise<SearchCall[]> {
  const calls: SearchCall[] = [];
  let invalid: EsError | undefined;
  // ES drops a last header that has no body.
  for (let i = 0; i < lines.length; i += 2) {
    if (i > 0 && (i / 2) % READS_PER_TURN === 0) await turns?.take();
    const { index, params } = readHeader(headerObject(lines[i], lineText?.(i)), defaults, pathIndex);
    if (i + 1 === lines.length) break;
    try {
      calls.push(searchCall(params, lines[i + 1], path, index));
    } catch (e) {
      if (!(e instanceof EsError && e.type === 'action_request_validation_exception')) throw e;
      invalid ??= e;
    }
  }
  if (calls.length === 0 && invalid === undefined) throw validationFailed(['no requests added']);
  if (invalid) throw invalid;
  return calls;
}

/** A header must be an object, refused in the words of ES's parser (`parser.map()`), at its first token when its text is known. */
function headerObject(value: unknown, text: string | undefined): Record<string, unknown> {
  if (isObject(value)) return value;
  const column = text === undefined ? 1 : text.length - text.trimStart().length + 1;
  throw badRequest('x_content_parse_exception', `[1:${column}] Failed to parse object: expecting token of type [START_OBJECT] but found [${tokenName(value)}]`);
}

/**
 * A header line: the item's index expression, and the parameters its search reads (the request's,
 * with the header's keys over them), read with ES's XContentMapValues rules.
 */
function readHeader(header: Record<string, unknown>, defaults: Params, pathIndex: string | undefined): { index: string | undefined; params: Params } {
  const params: Params = { ...defaults };
  let index = pathIndex;
  for (const [key, value] of Object.entries(header)) {
    const name = HEADER_ALIASES.get(key) ?? key;
    switch (name) {
      case 'index':
        index = indexExpression(value);
        break;
      case 'search_type':
      case 'routing':
      case 'preference':
        // A null unsets what the request's URI said.
        params[name] = value === null ? undefined : String(value);
        break;
      case 'request_cache':
        params[name] = String(nodeBoolean(value, key));
        break;
      case 'allow_partial_search_results':
        // ES reads this one as `nodeBooleanValue(value, null)`, so its failure names `null`.
        params[name] = String(nodeBoolean(value, 'null'));
        break;
      case 'ccs_minimize_roundtrips':
        params[name] = String(parseBoolean(javaString(value)));
        break;
      case 'expand_wildcards':
        if (value !== null) params[name] = Array.isArray(value) ? value.join(',') : String(value);
        break;
      case 'ignore_unavailable':
      case 'allow_no_indices':
        // Blank keeps the request's value (nodeBooleanValue with a default, read by indicesOptions below).
        if (value !== null && hasText(javaString(value))) params[name] = javaString(value);
        break;
      case 'ignore_throttled':
        // Only frozen indices are throttled, and deeppage has none: either value reads the same indices.
        nodeBoolean(value, 'ignore_throttled', false);
        break;
      default:
        throw illegalArgument(`key [${key}] is not supported in the metadata section`);
    }
  }
  // Read with the header, as ES reads them; they are applied when the search runs.
  indicesOptions(params);
  return { index, params };
}

/** `index`: a list, or a comma-separated string (XContentMapValues.nodeStringArrayValue); naming none reads every index. */
function indexExpression(value: unknown): string | undefined {
  const expression = Array.isArray(value) ? value.join(',') : String(value);
  return commaList(expression).length > 0 ? expression : undefined;
}

/** The item's response, or what failed it. */
function runItem(engine: Engine, call: SearchCall): SearchResponse | EsError {
  try {
    return runSearch(engine, call);
  } catch (e) {
    if (!(e instanceof EsError)) console.error(e);
    return toEsError(e);
  }
}
