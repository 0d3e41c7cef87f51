/**
 * `_search` and `_count`, over no index (all), one, a comma list or wildcards: the parameters and body
 * handed to the engine's request API (src/engine/request/api.ts), its answer written.
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { count, runSearch, searchCall, type SearchCall } from '../../engine/request/api.ts';
import type { Slab } from '../json-bytes.ts';
import { KeptSearchCalls } from '../kept-search-calls.ts';
import { apiParams, hasNoBody, jsonBodyOrSource } from '../request-body.ts';
import { pathOf } from '../request-uri.ts';
import { send, sendSearch } from '../respond.ts';

export function searchRoutes(engine: Engine, slab: Slab): Hono {
  const app = new Hono();

  const kept = new KeptSearchCalls();
  const read = (c: Context, body: unknown) => searchCall(apiParams(c), body, pathOf(c), c.req.param('index'));
  const answer = (c: Context, call: SearchCall) => sendSearch(c, runSearch(engine, call), slab, call.params);
  const search = (c: Context) => {
    // Without a body the URL says it all (its `source` parameter included): read once, kept.
    if (hasNoBody(c)) return answer(c, kept.read(c.req.url, () => read(c, jsonBodyOrSource(c))));
    const body = jsonBodyOrSource(c);
    return body instanceof Promise ? body.then((value) => answer(c, read(c, value))) : answer(c, read(c, body));
  };
  app.on(['GET', 'POST'], '/_search', search);
  app.on(['GET', 'POST'], '/:index/_search', search);

  const countRoute = async (c: Context) => send(c, 200, count(engine, c.req.param('index'), apiParams(c), await jsonBodyOrSource(c), pathOf(c)));
  app.on(['GET', 'POST'], '/_count', countRoute);
  app.on(['GET', 'POST'], '/:index/_count', countRoute);
  return app;
}
