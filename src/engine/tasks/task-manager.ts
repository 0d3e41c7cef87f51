/**
 * Work that outlives its request (`_reindex?wait_for_completion=false`), tracked as Elasticsearch's
 * task manager tracks it: each task gets the id `<node>:<n>` (n counts from 1 on this node), runs at
 * once, reports progress through a status object its runner updates, and can be cancelled through an
 * AbortSignal. `GET /_tasks/{id}` shows a running task; a finished one only if it was started with
 * `store: true`.
 *
 * ES writes those results as documents of the `.tasks` index, where they last until deleted; deeppage
 * keeps the {@link MAX_STORED_RESULTS} most recently finished ones, the oldest going first, and, given
 * {@link TaskRecords}, writes them to storage, so they outlive a restart. A stored task is written
 * when it starts too: one that was still running when the node stopped reads, after the restart, as
 * finished with an error saying so (ES keeps no record of it), since it does not resume.
 *
 * Snapshots ({@link TaskInfo}) carry ES's field names in ES's order, so the HTTP layer only groups and
 * decorates them; a finished task's error is kept as thrown, and rendered there.
 *
 * @example
 * const tasks = new TaskManager();
 * const task = tasks.start('indices:data/write/reindex', 'reindex from [a] to [b]', async (t) => {
 *   t.status = { total: 2, created: 0 };
 *   for (const doc of docs) {
 *     t.signal.throwIfAborted();
 *     await copy(doc);
 *     (t.status.created as number)++;
 *   }
 *   return { created: 2 };
 * }, { store: true });
 * tasks.get(task.taskId); // { completed: false, task: { node, id: 1, type: 'transport', ... } }
 */
import { badRequest, EsError, illegalArgument, toEsError, validationFailed, type ErrorCause } from '../errors.ts';
import { NODE_ID } from '../node.ts';
import { globPattern } from '../patterns.ts';
import { formatTimeValue } from '../time-value.ts';

/** Finished results kept for `GET /_tasks/{id}`; past this many the oldest is dropped. */
export const MAX_STORED_RESULTS = 1000;

/** What `wait_for_completion` waits by default when no `timeout` is given (ES's 30s). */
export const DEFAULT_WAIT_MS = 30_000;

/** ES's default reason for a cancellation through the API. */
export const USER_REQUEST = 'by user request';

/** One task as ES's `TaskInfo` prints it (`status` and `description` only in detailed snapshots). */
export interface TaskInfo {
  node: string;
  id: number;
  type: 'transport';
  action: string;
  status?: Record<string, unknown>;
  description?: string;
  start_time_in_millis: number;
  running_time_in_nanos: number;
  cancellable: boolean;
  /** Present only when `cancellable` (ES never prints it for other tasks). */
  cancelled?: boolean;
  headers: Record<string, string>;
}

/** `GET /_tasks/{id}`: a snapshot, and for a finished task that stored its result, what it returned or threw. */
export interface TaskResult {
  completed: boolean;
  task: TaskInfo;
  response?: unknown;
  error?: unknown;
}

/** Which tasks a list or a cancellation is about: any action matching a `*` pattern; all when empty. */
export interface TaskFilter {
  actions?: readonly string[];
  /** `<node>:<n>`; deeppage starts no child tasks, so a set parent matches none. */
  parentTaskId?: string;
}

/** The handle a runner gets, and `start` returns. */
export interface RunningTask<T = unknown> {
  readonly taskId: string;
  /** Aborted on cancel (and on close); its reason is ES's `task_cancelled_exception`. */
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
  /**
   * Progress, rendered as `task.status`. Once cancelled, snapshots add `canceled: <reason>`, as ES's
   * reindex status shows it; a runner that wants the key where ES prints it declares it there as
   * `canceled: undefined` (JSON leaves undefined out, and the key keeps its place).
   */
  status: Record<string, unknown> | undefined;
  /** What the runner returns, or its error; the manager has recorded the end by the time it settles. */
  readonly done: Promise<T>;
  /**
   * Settles once a stored task's record of its start is on disk (at once for a task not stored):
   * a task id handed to a client should outlive a crash, and then reads as interrupted.
   */
  readonly recorded: Promise<void>;
}

export interface StartOptions {
  /** Whether `_cancel` may stop it (default true). */
  cancellable?: boolean;
  /** Keep the result once finished, for `GET /_tasks/{id}` (default false). */
  store?: boolean;
}

/** Where stored tasks are written, so that they outlive a restart (the engine's store). */
export interface TaskRecords {
  /** Every task record kept, by local id. */
  load(): Iterable<[id: number, record: TaskRecord]>;
  save(id: number, record: TaskRecord): Promise<void>;
  remove(id: number): Promise<void>;
}

/** A stored task as written: its result, the error as ES renders one (with its causes) and its status. */
export type TaskRecord = Omit<TaskResult, 'error'> & { error?: ErrorCause & { status: number } };

/** What a task that was running when the node stopped says after the restart. */
const INTERRUPTED = new EsError(500, 'node_closed_exception', 'the node stopped while this task was running; tasks do not resume, and what it wrote before stays written');

/** A task id as ES's `TaskId` reads it. */
export interface TaskId {
  node: string;
  id: bigint;
}

/**
 * `<node>:<n>` as ES parses it: split at the first colon, n a Java long. `unset` and the empty string
 * are ES's "no task id" (as is n = -1), returned as undefined.
 */
export function parseTaskId(text: string): TaskId | undefined {
  if (text === '' || text === 'unset') return undefined;
  const colon = text.indexOf(':');
  const digits = colon < 0 ? '' : text.slice(colon + 1);
  const id = /^[+-]?\d+$/.test(digits) ? BigInt(digits) : undefined;
  if (id === undefined || id < -(2n ** 63n) || id >= 2n ** 63n) throw illegalArgument(`malformed task id ${text}`);
  return id === -1n ? undefined : { node: text.slice(0, colon), id };
}

interface Entry {
  id: number;
  action: string;
  description: string;
  cancellable: boolean;
  store: boolean;
  startMillis: number;
  startNanos: bigint;
  endNanos?: bigint;
  controller: AbortController;
  cancelReason?: string;
  handle: RunningTask;
  /** Resolves once the runner has settled, with what `GET` then shows. */
  settled: Promise<TaskResult>;
}

export class TaskManager {
  readonly #running = new Map<number, Entry>();
  /** Finished results with `store`, oldest first (a Map keeps insertion order). */
  readonly #stored = new Map<number, TaskResult>();
  #lastId = 0;
  #closed = false;
  /** Record writes not yet durable: close() waits for them. */
  readonly #saving = new Set<Promise<void>>();

  constructor(
    readonly nodeId: string = NODE_ID,
    private readonly records?: TaskRecords,
  ) {
    for (const [id, record] of records?.load() ?? []) {
      this.#lastId = Math.max(this.#lastId, id);
      const result: TaskResult = record.completed ? { ...record, error: record.error && revive(record.error) } : { ...record, completed: true, error: INTERRUPTED };
      this.#stored.set(id, result);
      if (!record.completed) this.#save(id, result);
    }
    this.#trim();
  }

  /** Starts `run` now (it runs synchronously up to its first await) and returns its handle. */
  start<T>(action: string, description: string, run: (task: RunningTask<T>) => Promise<T>, options: StartOptions = {}): RunningTask<T> {
    if (this.#closed) throw new Error('the task manager is closed');
    const id = ++this.#lastId;
    const controller = new AbortController();
    const handle = {
      taskId: `${this.nodeId}:${id}`,
      signal: controller.signal,
      get cancelled() {
        return entry.cancelReason !== undefined;
      },
      status: undefined,
    } as { -readonly [K in keyof RunningTask<T>]: RunningTask<T>[K] };
    const entry: Entry = {
      id,
      action,
      description,
      cancellable: options.cancellable ?? true,
      store: options.store ?? false,
      startMillis: Date.now(),
      startNanos: process.hrtime.bigint(),
      controller,
      handle,
      settled: undefined!, // set below, once the runner has started
    };
    this.#running.set(id, entry);
    handle.recorded = entry.store ? this.#save(id, { completed: false, task: this.#info(entry, true) }) : Promise.resolve();
    try {
      handle.done = Promise.resolve(run(handle));
    } catch (error) {
      handle.done = Promise.reject(error);
    }
    entry.settled = handle.done.then(
      (response) => this.#finish(entry, { response }),
      (error: unknown) => this.#finish(entry, { error }),
    );
    return handle;
  }

  /** `GET /_tasks/{id}`: the running task, else its stored result. */
  get(taskId: string): TaskResult {
    const { name, id } = this.#local(taskId);
    const entry = this.#running.get(id);
    if (entry) return { completed: false, task: this.#info(entry, true) };
    const stored = this.#stored.get(id);
    if (stored) return stored;
    throw new EsError(404, 'resource_not_found_exception', `task [${name}] isn't running and hasn't stored its results`);
  }

  /** `GET /_tasks/{id}?wait_for_completion`: the result once the task has finished, or ES's timeout error. */
  async wait(taskId: string, timeoutMs = DEFAULT_WAIT_MS): Promise<TaskResult> {
    const entry = this.#running.get(this.#local(taskId).id);
    if (!entry) return this.get(taskId);
    return within(entry.settled, timeoutMs, () => new EsError(500, 'elasticsearch_timeout_exception', 'Timed out waiting for completion of task'));
  }

  /** The running tasks the filter selects, oldest first. */
  list(filter: TaskFilter = {}, detailed = false): TaskInfo[] {
    return this.#select(filter).map((entry) => this.#info(entry, detailed));
  }

  /**
   * `GET /_tasks?wait_for_completion`: waits until every task the filter selects now has finished,
   * then lists them as they ended; ES's timeout error (a node failure in its answer) past `timeoutMs`.
   */
  async listCompleted(filter: TaskFilter = {}, detailed = false, timeoutMs = DEFAULT_WAIT_MS): Promise<TaskInfo[]> {
    const entries = this.#select(filter);
    await within(Promise.all(entries.map((e) => e.settled)), timeoutMs, () => timedOutAfter(timeoutMs));
    return entries.map((entry) => this.#info(entry, detailed));
  }

  /**
   * `POST /_tasks/{id}/_cancel`: aborts the task's signal and returns it as ES reports it (not
   * detailed), after it has finished when `waitForCompletion`. Cancelling twice is not an error.
   * The errors are ES's per-node failures: the route reports them beside the (empty) list.
   */
  async cancel(taskId: string, options: { reason?: string; waitForCompletion?: boolean; filter?: TaskFilter } = {}): Promise<TaskInfo> {
    const target = parseTaskId(taskId);
    if (!target) throw validationFailed(['task id is required']);
    if (target.node !== this.nodeId) throw new EsError(404, 'no_such_node_exception', `No such node [${target.node}]`, { node_id: target.node });
    const entry = this.#running.get(Number(target.id));
    const name = `${target.node}:${target.id}`;
    if (!entry) throw new EsError(404, 'resource_not_found_exception', `task [${name}] is not found`);
    if (!entry.cancellable) throw illegalArgument(`task [${name}] doesn't support cancellation`);
    if (!matches(entry, options.filter ?? {})) throw illegalArgument(`task [${name}] doesn't support this operation`);
    return this.#cancel(entry, options.reason ?? USER_REQUEST, options.waitForCompletion ?? false);
  }

  /** `POST /_tasks/_cancel`: every cancellable running task the filter selects. */
  async cancelMatching(filter: TaskFilter, options: { reason?: string; waitForCompletion?: boolean } = {}): Promise<TaskInfo[]> {
    const entries = this.#select(filter).filter((entry) => entry.cancellable);
    return Promise.all(entries.map((entry) => this.#cancel(entry, options.reason ?? USER_REQUEST, options.waitForCompletion ?? false)));
  }

  /** Aborts every running task and resolves once all have settled; no task starts afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#running.values()];
    for (const entry of entries) entry.controller.abort(cancelledError('node is closing'));
    await Promise.all(entries.map((entry) => entry.settled));
    await Promise.all([...this.#saving]);
  }

  async #cancel(entry: Entry, reason: string, waitForCompletion: boolean): Promise<TaskInfo> {
    if (entry.cancelReason === undefined) {
      entry.cancelReason = reason;
      entry.controller.abort(cancelledError(reason));
    }
    if (waitForCompletion) await entry.settled;
    return this.#info(entry, false);
  }

  #finish(entry: Entry, outcome: { response?: unknown; error?: unknown }): TaskResult {
    entry.endNanos = process.hrtime.bigint();
    this.#running.delete(entry.id);
    if (!entry.store) return { completed: true, task: this.#info(entry, true) };
    // ES stores the snapshot without `cancelled` (its .tasks mapping has no such field) and reads it
    // back as false, so a stored task never shows as cancelled; its status still says `canceled`.
    const task = this.#info(entry, true);
    if (task.cancellable) task.cancelled = false;
    const result: TaskResult = { completed: true, task, ...outcome };
    this.#stored.set(entry.id, result);
    this.#save(entry.id, result);
    this.#trim();
    return result;
  }

  /** Drops the oldest stored results past the cap, from storage too. */
  #trim(): void {
    while (this.#stored.size > MAX_STORED_RESULTS) {
      const oldest = this.#stored.keys().next().value!;
      this.#stored.delete(oldest);
      this.#track(this.records?.remove(oldest));
    }
  }

  /** Writes the record; settles (never rejects) once it is durable or has failed, which is logged. */
  #save(id: number, result: TaskResult): Promise<void> {
    if (!this.records) return Promise.resolve();
    const { error, ...rest } = result;
    const record: TaskRecord = { ...rest, ...(error !== undefined && { error: rendered(error) }) };
    return this.#track(this.records.save(id, JSON.parse(JSON.stringify(record)) as TaskRecord));
  }

  #track(write: Promise<void> | undefined): Promise<void> {
    if (!write) return Promise.resolve();
    const tracked = write.catch((e: unknown) => console.error('deeppage: writing a task record failed', e)).finally(() => this.#saving.delete(tracked));
    this.#saving.add(tracked);
    return tracked;
  }

  /** A task id of this node, as ES prints it and as a local number; else ES's error for `GET`. */
  #local(taskId: string): { name: string; id: number } {
    const target = parseTaskId(taskId);
    if (!target) throw validationFailed(['task id is required']);
    const name = `${target.node}:${target.id}`;
    if (target.node !== this.nodeId) {
      throw new EsError(404, 'resource_not_found_exception', `task [${name}] belongs to the node [${target.node}] which isn't part of the cluster and there is no record of the task`);
    }
    return { name, id: Number(target.id) };
  }

  #select(filter: TaskFilter): Entry[] {
    return [...this.#running.values()].filter((entry) => matches(entry, filter));
  }

  /** A snapshot, copied so that later updates by the runner do not change it. */
  #info(entry: Entry, detailed: boolean): TaskInfo {
    const end = entry.endNanos ?? process.hrtime.bigint();
    const status = entry.handle.status && (entry.cancelReason === undefined ? entry.handle.status : { ...entry.handle.status, canceled: entry.cancelReason });
    return {
      node: this.nodeId,
      id: entry.id,
      type: 'transport',
      action: entry.action,
      ...(detailed && status !== undefined && { status: structuredClone(status) }),
      ...(detailed && { description: entry.description }),
      start_time_in_millis: entry.startMillis,
      running_time_in_nanos: Number(end - entry.startNanos),
      cancellable: entry.cancellable,
      ...(entry.cancellable && { cancelled: entry.cancelReason !== undefined }),
      headers: {},
    };
  }
}

function matches(entry: Entry, { actions = [], parentTaskId }: TaskFilter): boolean {
  if (actions.length > 0 && !actions.some((pattern) => globPattern(pattern).test(entry.action))) return false;
  return parentTaskId === undefined || parseTaskId(parentTaskId) === undefined;
}

/** What a runner sees as `signal.reason` (and what `signal.throwIfAborted()` throws). */
function cancelledError(reason: string): EsError {
  return badRequest('task_cancelled_exception', `task cancelled [${reason}]`);
}

/** ES's timeout when waiting on a list of tasks (SubscribableListener.addTimeout). */
function timedOutAfter(ms: number): EsError {
  return new EsError(500, 'elasticsearch_timeout_exception', `timed out after [${formatTimeValue(ms)}/${ms}ms]`);
}

/** `promise`, or the error `onTimeout` makes if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, onTimeout: () => EsError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An error as a record keeps it: as ES renders it, and its status. */
function rendered(error: unknown): ErrorCause & { status: number } {
  const esError = toEsError(error);
  return { ...esError.describe(), status: esError.status };
}

function revive({ status, ...cause }: ErrorCause & { status: number }): EsError {
  return EsError.described(cause, status);
}
