/**
 * Points in time and scrolls: `POST /{index}/_pit`, `DELETE /_pit`, OpenSearch's
 * `/{index}/_search/point_in_time` and `/_search/point_in_time[/_all]`, `POST /_search/scroll`,
 * `DELETE /_search/scroll`, answered by the engine's request API (src/engine/request/api.ts).
 * Searches over a point in time, and the first batch of a scroll, go through `_search`
 * (routes/search.ts).
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { clearScroll, closePointInTime, createPit, deleteAllPits, deletePits, getAllPits, openPointInTime, scroll } from '../../engine/request/api.ts';
import type { Slab } from '../json-bytes.ts';
import { jsonBody } from '../request-body.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { send, sendSearch } from '../respond.ts';

export function cursorRoutes(engine: Engine, slab: Slab): Hono {
  const app = new Hono();

  const openPit = async (c: Context) => send(c, 200, openPointInTime(engine, c.req.param('index'), queryOf(c), await jsonBody(c), pathOf(c)));
  app.post('/_pit', openPit);
  app.post('/:index/_pit', openPit);

  app.delete('/_pit', async (c) => send(c, 200, closePointInTime(engine, queryOf(c), await jsonBody(c), pathOf(c))));

  // OpenSearch's names for the same points in time (engine/request/opensearch-pit.ts).
  app.post('/:index/_search/point_in_time', async (c) => send(c, 200, createPit(engine, c.req.param('index'), queryOf(c), await jsonBody(c), pathOf(c))));
  app.delete('/_search/point_in_time', async (c) => send(c, 200, deletePits(engine, queryOf(c), await jsonBody(c), pathOf(c))));
  app.delete('/_search/point_in_time/_all', async (c) => send(c, 200, deleteAllPits(engine, queryOf(c), await jsonBody(c), pathOf(c))));
  app.get('/_search/point_in_time/_all', async (c) => send(c, 200, getAllPits(engine, queryOf(c), await jsonBody(c), pathOf(c))));

  const next = async (c: Context) => sendSearch(c, scroll(engine, scrollParams(c), await jsonBody(c), pathOf(c)), slab);
  app.on(['GET', 'POST'], '/_search/scroll', next);
  app.on(['GET', 'POST'], '/_search/scroll/:scroll_id', next);

  const clear = async (c: Context) => {
    const result = clearScroll(engine, scrollParams(c), await jsonBody(c), pathOf(c));
    // ES answers 404 when nothing was freed.
    return send(c, result.num_freed === 0 ? 404 : 200, result);
  };
  app.delete('/_search/scroll', clear);
  app.delete('/_search/scroll/:scroll_id', clear);
  return app;
}

/** The URI parameters, with the path's `scroll_id` over the query's: ES reads a path parameter as one of them. */
function scrollParams(c: Context): Record<string, string> {
  const id = c.req.param('scroll_id');
  return id === undefined ? queryOf(c) : { ...queryOf(c), scroll_id: id };
}
