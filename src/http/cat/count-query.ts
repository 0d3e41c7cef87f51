/**
 * `_cat/count`'s query, read as ES's `RestCountAction` reads it: from the body (or `source`) when
 * there is one, whose only key may be `query`; otherwise from `q` and its companions (`df`,
 * `default_operator`, …), which only then are parameters the request may carry. The query itself
 * is parsed by the search request's parser, as `_count` and `_search` parse theirs.
 */
import type { Context } from 'hono';
import { parsingError } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import type { Query } from '../../engine/search/request.ts';
import { BODY_SOURCE_PARAMS, jsonBodyOrSource } from '../request-body.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { parseSearchRequest, URI_QUERY_PARAMS } from '../../engine/request/search-params.ts';

export interface CountQuery {
  query: Query;
  /** The parameters reading it took. */
  params: readonly string[];
}

export async function countQuery(c: Context): Promise<CountQuery> {
  const body = await jsonBodyOrSource(c);
  if (body === undefined) {
    const params = queryOf(c);
    const given = Object.fromEntries(URI_QUERY_PARAMS.filter((name) => params[name] !== undefined).map((name) => [name, params[name]]));
    return { query: parseSearchRequest(given, undefined, pathOf(c)).query, params: [...URI_QUERY_PARAMS, ...BODY_SOURCE_PARAMS] };
  }
  if (isObject(body)) {
    const extra = Object.keys(body).find((key) => key !== 'query');
    if (extra !== undefined) throw parsingError(`request does not support [${extra}]`);
  }
  return { query: parseSearchRequest({}, body, pathOf(c)).query, params: BODY_SOURCE_PARAMS };
}
