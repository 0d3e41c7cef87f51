/**
 * `_msearch`: NDJSON pairs of a header line (indices, routing, preference, indices options, …) and a
 * search body, each read and run as `_search` reads and runs its search (search-call.ts), one after
 * another, each in a turn of its own (turns.ts).
 *
 * As in ES, the whole request is read before any search runs: a malformed header or body, a key ES
 * does not take, or a search that fails its checks fails the request with a 400. What a search meets
 * as it runs (a missing index, a failing shard, a `preference` it cannot follow) fails only its item,
 * answered `{"error": …, "status": N}` among the others' responses.
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { badRequest, EsError, illegalArgument, validationFailed } from '../../engine/errors.ts';
import { RawJson } from '../../engine/raw-json.ts';
import type { SearchResponse } from '../../engine/search/search.ts';
import { parseJsonObject, parseNdjson, type NdjsonLine } from '../body.ts';
import { errorBody, toEsError } from '../error-response.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions, searchScope } from '../../engine/request/indices-options.ts';
import { ndjsonBody } from '../request-body.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { commaList, intParam } from '../../engine/request/request-values.ts';
import { send } from '../respond.ts';
import { runSearch, searchCall, type SearchCall } from '../../engine/request/search-call.ts';
import { checkParamNames, parseSearchRequest, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { searchResponseBody } from '../search-response.ts';
import { TURNS, type Turns } from '../turns.ts';

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
const MSEARCH_PARAMS = new Set([...RESPONSE_PARAMS, ...ITEM_PARAMS, 'max_concurrent_searches', 'source', 'source_content_type']);

/** The header keys ES takes under a second name (MultiSearchRequest.readMultiLineFormat). */
const HEADER_ALIASES = new Map([
  ['indices', 'index'], ['searchType', 'search_type'], ['ccsMinimizeRoundtrips', 'ccs_minimize_roundtrips'], ['requestCache', 'request_cache'],
  ['expandWildcards', 'expand_wildcards'], ['ignoreUnavailable', 'ignore_unavailable'], ['allowNoIndices', 'allow_no_indices'],
  ['ignoreThrottled', 'ignore_throttled'],
]);

/** Items read per turn of the event loop before any runs. */
const READS_PER_TURN = 256;

export function msearchRoutes(engine: Engine): Hono {
  const app = new Hono();
  const msearch = async (c: Context) => {
    const started = performance.now();
    const query = queryOf(c), path = pathOf(c);
    checkParamNames(query, path, MSEARCH_PARAMS);
    const max = query.max_concurrent_searches;
    if (max !== undefined && intParam('max_concurrent_searches', max) < 1) throw illegalArgument('maxConcurrentSearchRequests must be positive');
    const defaults: Params = Object.fromEntries(ITEM_PARAMS.filter((name) => query[name] !== undefined).map((name) => [name, query[name]]));
    // The request's own parameters are checked once, as a search given only them checks them.
    parseSearchRequest(defaults, undefined, path);
    searchScope(defaults);

    const turns = c.get(TURNS) as Turns | undefined;
    const calls = await readSearches(await msearchLines(c), defaults, c.req.param('index'), path, turns);
    const responses: (SearchResponse | EsError)[] = [];
    for (const call of calls) {
      await turns?.take();
      responses.push(runItem(engine, call));
    }
    return send(c, 200, { took: Math.round(performance.now() - started), responses: responsesJson(responses) });
  };
  app.on(['GET', 'POST'], '/_msearch', msearch);
  app.on(['GET', 'POST'], '/:index/_msearch', msearch);
  return app;
}

/** The body's lines (or the `source` parameter's); a body without a final newline is refused in `_msearch`'s words. */
async function msearchLines(c: Context): Promise<NdjsonLine[]> {
  const source = queryOf(c).source;
  const lines = source !== undefined ? parseNdjson(source, 'msearch') : await ndjsonBody(c, 'msearch');
  if (lines.length === 0) throw badRequest('parse_exception', 'request body or source parameter is required');
  return lines;
}

/**
 * Every search of the body, read and checked before any runs. A search's failed checks
 * (`action_request_validation_exception`) are reported once every item is read, as ES validates the
 * request after parsing it, so a later item's malformed body is the error a client sees first.
 */
async function readSearches(lines: NdjsonLine[], defaults: Params, pathIndex: string | undefined, path: string, turns: Turns | undefined): Promise<SearchCall[]> {
  const calls: SearchCall[] = [];
  let invalid: EsError | undefined;
  // ES drops a last header that has no body.
  for (let i = 0; i < lines.length; i += 2) {
    if (i > 0 && (i / 2) % READS_PER_TURN === 0) await turns?.take();
    const { index, params } = readHeader(lines[i], defaults, pathIndex);
    if (i + 1 === lines.length) break;
    try {
      calls.push(searchCall(params, lines[i + 1].value, path, index));
    } catch (e) {
      if (!(e instanceof EsError && e.type === 'action_request_validation_exception')) throw e;
      invalid ??= e;
    }
  }
  if (calls.length === 0 && invalid === undefined) throw validationFailed(['no requests added']);
  if (invalid) throw invalid;
  return calls;
}

/**
 * A header line: the item's index expression, and the parameters its search reads (the request's,
 * with the header's keys over them), read with ES's XContentMapValues rules.
 */
function readHeader(line: NdjsonLine, defaults: Params, pathIndex: string | undefined): { index: string | undefined; params: Params } {
  const header = parseJsonObject(line.bytes.toString());
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
        params[name] = String(namedBoolean(key, value));
        break;
      case 'allow_partial_search_results':
        // ES reads this one as `nodeBooleanValue(value, null)`, so its failure names `null`.
        params[name] = String(namedBoolean('null', value));
        break;
      case 'ccs_minimize_roundtrips':
        params[name] = String(javaBoolean(value));
        break;
      case 'expand_wildcards':
        if (value !== null) params[name] = Array.isArray(value) ? value.join(',') : String(value);
        break;
      case 'ignore_unavailable':
      case 'allow_no_indices':
        // Blank keeps the request's value (Booleans.parseBoolean with a default).
        if (value !== null && String(value).trim() !== '') params[name] = String(value);
        break;
      case 'ignore_throttled':
        // Only frozen indices are throttled, and deeppage has none: either value reads the same indices.
        if (value !== null && String(value).trim() !== '') namedBoolean('ignore_throttled', value);
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

/** Java's `Booleans.parseBoolean`: only `true` and `false`. */
function javaBoolean(value: unknown): boolean {
  const text = String(value);
  if (text === 'true' || text === 'false') return text === 'true';
  throw illegalArgument(`Failed to parse value [${text}] as only [true] or [false] are allowed.`);
}

/** XContentMapValues.nodeBooleanValue(value, name): {@link javaBoolean}, its failure wrapped in one naming the key. */
function namedBoolean(name: string, value: unknown): boolean {
  try {
    return javaBoolean(value);
  } catch (cause) {
    throw badRequest('illegal_argument_exception', `Could not convert [${name}] to boolean`, undefined, cause as EsError);
  }
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

const STATUS_OK = ',"status":200}';

/**
 * The responses as one JSON array: each search response as `_search` writes it (its hits' `_source`
 * as stored), with its status last; each failure as ES's error body, whose status is last already.
 */
function responsesJson(responses: readonly (SearchResponse | EsError)[]): RawJson {
  let text = '[';
  for (let i = 0; i < responses.length; i++) {
    const response = responses[i];
    if (i > 0) text += ',';
    text += response instanceof EsError ? JSON.stringify(errorBody(response)) : searchResponseBody(response).subarray(0, -1).toString('utf8') + STATUS_OK;
  }
  return new RawJson(`${text}]`);
}
