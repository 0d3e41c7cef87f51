/**
 * Points in time and scrolls: `POST /{index}/_pit`, `DELETE /_pit`, `POST /_search/scroll`,
 * `DELETE /_search/scroll`. Searches over a point in time, and the first batch of a scroll, go
 * through `_search` (routes/search.ts).
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { illegalArgument, validationFailed } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import type { SearchResponse } from '../../engine/search/search.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { jsonBody } from '../request-body.ts';
import { booleanParam, commaList, tokenName } from '../../engine/request/request-values.ts';
import { send, sendSearch } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { INDICES_OPTIONS_PARAMS, searchScope } from '../../engine/request/indices-options.ts';

/** `preference` and the index options as a search reads them (indices-options.ts). */
const OPEN_PIT_PARAMS = new Set([...RESPONSE_PARAMS, 'keep_alive', 'routing', 'preference', ...INDICES_OPTIONS_PARAMS]);
const SCROLL_PARAMS = new Set([...RESPONSE_PARAMS, 'scroll', 'scroll_id', 'rest_total_hits_as_int']);
const CLEAR_PARAMS = new Set([...RESPONSE_PARAMS, 'scroll_id']);

export function cursorRoutes(engine: Engine): Hono {
  const app = new Hono();

  const openPit = async (c: Context) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), OPEN_PIT_PARAMS);
    const index = c.req.param('index');
    const problems: string[] = [];
    if (index === undefined) problems.push('[index] is not specified');
    if (query.keep_alive === undefined) problems.push('[keep_alive] is not specified');
    if (problems.length > 0) throw validationFailed(problems);
    const body = await jsonBody(c);
    if (isObject(body) && Object.keys(body).length > 0) {
      const [key] = Object.keys(body);
      throw illegalArgument(key === 'index_filter' ? '[index_filter] is not supported by deeppage yet' : `request [${pathOf(c)}] does not support [${key}]`);
    }
    return send(c, 200, engine.openPointInTime(index!, timeValueMs('keep_alive', query.keep_alive), query.routing, true, searchScope(query)));
  };
  app.post('/_pit', openPit);
  app.post('/:index/_pit', openPit);

  app.delete('/_pit', async (c) => {
    checkParamNames(queryOf(c), pathOf(c), new Set(RESPONSE_PARAMS));
    const body = await jsonBody(c);
    const id = isObject(body) ? body.id : undefined;
    if (typeof id !== 'string' || id === '') throw validationFailed(['id is empty']);
    return send(c, 200, engine.cursors.closePits([id]));
  });

  const scroll = async (c: Context) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), SCROLL_PARAMS);
    const body = scrollBody(await jsonBody(c), 'scroll');
    const id = c.req.param('scroll_id') ?? query.scroll_id ?? body.scroll_id;
    if (id === undefined) throw validationFailed(['scrollId is missing']);
    const keepAlive = query.scroll ?? body.scroll;
    const response = engine.scroll(id, keepAlive === undefined ? undefined : timeValueMs('scroll', keepAlive));
    const asInt = query.rest_total_hits_as_int !== undefined && booleanParam(query.rest_total_hits_as_int);
    return sendSearch(c, asInt ? totalAsInt(response) : response);
  };
  app.on(['GET', 'POST'], '/_search/scroll', scroll);
  app.on(['GET', 'POST'], '/_search/scroll/:scroll_id', scroll);

  const clearScroll = async (c: Context) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), CLEAR_PARAMS);
    const body = scrollBody(await jsonBody(c), 'scroll_id');
    const given = c.req.param('scroll_id') ?? query.scroll_id;
    const ids = given !== undefined ? commaList(given) : body.ids;
    if (ids.length === 0) throw validationFailed(['no scroll ids specified']);
    const result = engine.cursors.clearScrolls(ids.includes('_all') ? 'all' : ids);
    // ES answers 404 when nothing was freed.
    return send(c, result.num_freed === 0 ? 404 : 200, result);
  };
  app.delete('/_search/scroll', clearScroll);
  app.delete('/_search/scroll/:scroll_id', clearScroll);
  return app;
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
