/**
 * Scrolls: the next batch (`POST /_search/scroll`) and clearing them (`DELETE /_search/scroll`). A
 * scroll's first batch is a search with `scroll` (search-call.ts). The id may come in the path
 * (`/_search/scroll/{scroll_id}`), which ES reads as the `scroll_id` parameter, over the query's.
 *
 * @example
 * const first = search(engine, 'books', { scroll: '1m', size: '100' });
 * const next = scroll(engine, {}, { scroll_id: first._scroll_id, scroll: '1m' });
 * clearScroll(engine, {}, { scroll_id: next._scroll_id }); // { succeeded: true, num_freed: 1 }
 */
import type { Engine } from '../engine.ts';
import { illegalArgument, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import type { SearchResponse } from '../search/search.ts';
import { timeValueMs } from '../time-value.ts';
import { booleanParam } from '../booleans.ts';
import { commaList, tokenName } from './request-values.ts';
import { checkParamNames, RESPONSE_PARAMS } from './search-params.ts';

type Params = Record<string, string | undefined>;

const SCROLL_PARAMS = new Set([...RESPONSE_PARAMS, 'scroll', 'scroll_id', 'rest_total_hits_as_int']);
const CLEAR_PARAMS = new Set([...RESPONSE_PARAMS, 'scroll_id']);

/** The scroll's next batch, its keep-alive renewed by `scroll` (the body's, or the parameter over it). */
export function scroll(engine: Engine, params: Params, body?: unknown, path = '/_search/scroll'): SearchResponse {
  checkParamNames(params, path, SCROLL_PARAMS);
  const given = scrollBody(body, 'scroll');
  const id = params.scroll_id ?? given.scroll_id;
  if (id === undefined) throw validationFailed(['scrollId is missing']);
  const keepAlive = params.scroll ?? given.scroll;
  const response = engine.scroll(id, keepAlive === undefined ? undefined : timeValueMs('scroll', keepAlive));
  const asInt = booleanParam(params.rest_total_hits_as_int, false);
  return asInt ? totalAsInt(response) : response;
}

/** Frees the scrolls named (a comma list in `scroll_id`, or the body's), or every one with `_all`. ES answers 404 when none was freed. */
export function clearScroll(engine: Engine, params: Params, body?: unknown, path = '/_search/scroll'): { succeeded: boolean; num_freed: number } {
  checkParamNames(params, path, CLEAR_PARAMS);
  const given = scrollBody(body, 'scroll_id');
  const ids = params.scroll_id !== undefined ? commaList(params.scroll_id) : given.ids;
  if (ids.length === 0) throw validationFailed(['no scroll ids specified']);
  return engine.cursors.clearScrolls(ids.includes('_all') ? 'all' : ids);
}

/** A scroll or clear-scroll body: `scroll_id` (a string, or a list to clear) and, to continue, `scroll`. */
function scrollBody(body: unknown, kind: 'scroll' | 'scroll_id'): { scroll_id?: string; scroll?: string; ids: string[] } {
  const out: { scroll_id?: string; scroll?: string; ids: string[] } = { ids: [] };
  if (body === undefined) return out;
  if (!isObject(body)) throw illegalArgument(`Failed to parse request body`);
  for (const [key, value] of Object.entries(body)) {
    if (key === 'scroll_id' && typeof value === 'string') {
      out.scroll_id = value;
      out.ids.push(value);
    } else if (key === 'scroll_id' && kind === 'scroll_id' && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      out.ids.push(...value);
    } else if (key === 'scroll' && kind === 'scroll' && typeof value === 'string') {
      out.scroll = value;
    } else {
      throw illegalArgument(`Unknown parameter [${key}] in request body or parameter is of the wrong type[${tokenName(value)}] `);
    }
  }
  return out;
}

function totalAsInt(response: SearchResponse): SearchResponse {
  const { total } = response.hits;
  return { ...response, hits: { ...response.hits, total: typeof total === 'object' ? total.value : total } };
}
