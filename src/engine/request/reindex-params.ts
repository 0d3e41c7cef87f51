/**
 * A `_reindex` request from its body and URI parameters, checked as ES's ReindexRequest parser and
 * `validate()` check it, in their words. What ES can do and deeppage cannot yet (scripts,
 * pipelines, external versions, sorted sources) is refused, never ignored.
 *
 * @example
 * parseReindexRequest({ slices: 'auto' }, { source: { index: 'cities', size: 500 }, dest: { index: 'copy' } })
 */
import { badRequest, EsError, illegalArgument, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { parseRemoteInfo, queryJson, type RemoteInfo } from '../reindex/remote-info.ts';
import { DEFAULT_BATCH, DEFAULT_KEEP_ALIVE_MS, type ReindexRequest } from '../reindex/reindex-request.ts';
import { timeValueMs } from '../time-value.ts';
import { booleanParam } from '../booleans.ts';
import { bodyInt, intParam, notSupported, tokenName } from './request-values.ts';
import { parseQueryDsl } from './query-dsl.ts';
import { sourceFromBody } from './search-source.ts';

type Params = Record<string, string | undefined>;


export function parseReindexRequest(query: Params, body: unknown): ReindexRequest {
  if (!isObject(body)) throw badRequest('parsing_exception', `request body is required`);
  const problems: string[] = [];
  let source: ReindexRequest['source'] | undefined;
  let dest: ReindexRequest['dest'] | undefined;
  let bodyMaxDocs: number | undefined;
  let conflicts: ReindexRequest['conflicts'] = 'abort';
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'source':
        source = parseSource(value, problems);
        break;
      case 'dest':
        dest = parseDest(value);
        break;
      case 'max_docs':
      case 'size':
        bodyMaxDocs = bodyInt(key, value);
        break;
      case 'conflicts':
        conflicts = parseConflicts(String(value));
        break;
      case 'script':
        throw notSupported('[script] in reindex');
      default:
        throw badRequest('x_content_parse_exception', `[reindex] unknown field [${key}]`);
    }
  }
  if (query.conflicts !== undefined) conflicts = parseConflicts(query.conflicts);
  const maxDocs = maxDocsOf(query.max_docs, bodyMaxDocs);
  const slices = parseSlices(query.slices);
  if (!source || source.indices.length === 0) problems.push('use _all if you really want to copy from all existing indexes');
  if (!dest) problems.push('index must be specified');
  if (maxDocs !== undefined && typeof slices === 'number' && maxDocs < slices) problems.push('[max_docs] should be >= [slices]');
  if (source?.remote && slices !== 1) problems.push(`reindex from remote sources doesn't support slices > 1 but was [${query.slices}]`);
  if (problems.length > 0) throw validationFailed(problems);
  return {
    source: source!,
    dest: dest!,
    ...(maxDocs !== undefined && { maxDocs }),
    conflicts,
    refresh: booleanParam(query.refresh, false),
    slices,
    requestsPerSecond: parseRequestsPerSecond(query.requests_per_second),
    keepAliveMs: query.scroll !== undefined ? timeValueMs('scroll', query.scroll) : DEFAULT_KEEP_ALIVE_MS,
  };
}

function parseSource(value: unknown, problems: string[]): ReindexRequest['source'] {
  if (!isObject(value)) throw sourceFailed(badRequest('parsing_exception', `[source] must be an object but was [${tokenName(value)}]`));
  let indices: string[] = [];
  let size = DEFAULT_BATCH;
  let filter: ReindexRequest['source']['filter'] = { includes: [], excludes: [] };
  let remote: RemoteInfo | undefined;
  let rawQuery: unknown;
  let rawSource: unknown;
  for (const [key, given] of Object.entries(value)) {
    switch (key) {
      case 'index':
        indices = (Array.isArray(given) ? given : [given]).flatMap((item) => String(item).split(',')).filter((name) => name !== '');
        break;
      case 'size':
        size = bodyInt('size', given);
        if (size < 1) throw illegalArgument(`[size] parameter cannot be negative or zero, found [${size}]`);
        break;
      case 'query':
        rawQuery = given;
        break;
      case '_source': {
        rawSource = given;
        const parsed = sourceFromBody(given);
        if (parsed === false) problems.push('_source:false is not supported in this context');
        else filter = parsed;
        break;
      }
      case 'remote':
        try {
          remote = parseRemoteInfo(given);
        } catch (e) {
          throw e instanceof EsError ? sourceFailed(e) : e;
        }
        break;
      case 'from':
        problems.push('from is not supported in this context');
        break;
      case 'sort':
      case 'slice':
      case 'runtime_mappings':
        throw notSupported(`[source.${key}] in reindex`);
      default:
        throw sourceFailed(badRequest('x_content_parse_exception', `[search_source] unknown field [${key}]`));
    }
  }
  // A remote gets the query as given (ES sends it unvalidated); here it must be one deeppage runs.
  if (remote) queryJson(rawQuery);
  const query = !remote && rawQuery !== undefined ? parseQueryDsl(rawQuery) : undefined;
  return { indices, size, filter, ...(query && { query }), ...(remote && { remote, rawQuery, rawSource }) };
}

function parseDest(value: unknown): ReindexRequest['dest'] | undefined {
  if (!isObject(value)) throw badRequest('x_content_parse_exception', `[reindex] dest doesn't support values of type: ${tokenName(value)}`);
  let index: string | undefined;
  let opType: ReindexRequest['dest']['opType'] = 'index';
  let routing: ReindexRequest['dest']['routing'] = { kind: 'keep' };
  for (const [key, given] of Object.entries(value)) {
    switch (key) {
      case 'index':
        index = String(given);
        break;
      case 'op_type': {
        const type = String(given).toLowerCase();
        if (type !== 'index' && type !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${String(given)}]`);
        opType = type;
        break;
      }
      case 'routing': {
        const command = String(given);
        if (command === 'keep') routing = { kind: 'keep' };
        else if (command === 'discard') routing = { kind: 'discard' };
        else if (command.startsWith('=')) routing = { kind: 'value', value: command.slice(1) };
        else throw illegalArgument('Unsupported routing command');
        break;
      }
      case 'version_type':
        if (given !== 'internal') throw notSupported(`[dest.version_type] [${String(given)}]`);
        break;
      case 'pipeline':
        throw notSupported('[dest.pipeline]');
      default:
        throw badRequest('x_content_parse_exception', `[dest] unknown field [${key}]`);
    }
  }
  // A missing index is reported with the request's other problems.
  if (index === undefined || index === '') return undefined;
  return { index, opType, routing };
}

/** ES reports errors inside `source` as a failure to parse that field, the error as the cause. */
function sourceFailed(cause: EsError): EsError {
  return badRequest('x_content_parse_exception', '[reindex] failed to parse field [source]', {}, cause);
}

function maxDocsOf(param: string | undefined, body: number | undefined): number | undefined {
  const fromParam = param !== undefined ? intParam('max_docs', param) : undefined;
  if (fromParam !== undefined && body !== undefined && fromParam !== body) throw illegalArgument(`[max_docs] set to two different values [${body}] and [${fromParam}]`);
  const maxDocs = fromParam ?? body;
  if (maxDocs !== undefined && maxDocs < 0) throw illegalArgument(`[max_docs] parameter cannot be negative, found [${maxDocs}]`);
  return maxDocs;
}

function parseConflicts(value: string): 'abort' | 'proceed' {
  if (value === 'abort' || value === 'proceed') return value;
  throw illegalArgument(`conflicts may only be "proceed" or "abort" but was [${value}]`);
}

function parseSlices(value: string | undefined): number | 'auto' {
  if (value === undefined) return 1;
  if (value === 'auto') return 'auto';
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 2 ** 31 - 1)) throw illegalArgument(`[slices] must be a positive integer or the string "auto", but was [${value}]`);
  return n;
}

/** Documents per second; -1 (or `unlimited`) is no throttling, as in ES. */
function parseRequestsPerSecond(value: string | undefined): number {
  if (value === undefined || value === '-1' || value === 'unlimited') return Infinity;
  const n = Number(value);
  if (!(value.trim() !== '' && n > 0)) throw illegalArgument('[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.');
  return n;
}
