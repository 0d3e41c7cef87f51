/**
 * Which part of `_source` hits and documents carry, read as ES reads a fetch-source context:
 *
 * - from URI parameters, as `FetchSourceContext.parseFromRestRequest` (searches, GET, `_mget`):
 *   `_source` is `true`, `false` or a comma list of patterns, `_source_includes` and
 *   `_source_excludes` replace the lists, and `false` wins over any list;
 * - from a body, as `FetchSourceContext.fromXContent` (a search's `_source`, a reindex's
 *   `source._source`, and what a reindex from remote sends on): a JSON boolean, a pattern, a list of
 *   patterns, or `{includes|include, excludes|exclude}`, each key replacing the list it names;
 * - from an `_mget` doc, as `MultiGetRequest.parseDocuments` reads its `_source` with a token loop of
 *   its own: the strings `"true"` and `"false"` are booleans there (`isBooleanValue`), patterns that
 *   are numbers or booleans are taken as their text, the two spellings of a key add up, and what it
 *   refuses is an ElasticsearchParseException in words of its own.
 *
 * `{ includes: [], excludes: [] }` means the whole source.
 *
 * @example
 * sourceFromParams({ _source: 'title,author.*', _source_excludes: 'author.email' })
 * // { includes: ['title', 'author.*'], excludes: ['author.email'] }
 * sourceFromBody(false) // false
 * sourceFromMgetDoc('true') // { includes: [], excludes: [] }
 */
import { isBooleanValue, parseBoolean } from '../booleans.ts';
import { badRequest, parsingError } from '../errors.ts';
import { isObject } from '../patterns.ts';
import type { SourceFilter } from '../search/request.ts';
import { commaList, tokenName, unknownKey } from './request-values.ts';

/** The URI parameters {@link sourceFromParams} reads, which every API that takes one takes all three of. */
export const SOURCE_PARAMS = ['_source', '_source_includes', '_source_excludes'];

/**
 * `_source=true|false|a,b.*`, `_source_includes`, `_source_excludes`; undefined when none is given.
 * `_source=false` wins over any list, as it does in ES.
 */
export function sourceFromParams(query: Record<string, string | undefined>): SourceFilter | undefined {
  const { _source: source, _source_includes: includes, _source_excludes: excludes } = query;
  if (source === undefined && includes === undefined && excludes === undefined) return undefined;
  if (source === 'false') return false;
  return {
    includes: includes !== undefined ? commaList(includes) : source !== undefined && source !== 'true' ? commaList(source) : [],
    excludes: excludes !== undefined ? commaList(excludes) : [],
  };
}

/** Body `_source`: a boolean, a pattern, a list of patterns, or `{includes|include, excludes|exclude}`. */
export function sourceFromBody(value: unknown): SourceFilter {
  if (typeof value === 'boolean') return value && { includes: [], excludes: [] };
  if (typeof value === 'string') return { includes: [value], excludes: [] };
  if (Array.isArray(value)) return { includes: patterns('_source', value), excludes: [] };
  if (!isObject(value)) throw parsingError(`Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [${tokenName(value)}]`);
  const filter = { includes: [] as string[], excludes: [] as string[] };
  for (const [key, given] of Object.entries(value)) {
    const list = listNamed(key);
    if (list === undefined || !(typeof given === 'string' || Array.isArray(given))) throw unknownKey(key, given);
    filter[list] = typeof given === 'string' ? [given] : patterns(key, given);
  }
  return filter;
}

/** An `_mget` doc's `_source` (see the module comment); a null is passed over before this is called. */
export function sourceFromMgetDoc(value: unknown): SourceFilter {
  if (isBooleanValue(value)) return parseBoolean(String(value)) && { includes: [], excludes: [] };
  if (typeof value === 'string') return { includes: [value], excludes: [] };
  if (Array.isArray(value)) return { includes: value.map(mgetPattern), excludes: [] };
  if (!isObject(value)) throw mgetError(`illegal type for _source: [${tokenName(value)}]`);
  const filter = { includes: [] as string[], excludes: [] as string[] };
  for (const [key, given] of Object.entries(value)) {
    const list = listNamed(key);
    if (list === undefined) throw mgetError(`source definition may not contain [${key}]`);
    for (const pattern of Array.isArray(given) ? given : [given]) {
      if (pattern === null || typeof pattern === 'object') throw mgetError('unexpected token while parsing source settings');
      filter[list].push(String(pattern));
    }
  }
  return filter;
}

/** The list a key of an object `_source` names: `includes` and `excludes`, each with its older singular spelling. */
function listNamed(key: string): 'includes' | 'excludes' | undefined {
  if (key === 'includes' || key === 'include') return 'includes';
  if (key === 'excludes' || key === 'exclude') return 'excludes';
  return undefined;
}

function patterns(key: string, values: unknown[]): string[] {
  for (const value of values) if (typeof value !== 'string') throw unknownKey(key, value);
  return values as string[];
}

/** ES's ElasticsearchParseException, which MultiGetRequest throws. */
const mgetError = (reason: string) => badRequest('parse_exception', reason);

/**
 * A pattern in an `_mget` doc's `_source` list: a value, as its text. ES's parser would skip into an
 * object or array given here and read on from inside it; deeppage refuses one instead.
 */
function mgetPattern(value: unknown): string {
  if (value !== null && typeof value === 'object') throw mgetError(`failed to parse multi get request. [_source] must be a value but was [${tokenName(value)}]`);
  return String(value);
}
