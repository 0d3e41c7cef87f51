/**
 * `POST /_reindex`: runs as a task (seen in `_tasks` while it runs); the response waits for it, or,
 * with `wait_for_completion=false`, is `{"task": id}` at once and the result is kept for
 * `GET /_tasks/{id}`.
 */
import { Hono } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { checkReindex, describeReindex, reindex, reindexStatus, type ReindexResponse } from '../../engine/reindex/reindex.ts';
import { parseReindexRequest } from '../../engine/request/reindex-params.ts';
import { jsonBody } from '../request-body.ts';
import { booleanParam, notSupported } from '../../engine/request/request-values.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { activeShardCount } from '../../engine/request/write-params.ts';
import { send } from '../respond.ts';
import { checkParamNames } from '../../engine/request/search-params.ts';
import { queryOf } from '../request-uri.ts';

/**
 * `timeout`, `wait_for_active_shards` and `require_alias` are checked as a write's are
 * (write-params.ts): a timeout and one active copy change nothing on one node; more copies, or a
 * destination that must be an alias, are refused.
 */
const PARAMS = new Set(['pretty', 'human', 'error_trace', 'filter_path', 'refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'require_alias', 'scroll', 'slices', 'max_docs', 'conflicts']);

export const REINDEX_ACTION = 'indices:data/write/reindex';

export function reindexRoutes(engine: Engine): Hono {
  const app = new Hono();
  app.post('/_reindex', async (c) => {
    const query = queryOf(c);
    checkParamNames(query, '/_reindex', PARAMS);
    if (query.timeout !== undefined) timeValueMs('timeout', query.timeout);
    if (query.wait_for_active_shards !== undefined) activeShardCount(query.wait_for_active_shards);
    if (query.require_alias !== undefined && booleanParam(query.require_alias)) throw notSupported('[require_alias=true]');
    const request = parseReindexRequest(query, await jsonBody(c));
    checkReindex(engine, request);
    const wait = query.wait_for_completion === undefined || booleanParam(query.wait_for_completion);
    const task = engine.tasks.start<ReindexResponse>(REINDEX_ACTION, describeReindex(request), (running) => reindex(engine, request, running), { store: !wait });
    if (!wait) {
      // The outcome is kept with the task; nothing waits for the promise here.
      task.done.catch(() => {});
      // The id is answered once the task's record is durable: after a crash it reads as interrupted.
      await task.recorded;
      return send(c, 200, { task: task.taskId });
    }
    const body = await task.done;
    return send(c, reindexStatus(body), body);
  });
  return app;
}
