/**
 * `POST /_reindex`: runs as a task (seen in `_tasks` while it runs). The answer waits for it, or,
 * with `wait_for_completion=false`, is `{task: id}` once the task's record is durable (after a crash
 * it reads as interrupted), and the result is kept for `GET /_tasks/{id}`.
 *
 * @example
 * const done = await reindex(engine, {}, { source: { index: 'cities' }, dest: { index: 'copy' } });
 * // { took, timed_out: false, total: 1000, created: 1000, …, failures: [] }
 */
import type { Engine } from '../engine.ts';
import { checkReindex, describeReindex, reindex as runReindex, type ReindexResponse } from '../reindex/reindex.ts';
import { timeValueMs } from '../time-value.ts';
import { parseReindexRequest } from './reindex-params.ts';
import { booleanParam } from '../booleans.ts';
import { notSupported } from './request-values.ts';
import { checkParamNames, RESPONSE_PARAMS } from './search-params.ts';
import { activeShardCount } from './write-params.ts';

type Params = Record<string, string | undefined>;

/**
 * `timeout`, `wait_for_active_shards` and `require_alias` are checked as a write's are
 * (write-params.ts): a timeout and one active copy change nothing on one node; more copies, or a
 * destination that must be an alias, are refused.
 */
const PARAMS = new Set([...RESPONSE_PARAMS, 'refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'require_alias', 'scroll', 'slices', 'max_docs', 'conflicts']);

export const REINDEX_ACTION = 'indices:data/write/reindex';

/** The finished reindex's response (its HTTP status is `reindexStatus`'s), or the task's id when not waited for. */
export async function reindex(engine: Engine, params: Params, body: unknown): Promise<ReindexResponse | { task: string }> {
  checkParamNames(params, '/_reindex', PARAMS);
  if (params.timeout !== undefined) timeValueMs('timeout', params.timeout);
  if (params.wait_for_active_shards !== undefined) activeShardCount(params.wait_for_active_shards);
  if (booleanParam(params.require_alias, false)) throw notSupported('[require_alias=true]');
  const request = parseReindexRequest(params, body);
  checkReindex(engine, request);
  const wait = booleanParam(params.wait_for_completion, true);
  const task = engine.tasks.start<ReindexResponse>(REINDEX_ACTION, describeReindex(request), (running) => runReindex(engine, request, running), { store: !wait });
  if (wait) return task.done;
  // The outcome is kept with the task; nothing waits for the promise here.
  task.done.catch(() => {});
  await task.recorded;
  return { task: task.taskId };
}
