/** `_search` and `_count`, over no index (all), one, a comma list or wildcards. */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { parsingError } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import { hasNoBody, jsonBodyOrSource } from '../request-body.ts';
import { send, sendSearch } from '../respond.ts';
import { runSearch, searchCall, type SearchCall } from '../../engine/request/search-call.ts';
import { KeptSearchCalls } from '../kept-search-calls.ts';
import { checkParamNames, parseSearchRequest } from '../../engine/request/search-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { floatParam } from '../../engine/request/request-values.ts';
import { searchScope } from '../../engine/request/indices-options.ts';

/** The URI parameters of a `q=` query, which `_count` takes as `_search` does. */
const QUERY_PARAMS = ['q', 'df', 'default_operator', 'lenient', 'analyzer', 'analyze_wildcard'];

/** URI parameters `_count` accepts besides the body's `query`. */
const COUNT_PARAMS = new Set(['min_score', 'pretty', 'human', 'error_trace', 'filter_path', 'allow_no_indices', 'ignore_unavailable', 'expand_wildcards', 'routing', 'preference', 'source', 'source_content_type', ...QUERY_PARAMS]);

export function searchRoutes(engine: Engine): Hono {
  const app = new Hono();

  const kept = new KeptSearchCalls();
  const read = (c: Context, body: unknown) => searchCall(searchParams(c), body, pathOf(c), c.req.param('index'));
  const answer = (c: Context, call: SearchCall) => sendSearch(c, runSearch(engine, call), call.params);
  const search = (c: Context) => {
    // Without a body the URL says it all (its `source` parameter included): read once, kept.
    if (hasNoBody(c)) return answer(c, kept.read(c.req.url, () => read(c, jsonBodyOrSource(c))));
    const body = jsonBodyOrSource(c);
    return body instanceof Promise ? body.then((value) => answer(c, read(c, value))) : answer(c, read(c, body));
  };
  app.on(['GET', 'POST'], '/_search', search);
  app.on(['GET', 'POST'], '/:index/_search', search);

  const count = async (c: Context) => {
    const body = await jsonBodyOrSource(c);
    checkParamNames(queryOf(c), pathOf(c), COUNT_PARAMS);
    if (isObject(body)) {
      const extra = Object.keys(body).find((k) => k !== 'query');
      if (extra) throw parsingError(`request does not support [${extra}]`);
    }
    const params = queryOf(c);
    const { query } = parseSearchRequest(Object.fromEntries(QUERY_PARAMS.filter((name) => params[name] !== undefined).map((name) => [name, params[name]])), body ?? {}, pathOf(c));
    const minScore = params.min_score === undefined ? undefined : floatParam('min_score', params.min_score);
    const { count, shards } = engine.count(c.req.param('index'), query, params.routing, minScore, searchScope(queryOf(c)));
    return send(c, 200, { count, _shards: { total: shards, successful: shards, skipped: 0, failed: 0 } });
  };
  app.on(['GET', 'POST'], '/_count', count);
  app.on(['GET', 'POST'], '/:index/_count', count);
  return app;
}

/** The query string minus the parameters that carry the body itself. */
function searchParams(c: Context): Record<string, string> {
  const query = queryOf(c);
  // Most searches carry their body as a body: the parameters as they are (a rest copy costs a few µs).
  if (query.source === undefined && query.source_content_type === undefined) return query;
  const { source: _source, source_content_type: _type, ...rest } = query;
  return rest;
}
