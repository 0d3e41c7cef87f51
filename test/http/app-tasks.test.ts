/**
 * The tasks API: its routes on a fresh Hono app with createApp's product header and error handler,
 * driven through `app.request()`, then through the official client on a socket. Tasks are started
 * directly on the manager and held open until aborted, so nothing depends on timing.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Client, errors } from '@elastic/elasticsearch';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EsError, toEsError } from '../../src/engine/errors.ts';
import { TaskManager, type RunningTask } from '../../src/engine/tasks/task-manager.ts';
import { sendError } from '../../src/http/respond.ts';
import { tasksRoutes } from '../../src/http/routes/tasks.ts';
import { expectError, expectEsHeaders, type Json, type Reply } from './app-helpers.ts';

const NODE = 'node-a';
const REINDEX = 'indices:data/write/reindex';

/** The routes as createApp mounts them: the header the client checks, one error handler. */
function tasksApp(tasks: TaskManager): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    c.res.headers.set('X-Elastic-Product', 'Elasticsearch');
  });
  app.route('/', tasksRoutes(tasks));
  app.onError((error, c) => {
    const res = sendError(c, toEsError(error));
    res.headers.set('X-Elastic-Product', 'Elasticsearch');
    return res;
  });
  return app;
}

/** A runner that ends only when its task is aborted (then with the abort reason). */
const untilAborted = (task: RunningTask) =>
  new Promise<never>((_, reject) => task.signal.addEventListener('abort', () => reject(task.signal.reason)));

/** A runner that stops when cancelled and returns a reindex-like body. */
const reindexLike = async (task: RunningTask) => {
  task.status = { total: 10, created: 3, requests_per_second: -1, canceled: undefined };
  await untilAborted(task).catch(() => {});
  return { took: 1, total: 10, created: 3, failures: [] };
};

describe('tasks routes', () => {
  let tasks: TaskManager;
  let app: Hono;
  const call = async (method: string, path: string): Promise<Reply> => {
    const res = await app.request(path, { method });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text), text };
  };

  beforeAll(() => {
    tasks = new TaskManager(NODE);
    app = tasksApp(tasks);
  });
  afterEach(async () => {
    await tasks.cancelMatching({}, { waitForCompletion: true });
  });
  afterAll(async () => {
    await tasks.close();
  });

  it('GET /_tasks/{id} shows a running task, then its stored result', async () => {
    const task = tasks.start(REINDEX, 'reindex from [a] to [b]', reindexLike, { store: true });
    const running = await call('GET', `/_tasks/${encodeURIComponent(task.taskId)}`);
    expect(running.status).toBe(200);
    expectEsHeaders(running);
    expect(running.body.completed).toBe(false);
    expect(running.body.task).toMatchObject({
      node: NODE, id: Number(task.taskId.split(':')[1]), type: 'transport', action: REINDEX, description: 'reindex from [a] to [b]',
      status: { total: 10, created: 3, requests_per_second: -1 }, cancellable: true, cancelled: false, headers: {},
    });
    expect(running.body).not.toHaveProperty('response');

    await tasks.cancel(task.taskId);
    const done = await call('GET', `/_tasks/${task.taskId}?wait_for_completion=true&timeout=1m`);
    expect(done.status).toBe(200);
    expect(done.body.completed).toBe(true);
    expect(done.body.response).toEqual({ took: 1, total: 10, created: 3, failures: [] });
    expect(done.body.task.status).toEqual({ total: 10, created: 3, requests_per_second: -1, canceled: 'by user request' });
    expect(await call('GET', `/_tasks/${task.taskId}`)).toMatchObject({ status: 200, body: done.body });
  });

  it('renders a stored failure as ES’s error, without root_cause', async () => {
    const task = tasks.start(REINDEX, 'fails', async () => {
      throw new EsError(404, 'index_not_found_exception', 'no such index [src]', { index: 'src' });
    }, { store: true });
    await task.done.catch(() => {});
    const res = await call('GET', `/_tasks/${task.taskId}`);
    expect(res.status).toBe(200);
    expect(res.body.error).toEqual({ type: 'index_not_found_exception', reason: 'no such index [src]', index: 'src' });
    expect(res.body).not.toHaveProperty('response');
  });

  it('answers GET /_tasks/{id} errors in ES’s shape', async () => {
    expectError(await call('GET', '/_tasks/foo'), 400, 'illegal_argument_exception', 'malformed task id foo');
    expectError(await call('GET', `/_tasks/${NODE}:999`), 404, 'resource_not_found_exception', `task [${NODE}:999] isn't running and hasn't stored its results`);
    expectError(await call('GET', '/_tasks/other:1'), 404, 'resource_not_found_exception',
      "task [other:1] belongs to the node [other] which isn't part of the cluster and there is no record of the task");
    expectError(await call('GET', `/_tasks/${NODE}:1?verbose=true`), 400, 'illegal_argument_exception', `request [/_tasks/${NODE}:1] contains unrecognized parameter: [verbose]`);
    expectError(await call('GET', `/_tasks/${NODE}:1?wait_for_completion=maybe`), 400, 'illegal_argument_exception', 'Failed to parse value [maybe] as only [true] or [false] are allowed.');
    expectError(await call('GET', `/_tasks/${NODE}:1?wait_for_completion&timeout=5x`), 400, 'parse_exception',
      'failed to parse setting [timeout] with value [5x] as a time value: unit is missing or unrecognized');

    const hung = tasks.start(REINDEX, 'hung', untilAborted);
    // ES 8 answers a 500 here (ES 9 made it a 429).
    expectError(await call('GET', `/_tasks/${hung.taskId}?wait_for_completion=true&timeout=0ms`), 500, 'elasticsearch_timeout_exception', 'Timed out waiting for completion of task');
  });

  it('GET /_tasks lists running tasks by node, with the node described as _nodes/stats does', async () => {
    const task = tasks.start(REINDEX, 'listed', reindexLike);
    tasks.start('indices:data/write/delete/byquery', 'other', untilAborted);
    const res = await call('GET', '/_tasks?actions=*reindex');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['nodes']);
    const node = res.body.nodes[NODE];
    expect(node).toMatchObject({ name: hostname(), transport_address: '127.0.0.1:9300', host: '127.0.0.1', ip: '127.0.0.1:9300', roles: ['data', 'ingest', 'master'] });
    expect(Object.keys(node.tasks)).toEqual([task.taskId]);
    // Not detailed: ES leaves status and description out.
    expect(node.tasks[task.taskId]).not.toHaveProperty('status');
    expect(node.tasks[task.taskId]).not.toHaveProperty('description');

    const detailed = await call('GET', '/_tasks?actions=*reindex&detailed');
    expect(detailed.body.nodes[NODE].tasks[task.taskId]).toMatchObject({ description: 'listed', status: { total: 10 } });
    expect((await call('GET', '/_tasks?actions=nothing')).body).toEqual({ nodes: {} });
  });

  it('groups by parents or not at all, and refuses other groupings', async () => {
    const task = tasks.start(REINDEX, 'grouped', untilAborted);
    const parents = await call('GET', '/_tasks?group_by=parents&actions=*reindex');
    expect(Object.keys(parents.body.tasks)).toEqual([task.taskId]);
    const none = await call('GET', '/_tasks?group_by=none&actions=*reindex');
    expect(none.body.tasks.map((t: Json) => `${t.node}:${t.id}`)).toEqual([task.taskId]);
    expectError(await call('GET', '/_tasks?group_by=shards'), 400, 'illegal_argument_exception', '[group_by] must be one of [nodes], [parents] or [none] but was [shards]');
  });

  it('selects this node by id, name, address and role, and no other', async () => {
    const task = tasks.start(REINDEX, 'selected', untilAborted);
    for (const nodes of ['_all', '_local', NODE, 'node-*', hostname(), '127.0.0.1', 'data:true', 'other,_local']) {
      const res = await call('GET', `/_tasks?nodes=${encodeURIComponent(nodes)}&group_by=none`);
      expect(res.body.tasks.map((t: Json) => t.id), nodes).toContain(Number(task.taskId.split(':')[1]));
    }
    for (const nodes of ['other', '_local,master:false']) {
      expect((await call('GET', `/_tasks?nodes=${encodeURIComponent(nodes)}`)).body, nodes).toEqual({ nodes: {} });
    }
  });

  it("reads a role selector's value as Booleans.parseBoolean(value, true): blank adds, another word is refused", async () => {
    const task = tasks.start(REINDEX, 'role', untilAborted);
    const res = await call('GET', `/_tasks?nodes=${encodeURIComponent('master:false,data:')}&group_by=none`);
    expect(res.body.tasks.map((t: Json) => t.id)).toContain(Number(task.taskId.split(':')[1]));
    expectError(await call('GET', '/_tasks?nodes=data:yes'), 400, 'illegal_argument_exception', 'Failed to parse value [yes] as only [true] or [false] are allowed.');
  });

  it('filters by parent task id, refusing a malformed one', async () => {
    tasks.start(REINDEX, 'no parent', untilAborted);
    expect((await call('GET', `/_tasks?parent_task_id=${NODE}:1`)).body).toEqual({ nodes: {} });
    expectError(await call('GET', '/_tasks?parent_task_id=nope'), 400, 'illegal_argument_exception', 'malformed task id nope');
  });

  it('lists with wait_for_completion once tasks finish, a timeout being a node failure', async () => {
    const task = tasks.start(REINDEX, 'waited', untilAborted);
    const res = await call('GET', '/_tasks?wait_for_completion&timeout=0ms');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      node_failures: [{
        type: 'failed_node_exception', reason: `Failed node [${NODE}]`, node_id: NODE,
        caused_by: { type: 'elasticsearch_timeout_exception', reason: 'timed out after [0ms/0ms]' },
      }],
      nodes: {},
    });
    const listing = call('GET', '/_tasks?wait_for_completion&group_by=none&actions=*reindex');
    await tasks.cancel(task.taskId);
    expect((await listing).body.tasks.map((t: Json) => t.cancelled)).toEqual([true]);
  });

  it('adds readable times with ?human', async () => {
    const task = tasks.start(REINDEX, 'human', untilAborted);
    const { body } = await call('GET', `/_tasks/${task.taskId}?human`);
    const keys = Object.keys(body.task);
    expect(keys.indexOf('start_time')).toBe(keys.indexOf('start_time_in_millis') - 1);
    expect(keys.indexOf('running_time')).toBe(keys.indexOf('running_time_in_nanos') - 1);
    expect(body.task.start_time).toBe(new Date(body.task.start_time_in_millis).toISOString());
    expect(body.task.running_time).toMatch(/^[\d.]+(nanos|micros|ms|s|m|h|d)$/);
  });

  it('POST /_tasks/{id}/_cancel answers with the cancelled task, failures beside an empty list', async () => {
    const task = tasks.start(REINDEX, 'to cancel', reindexLike);
    const fixed = tasks.start('internal', 'fixed', untilAborted, { cancellable: false });
    const res = await call('POST', `/_tasks/${task.taskId}/_cancel`);
    expect(res.status).toBe(200);
    expect(res.body.nodes[NODE].tasks[task.taskId]).toMatchObject({ action: REINDEX, cancellable: true, cancelled: true });
    expect(task.signal.aborted).toBe(true);

    const failure = (reply: Reply) => {
      expect(reply.status).toBe(200);
      expect(reply.body.nodes).toEqual({});
      return reply.body.node_failures;
    };
    expect(failure(await call('POST', `/_tasks/${NODE}:999/_cancel`))).toEqual([{
      type: 'failed_node_exception', reason: `Failed node [${NODE}]`, node_id: NODE,
      caused_by: { type: 'resource_not_found_exception', reason: `task [${NODE}:999] is not found` },
    }]);
    expect(failure(await call('POST', `/_tasks/${fixed.taskId}/_cancel`))[0].caused_by).toEqual({
      type: 'illegal_argument_exception', reason: `task [${fixed.taskId}] doesn't support cancellation`,
    });
    expect(failure(await call('POST', '/_tasks/elsewhere:3/_cancel'))).toEqual([{
      type: 'failed_node_exception', reason: 'Failed node [elsewhere]', node_id: 'elsewhere',
      caused_by: { type: 'no_such_node_exception', reason: 'No such node [elsewhere]', node_id: 'elsewhere' },
    }]);
    expectError(await call('POST', '/_tasks/foo/_cancel'), 400, 'illegal_argument_exception', 'malformed task id foo');
    expectError(await call('POST', `/_tasks/${task.taskId}/_cancel?nodes=_local`), 400, 'action_request_validation_exception',
      'Validation Failed: 1: task id cannot be used together with node ids;');
    expectError(await call('POST', `/_tasks/${task.taskId}/_cancel?reason=x`), 400, 'illegal_argument_exception',
      `request [/_tasks/${task.taskId}/_cancel] contains unrecognized parameter: [reason]`);
  });

  it('POST /_tasks/_cancel cancels every cancellable task the filter selects', async () => {
    const a = tasks.start(REINDEX, 'a', reindexLike);
    const b = tasks.start('indices:data/write/update/byquery', 'b', reindexLike);
    const res = await call('POST', '/_tasks/_cancel?actions=*reindex&wait_for_completion=true&group_by=none');
    expect(res.status).toBe(200);
    expect(res.body.tasks.map((t: Json) => `${t.node}:${t.id}`)).toEqual([a.taskId]);
    expect([a.cancelled, b.cancelled]).toEqual([true, false]);
    expect((await call('POST', '/_tasks/_cancel?nodes=other')).body).toEqual({ nodes: {} });
  });
});

describe('tasks API through the official client', () => {
  let tasks: TaskManager;
  let server: ServerType;
  let client: Client;

  beforeAll(async () => {
    tasks = new TaskManager(NODE);
    const app = tasksApp(tasks);
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
      s.once('error', reject);
    });
    client = new Client({ node: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await client?.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await tasks?.close();
  });

  it('gets, lists and cancels a task', async () => {
    const task = tasks.start(REINDEX, 'reindex from [a] to [b]', reindexLike, { store: true });

    const got = await client.tasks.get({ task_id: task.taskId });
    expect(got.completed).toBe(false);
    expect(got.task.action).toBe(REINDEX);
    expect(got.task.status).toMatchObject({ total: 10, created: 3 });

    const listed = await client.tasks.list({ actions: '*reindex', detailed: true });
    expect(listed.nodes![NODE].tasks[task.taskId].description).toBe('reindex from [a] to [b]');

    const cancelled = await client.tasks.cancel({ task_id: task.taskId, wait_for_completion: true });
    expect(cancelled.nodes![NODE].tasks[task.taskId].cancelled).toBe(true);

    const done = await client.tasks.get({ task_id: task.taskId, wait_for_completion: true, timeout: '30s' });
    expect(done.completed).toBe(true);
    expect(done.response).toMatchObject({ created: 3 });
  });

  it('surfaces ES’s errors as ResponseError', async () => {
    const failure = await client.tasks.get({ task_id: `${NODE}:12345` }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(errors.ResponseError);
    const error = failure as errors.ResponseError;
    expect(error.statusCode).toBe(404);
    expect((error.body as Json).error.type).toBe('resource_not_found_exception');

    const unknown = await client.tasks.cancel({ task_id: `${NODE}:12345` });
    expect(unknown.node_failures?.[0].caused_by?.type).toBe('resource_not_found_exception');
  });
});
