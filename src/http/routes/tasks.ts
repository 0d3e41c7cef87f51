/**
 * The tasks API over a {@link TaskManager}: `GET /_tasks`, `GET /_tasks/{task_id}`,
 * `POST /_tasks/{task_id}/_cancel` and `POST /_tasks/_cancel`, in ES's shapes. A cancellation that
 * cannot be done is, as in ES, a node failure beside an empty list (HTTP 200), not an error response.
 *
 * @example
 * app.route('/', tasksRoutes(engine.tasks));
 * // GET /_tasks?actions=*reindex&detailed
 * // {"nodes":{"<node id>":{"name":…,"roles":[…],"tasks":{"<node id>:1":{…}}}}}
 */
import { Hono, type Context } from 'hono';
import { badRequest, EsError, illegalArgument, toEsError, validationFailed } from '../../engine/errors.ts';
import { describeNode } from '../../engine/node.ts';
import { globPattern } from '../../engine/patterns.ts';
import { DEFAULT_WAIT_MS, parseTaskId, type TaskFilter, type TaskInfo, type TaskManager, type TaskResult } from '../../engine/tasks/task-manager.ts';
import { formatTimeValue, timeValueMs } from '../../engine/time-value.ts';
import type { ErrorCause } from '../error-response.ts';
import { booleanParam, parseBooleanOr } from '../../engine/booleans.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';

const LIST_PARAMS = new Set([...RESPONSE_PARAMS, 'actions', 'detailed', 'group_by', 'nodes', 'parent_task_id', 'wait_for_completion', 'timeout']);
const GET_PARAMS = new Set([...RESPONSE_PARAMS, 'wait_for_completion', 'timeout']);
/** ES's cancel handler reads `group_by` too (its answer is a list), though the API spec leaves it out. */
const CANCEL_PARAMS = new Set([...RESPONSE_PARAMS, 'actions', 'nodes', 'parent_task_id', 'wait_for_completion', 'group_by']);

type GroupBy = 'nodes' | 'parents' | 'none';

export function tasksRoutes(tasks: TaskManager): Hono {
  const app = new Hono();
  const node = { id: tasks.nodeId, ...describeNode() };

  app.get('/_tasks', async (c) => {
    const query = queryOf(c);
    const filter = filterParams(query);
    const detailed = booleanParam(query.detailed, false);
    const wait = booleanParam(query.wait_for_completion, false);
    const timeoutMs = timeoutParam(query.timeout);
    checkParamNames(query, pathOf(c), LIST_PARAMS);
    const groupBy = groupByParam(query.group_by);
    let listed: TaskInfo[] = [];
    const failures: ErrorCause[] = [];
    if (selectsNode(commaList(query.nodes ?? ''), node)) {
      if (!wait) listed = tasks.list(filter, detailed);
      else {
        try {
          listed = await tasks.listCompleted(filter, detailed, timeoutMs);
        } catch (error) {
          failures.push(nodeFailure(node.id, error));
        }
      }
    }
    return send(c, 200, listBody(listed, failures, groupBy, node, human(c)));
  });

  app.get('/_tasks/:task_id', async (c) => {
    const query = queryOf(c);
    const taskId = c.req.param('task_id');
    parseTaskId(taskId); // a malformed id is refused first, as ES builds its TaskId before reading the rest
    const wait = booleanParam(query.wait_for_completion, false);
    const timeoutMs = timeoutParam(query.timeout);
    checkParamNames(query, pathOf(c), GET_PARAMS);
    const result = wait ? await tasks.wait(taskId, timeoutMs) : tasks.get(taskId);
    return send(c, 200, resultBody(result, human(c)));
  });

  const cancel = async (c: Context) => {
    const query = queryOf(c);
    const nodes = commaList(query.nodes ?? '');
    const text = c.req.param('task_id');
    const target = text === undefined ? undefined : parseTaskId(text);
    const filter = filterParams(query);
    const waitForCompletion = booleanParam(query.wait_for_completion, false);
    checkParamNames(query, pathOf(c), CANCEL_PARAMS);
    if (target && nodes.length > 0) throw validationFailed(['task id cannot be used together with node ids']);
    const groupBy = groupByParam(query.group_by);
    let cancelled: TaskInfo[] = [];
    const failures: ErrorCause[] = [];
    if (target) {
      try {
        cancelled = [await tasks.cancel(text!, { waitForCompletion, filter })];
      } catch (error) {
        failures.push(nodeFailure(target.node, error));
      }
    } else if (selectsNode(nodes, node)) {
      cancelled = await tasks.cancelMatching(filter, { waitForCompletion });
    }
    return send(c, 200, listBody(cancelled, failures, groupBy, node, human(c)));
  };
  app.post('/_tasks/_cancel', cancel);
  app.post('/_tasks/:task_id/_cancel', cancel);

  return app;
}

type Params = Record<string, string | undefined>;

function filterParams(query: Params): TaskFilter {
  const parent = query.parent_task_id;
  // A malformed parent id is refused before anything runs, as ES builds its TaskId from the request.
  if (parent !== undefined) parseTaskId(parent);
  return { actions: commaList(query.actions ?? ''), parentTaskId: parent };
}

const human = (c: Context) => booleanParam(queryOf(c).human, false);

function timeoutParam(value: string | undefined): number {
  return value === undefined ? DEFAULT_WAIT_MS : timeValueMs('timeout', value);
}

function groupByParam(value = 'nodes'): GroupBy {
  if (value === 'nodes' || value === 'parents' || value === 'none') return value;
  throw illegalArgument(`[group_by] must be one of [nodes], [parents] or [none] but was [${value}]`);
}

type Node = ReturnType<typeof describeNode> & { id: string };

/**
 * Whether ES's node selectors (`DiscoveryNodes.resolveNodes`) take in this node: none means all;
 * `_all`, `_local`, `_master`; `*` patterns over its id, name and address; `<role>:true|false`, which
 * adds or removes the nodes with that role (read as `Booleans.parseBoolean(value, true)`: blank adds,
 * other words are refused). Selectors apply in order.
 */
function selectsNode(selectors: readonly string[], node: Node): boolean {
  if (selectors.length === 0) return true;
  let selected = false;
  for (const selector of selectors) {
    const colon = selector.indexOf(':');
    const [key, value] = colon < 0 ? [selector, undefined] : [selector.slice(0, colon), selector.slice(colon + 1)];
    if (value !== undefined && node.roles.includes(key)) {
      selected = parseBooleanOr(value, true);
    } else if (['_all', '_local', '_master'].includes(selector) || [node.id, node.name, node.host].some((name) => globPattern(selector).test(name))) {
      selected = true;
    }
  }
  return selected;
}

/** ES's list answer (`ListTasksResponse`), which cancellations answer with too. */
function listBody(listed: TaskInfo[], failures: ErrorCause[], groupBy: GroupBy, node: Node, readable: boolean) {
  const head = failures.length > 0 ? { node_failures: failures } : {};
  const keyed = () => Object.fromEntries(listed.map((info) => [`${info.node}:${info.id}`, taskBody(info, readable)]));
  if (groupBy === 'none') return { ...head, tasks: listed.map((info) => taskBody(info, readable)) };
  // deeppage starts no child tasks, so grouping by parents leaves every task at the top.
  if (groupBy === 'parents') return { ...head, tasks: keyed() };
  const { id, ...description } = node;
  return { ...head, nodes: listed.length === 0 ? {} : { [id]: { ...description, tasks: keyed() } } };
}

function resultBody(result: TaskResult, readable: boolean) {
  return {
    completed: result.completed,
    task: taskBody(result.task, readable),
    ...(result.error !== undefined && { error: errorCause(result.error) }),
    ...(result.response !== undefined && { response: result.response }),
  };
}

/** With `?human`, ES prints `start_time` and `running_time` readably before their raw fields. */
function taskBody(info: TaskInfo, readable: boolean): Record<string, unknown> {
  if (!readable) return { ...info };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    if (key === 'start_time_in_millis') out.start_time = new Date(info.start_time_in_millis).toISOString();
    if (key === 'running_time_in_nanos') out.running_time = formatTimeValue(info.running_time_in_nanos / 1e6);
    out[key] = value;
  }
  return out;
}

/** An error as ES prints it inside another body (a stored task error, a node failure): without `root_cause`. */
function errorCause(error: unknown): ErrorCause {
  return toEsError(error).describe();
}

/** ES's `FailedNodeException`, wrapping what went wrong on the node. */
function nodeFailure(nodeId: string, error: unknown): ErrorCause {
  if (!(error instanceof EsError)) throw error;
  return errorCause(new EsError(500, 'failed_node_exception', `Failed node [${nodeId}]`, { node_id: nodeId }, error));
}
