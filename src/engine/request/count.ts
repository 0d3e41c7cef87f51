/**
 * `_count`: how many documents a query matches, counted exactly, as ES's `RestCountAction` reads the
 * request: the body's `query` (its only key), or a URI `q=` with its companions.
 *
 * @example
 * count(engine, 'books', { q: 'author:kim' });
 * // { count: 3, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } }
 */
import type { Engine } from '../engine.ts';
import { parsingError } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { INDICES_OPTIONS_PARAMS, searchScope } from './indices-options.ts';
import { floatParam } from './request-values.ts';
import { checkParamNames, parseSearchRequest, requestPath, RESPONSE_PARAMS, URI_QUERY_PARAMS } from './search-params.ts';

type Params = Record<string, string | undefined>;

/** URI parameters `_count` accepts besides the body's `query`. */
const COUNT_PARAMS = new Set(['min_score', ...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, 'routing', 'preference', ...URI_QUERY_PARAMS]);

export interface CountResponse {
  count: number;
  _shards: { total: number; successful: number; skipped: number; failed: number };
}

/** @param path names the request in errors, as the client sent it; `/{index}/_count` by default. */
export function count(engine: Engine, index: string | undefined, params: Params, body?: unknown, path = requestPath(index, '_count')): CountResponse {
  checkParamNames(params, path, COUNT_PARAMS);
  if (isObject(body)) {
    const extra = Object.keys(body).find((k) => k !== 'query');
    if (extra) throw parsingError(`request does not support [${extra}]`);
  }
  const given = Object.fromEntries(URI_QUERY_PARAMS.filter((name) => params[name] !== undefined).map((name) => [name, params[name]]));
  const { query } = parseSearchRequest(given, body ?? {}, path);
  const minScore = params.min_score === undefined ? undefined : floatParam('min_score', params.min_score);
  const { count: matched, shards } = engine.count(index, query, params.routing, minScore, searchScope(params));
  return { count: matched, _shards: { total: shards, successful: shards, skipped: 0, failed: 0 } };
}
