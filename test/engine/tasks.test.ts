/**
 * The task manager: ids, status snapshots, stored results and their cap, cancellation, ES's errors,
 * and close. Runners are held open by gates the test releases, so nothing depends on timing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import { MAX_STORED_RESULTS, parseTaskId, TaskManager, type RunningTask } from '../../src/engine/tasks/task-manager.ts';

const REINDEX = 'indices:data/write/reindex';

/** A promise the test settles by hand. */
function gate<T = void>() {
  let open!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** A runner that waits for its gate or its signal, whichever comes first. */
function untilAborted(task: RunningTask, until: Promise<unknown> = new Promise(() => {})): Promise<string> {
  return new Promise((resolve, reject) => {
    task.signal.addEventListener('abort', () => reject(task.signal.reason));
    until.then(() => resolve('finished'), reject);
  });
}

/** The EsError `run` throws (sync or async). */
async function esError(run: () => unknown): Promise<EsError> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    return e as EsError;
  }
  throw new Error('expected an EsError');
}

let tasks: TaskManager;
afterEach(async () => {
  await tasks?.close();
});

describe('TaskManager', () => {
  it('numbers tasks from 1 on its node and runs each at once', () => {
    tasks = new TaskManager('n1');
    const first = tasks.start(REINDEX, 'one', async (t) => {
      t.status = { total: 3 };
      await untilAborted(t);
    });
    const second = tasks.start('other', 'two', async () => {});
    expect([first.taskId, second.taskId]).toEqual(['n1:1', 'n1:2']);
    // The runner ran up to its first await before start returned.
    expect(tasks.get('n1:1').task.status).toEqual({ total: 3 });
  });

  it('shows a running task in ES’s TaskInfo shape, with the status as the runner last set it', () => {
    tasks = new TaskManager('n1');
    const task = tasks.start(REINDEX, 'reindex from [a] to [b]', async (t) => untilAborted(t));
    task.status = { total: 10, created: 0, retries: { bulk: 0, search: 0 } };
    const before = tasks.get(task.taskId);
    (task.status.retries as { bulk: number }).bulk = 1;
    task.status.created = 4;

    expect(before.completed).toBe(false);
    expect(Object.keys(before.task)).toEqual([
      'node', 'id', 'type', 'action', 'status', 'description', 'start_time_in_millis', 'running_time_in_nanos', 'cancellable', 'cancelled', 'headers',
    ]);
    expect(before.task).toMatchObject({ node: 'n1', id: 1, type: 'transport', action: REINDEX, description: 'reindex from [a] to [b]', cancellable: true, cancelled: false, headers: {} });
    // A snapshot is a copy: the runner's later updates show in the next one only.
    expect(before.task.status).toEqual({ total: 10, created: 0, retries: { bulk: 0, search: 0 } });
    expect(tasks.get(task.taskId).task.status).toEqual({ total: 10, created: 4, retries: { bulk: 1, search: 0 } });
    expect(before.task.running_time_in_nanos).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(before.task.start_time_in_millis)).toBe(true);
  });

  it('leaves status out until the runner sets one, and cancelled out of tasks that cannot be cancelled', () => {
    tasks = new TaskManager('n1');
    const task = tasks.start('internal', 'quiet', async (t) => untilAborted(t), { cancellable: false });
    const { task: info } = tasks.get(task.taskId);
    expect(info).not.toHaveProperty('status');
    expect(info).not.toHaveProperty('cancelled');
    expect(info.cancellable).toBe(false);
  });

  it('forgets a finished task unless it was started with store', async () => {
    tasks = new TaskManager('n1');
    const plain = tasks.start(REINDEX, 'plain', async () => ({ created: 1 }));
    const stored = tasks.start(REINDEX, 'stored', async (t) => {
      t.status = { created: 2 };
      return { created: 2 };
    }, { store: true });
    await Promise.all([plain.done, stored.done]);

    const gone = await esError(() => tasks.get(plain.taskId));
    expect([gone.status, gone.type, gone.reason]).toEqual([404, 'resource_not_found_exception', "task [n1:1] isn't running and hasn't stored its results"]);
    const result = tasks.get(stored.taskId);
    expect(result).toMatchObject({ completed: true, response: { created: 2 }, task: { id: 2, status: { created: 2 }, description: 'stored' } });
    expect(result).not.toHaveProperty('error');
  });

  it('stores a failure as thrown, for the HTTP layer to render', async () => {
    tasks = new TaskManager('n1');
    const failure = new EsError(400, 'illegal_argument_exception', 'no');
    const task = tasks.start(REINDEX, 'fails', async () => {
      throw failure;
    }, { store: true });
    await expect(task.done).rejects.toBe(failure);
    const result = await tasks.wait(task.taskId);
    expect(result.completed).toBe(true);
    expect(result.error).toBe(failure);
    expect(result).not.toHaveProperty('response');
  });

  it('keeps the most recent finished results only', async () => {
    tasks = new TaskManager('n1');
    const started = Array.from({ length: MAX_STORED_RESULTS + 1 }, (_, i) => tasks.start('x', `task ${i}`, async () => i, { store: true }));
    await Promise.all(started.map((t) => tasks.wait(t.taskId)));
    await expect(esError(() => tasks.get('n1:1'))).resolves.toMatchObject({ status: 404 });
    expect(tasks.get('n1:2').response).toBe(1);
    expect(tasks.get(`n1:${MAX_STORED_RESULTS + 1}`).response).toBe(MAX_STORED_RESULTS);
  });

  it('refuses ids that cannot name a task here, in ES’s words', async () => {
    tasks = new TaskManager('n1');
    for (const id of ['foo', 'n1:', 'n1:x', 'n1:1:2', 'n1:99999999999999999999']) {
      const e = await esError(() => tasks.get(id));
      expect([e.status, e.type, e.reason]).toEqual([400, 'illegal_argument_exception', `malformed task id ${id}`]);
    }
    const unset = await esError(() => tasks.get('unset'));
    expect([unset.status, unset.type, unset.reason]).toEqual([400, 'action_request_validation_exception', 'Validation Failed: 1: task id is required;']);
    const elsewhere = await esError(() => tasks.get('x:1'));
    expect([elsewhere.status, elsewhere.type, elsewhere.reason]).toEqual([
      404, 'resource_not_found_exception', "task [x:1] belongs to the node [x] which isn't part of the cluster and there is no record of the task",
    ]);
    // ES prints the id as it parsed it (a Java long).
    expect((await esError(() => tasks.get('n1:+07'))).reason).toBe("task [n1:7] isn't running and hasn't stored its results");
  });

  it('parses task ids as ES’s TaskId does', () => {
    expect(parseTaskId('abc:12')).toEqual({ node: 'abc', id: 12n });
    expect(parseTaskId(':3')).toEqual({ node: '', id: 3n });
    expect(parseTaskId('')).toBeUndefined();
    expect(parseTaskId('unset')).toBeUndefined();
    expect(parseTaskId('abc:-1')).toBeUndefined();
  });

  it('cancels: aborts the signal with ES’s cancellation error, marks the task and its status', async () => {
    tasks = new TaskManager('n1');
    const task = tasks.start(REINDEX, 'long', async (t) => {
      t.status = { total: 5, created: 1, requests_per_second: -1, canceled: undefined, throttled_until_millis: 0 };
      return untilAborted(t);
    }, { store: true });
    const info = await tasks.cancel(task.taskId);

    expect(task.cancelled).toBe(true);
    expect(task.signal.aborted).toBe(true);
    expect(task.signal.reason).toMatchObject({ status: 400, type: 'task_cancelled_exception', reason: 'task cancelled [by user request]' });
    // The cancel answer is not detailed, as in ES.
    expect(info).toMatchObject({ id: 1, cancellable: true, cancelled: true });
    expect(info).not.toHaveProperty('status');
    expect(info).not.toHaveProperty('description');

    const result = await tasks.wait(task.taskId);
    expect(result.error).toBe(task.signal.reason);
    // `canceled` sits where the runner declared it; ES reads a stored task back with cancelled false.
    expect(Object.keys(result.task.status!)).toEqual(['total', 'created', 'requests_per_second', 'canceled', 'throttled_until_millis']);
    expect(result.task.status!.canceled).toBe('by user request');
    expect(result.task.cancelled).toBe(false);
  });

  it('cancels a task again without complaint, and waits for it when asked', async () => {
    tasks = new TaskManager('n1');
    const release = gate();
    const task = tasks.start(REINDEX, 'slow to stop', async (t) => {
      await untilAborted(t).catch(() => release.promise);
      return 'stopped';
    });
    await tasks.cancel(task.taskId);
    let answered = false;
    const waiting = tasks.cancel(task.taskId, { waitForCompletion: true }).then((info) => {
      answered = true;
      return info;
    });
    await Promise.resolve();
    expect(answered).toBe(false);
    release.open();
    expect(await waiting).toMatchObject({ cancelled: true });
    await expect(task.done).resolves.toBe('stopped');
  });

  it('refuses to cancel what it cannot, with the failures ES reports per node', async () => {
    tasks = new TaskManager('n1');
    const fixed = tasks.start('internal', 'fixed', async (t) => untilAborted(t), { cancellable: false });
    const other = tasks.start(REINDEX, 'other', async (t) => untilAborted(t));
    const cases: [string, Parameters<TaskManager['cancel']>[1], number, string, string][] = [
      [fixed.taskId, {}, 400, 'illegal_argument_exception', 'task [n1:1] doesn\'t support cancellation'],
      ['n1:9', {}, 404, 'resource_not_found_exception', 'task [n1:9] is not found'],
      ['x:1', {}, 404, 'no_such_node_exception', 'No such node [x]'],
      [other.taskId, { filter: { actions: ['*search'] } }, 400, 'illegal_argument_exception', 'task [n1:2] doesn\'t support this operation'],
    ];
    for (const [id, options, status, type, reason] of cases) {
      const e = await esError(() => tasks.cancel(id, options));
      expect([e.status, e.type, e.reason]).toEqual([status, type, reason]);
    }
    expect(other.cancelled).toBe(false);
  });

  it('cancels every cancellable task a filter selects', async () => {
    tasks = new TaskManager('n1');
    const a = tasks.start(REINDEX, 'a', async (t) => untilAborted(t).catch(() => 'a'));
    const b = tasks.start('indices:data/write/update/byquery', 'b', async (t) => untilAborted(t).catch(() => 'b'));
    const c = tasks.start('indices:data/write/reindex', 'c', async (t) => untilAborted(t), { cancellable: false });
    const cancelled = await tasks.cancelMatching({ actions: ['*reindex'] });
    expect(cancelled.map((info) => info.id)).toEqual([1]);
    expect([a.cancelled, b.cancelled, c.cancelled]).toEqual([true, false, false]);
  });

  it('lists running tasks by action pattern, detailed on request', async () => {
    tasks = new TaskManager('n1');
    tasks.start(REINDEX, 'r', async (t) => untilAborted(t));
    tasks.start('indices:data/write/delete/byquery', 'd', async (t) => untilAborted(t));
    await tasks.start(REINDEX, 'done', async () => 1).done;

    expect(tasks.list().map((i) => i.id)).toEqual([1, 2]);
    expect(tasks.list({ actions: ['*reindex'] }).map((i) => i.id)).toEqual([1]);
    expect(tasks.list({ actions: ['nothing', 'indices:*/delete/*'] }).map((i) => i.id)).toEqual([2]);
    expect(tasks.list()[0]).not.toHaveProperty('description');
    expect(tasks.list({}, true)[0].description).toBe('r');
    // No task here has a parent.
    expect(tasks.list({ parentTaskId: 'n1:1' })).toEqual([]);
    expect(tasks.list({ parentTaskId: 'unset' })).toHaveLength(2);
  });

  it('waits for a task to finish, or times out as ES does', async () => {
    tasks = new TaskManager('n1');
    const release = gate<string>();
    const task = tasks.start(REINDEX, 'w', async () => release.promise);
    const hung = tasks.start(REINDEX, 'h', async (t) => untilAborted(t));

    const waiting = tasks.wait(task.taskId, 60_000);
    release.open('ok');
    // Not stored: ES answers with the snapshot taken when it finished, without the response.
    const result = await waiting;
    expect(result.completed).toBe(true);
    expect(result).not.toHaveProperty('response');

    const e = await esError(() => tasks.wait(hung.taskId, 0));
    expect([e.status, e.type, e.reason]).toEqual([500, 'elasticsearch_timeout_exception', 'Timed out waiting for completion of task']);
  });

  it('lists tasks once they have all finished, or times out as ES does', async () => {
    tasks = new TaskManager('n1');
    const release = gate();
    tasks.start(REINDEX, 'a', async () => release.promise);
    const listing = tasks.listCompleted({ actions: [REINDEX] }, true, 60_000);
    release.open();
    expect((await listing).map((i) => [i.id, i.description])).toEqual([[1, 'a']]);

    tasks.start(REINDEX, 'b', async (t) => untilAborted(t));
    const e = await esError(() => tasks.listCompleted({}, false, 10));
    expect([e.type, e.reason]).toEqual(['elasticsearch_timeout_exception', 'timed out after [10ms/10ms]']);
  });

  it('close aborts every running task and waits for them to settle', async () => {
    tasks = new TaskManager('n1');
    const settled: string[] = [];
    const a = tasks.start(REINDEX, 'a', async (t) => untilAborted(t).catch(() => settled.push('a')));
    tasks.start('internal', 'b', async (t) => untilAborted(t).catch(() => settled.push('b')), { cancellable: false });
    await tasks.close();
    expect(settled.sort()).toEqual(['a', 'b']);
    expect(a.signal.aborted).toBe(true);
    expect(() => tasks.start(REINDEX, 'late', async () => 1)).toThrow();
  });
});

describe('records of stored tasks', () => {
  it('a stored task is recorded once its record is durable; one not stored at once', async () => {
    const written = gate();
    const saves: unknown[] = [];
    const records = { load: () => [], save: async (_id: number, record: unknown) => { saves.push(record); await written.promise; }, remove: async () => {} };
    const tasks = new TaskManager('node', records);
    const stored = tasks.start(REINDEX, 'stored', (task) => untilAborted(task), { store: true });
    let recorded = false;
    void stored.recorded.then(() => (recorded = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(saves).toHaveLength(1);
    expect(recorded).toBe(false);
    written.open();
    await stored.recorded;
    const plain = tasks.start(REINDEX, 'plain', (task) => untilAborted(task));
    await plain.recorded;
    expect(saves).toHaveLength(1);
    await tasks.cancel(stored.taskId).catch(() => {});
    await tasks.cancel(plain.taskId).catch(() => {});
  });

  it("a stored failure comes back after a restart as it was thrown: its fields and its causes, as ES renders them", async () => {
    const kept = new Map<number, unknown>();
    const records = { load: () => kept.entries() as Iterable<[number, never]>, save: async (id: number, record: unknown) => void kept.set(id, JSON.parse(JSON.stringify(record))), remove: async () => {} };
    const failure = new EsError(409, 'version_conflict_engine_exception', '[1]: version conflict', { index: 'books', shard: '0' }, new EsError(409, 'cause_exception', 'under it'));
    tasks = new TaskManager('n1', records);
    const task = tasks.start(REINDEX, 'fails', async () => {
      throw failure;
    }, { store: true });
    await expect(task.done).rejects.toBe(failure);
    await task.recorded;
    await tasks.close();
    tasks = new TaskManager('n1', records);
    const result = await tasks.wait(task.taskId);
    expect(result.error).toBeInstanceOf(EsError);
    const error = result.error as EsError;
    expect(error.status).toBe(409);
    expect(error.describe()).toEqual(failure.describe());
  });
});
