/**
 * Which part of `_source` hits carry, from URI parameters or the body, read as ES's
 * FetchSourceContext reads them. `{ includes: [], excludes: [] }` means the whole source.
 *
 * @example
 * sourceFromParams({ _source: 'title,author.*', _source_excludes: 'author.email' })
 * // { includes: ['title', 'author.*'], excludes: ['author.email'] }
 * sourceFromBody(false) // false
 */
import { parsingError } from '../errors.ts';
import { isObject } from '../patterns.ts';
import type { SourceFilter } from '../search/request.ts';
import { commaList, tokenName, unknownKey } from './request-values.ts';

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
    const list = key === 'includes' || key === 'include' ? 'includes' : key === 'excludes' || key === 'exclude' ? 'excludes' : undefined;
    if (list === undefined || !(typeof given === 'string' || Array.isArray(given))) throw unknownKey(key, given);
    filter[list] = typeof given === 'string' ? [given] : patterns(key, given);
  }
  return filter;
}

function patterns(key: string, values: unknown[]): string[] {
  for (const value of values) if (typeof value !== 'string') throw unknownKey(key, value);
  return values as string[];
}
