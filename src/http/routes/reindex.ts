/**
 * `POST /_reindex`, answered by the engine's request API (src/engine/request/reindex.ts): the
 * finished reindex with ES's status for it, or, with `wait_for_completion=false`, `{"task": id}`.
 */
import { Hono } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { reindex } from '../../engine/request/api.ts';
import { reindexStatus } from '../../engine/reindex/reindex.ts';
import { jsonBody } from '../request-body.ts';
import { queryOf } from '../request-uri.ts';
import { send } from '../respond.ts';

export function reindexRoutes(engine: Engine): Hono {
  const app = new Hono();
  app.post('/_reindex', async (c) => {
    const answer = await reindex(engine, queryOf(c), await jsonBody(c));
    return send(c, 'task' in answer ? 200 : reindexStatus(answer), answer);
  });
  return app;
}
