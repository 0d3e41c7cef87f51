/**
 * `_reindex`: copies documents from source indices (of this node, or of a remote cluster) into a
 * destination, batch by batch, as Elasticsearch does. The source is read from a pinned snapshot
 * (local-source.ts) or a remote scroll (remote-source.ts), never by deep paging; each batch is one
 * engine write, acknowledged once durable, so what was copied stays whatever happens next. Slices
 * read disjoint sets of shards side by side. A cancelled reindex stops between batches and says so.
 */
import type { Engine } from '../engine.ts';
import { EsError, validationFailed } from '../errors.ts';
import type { RunningTask } from '../tasks/task-manager.ts';
import { formatTimeValue } from '../time-value.ts';
import { LocalSource } from './local-source.ts';
import type { ReindexRequest } from './reindex-request.ts';
import { checkRemoteAllowed, describeRemote, openRemoteSource, RemoteSearchFailures, type HitSource, type RemoteHitSource, type SourceHit } from './remote-source.ts';

/** The counters a reindex reports as it goes (the task's `status`) and when done. */
export interface ReindexStatus {
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
  retries: { bulk: number; search: number };
  throttled_millis: number;
  requests_per_second: number;
  throttled_until_millis: number;
  canceled?: string;
}

export interface ReindexResponse extends ReindexStatus {
  took: number;
  timed_out: boolean;
  failures: ({ status: number } & Record<string, unknown>)[];
}

/** The task description ES gives a reindex. */
export function describeReindex(request: ReindexRequest): string {
  const from = request.source.remote ? `[${describeRemote(request.source.remote, request.source.rawQuery)}]` : '';
  return `reindex from ${from}[${request.source.indices.join(', ')}] to [${request.dest.index}]`;
}

/** Checks what needs the node: the remote is allowed, and the destination is not one of the sources. */
export function checkReindex(engine: Engine, request: ReindexRequest): void {
  if (request.source.remote) {
    checkRemoteAllowed(request.source.remote, engine.settings.reindexRemoteWhitelist);
    return;
  }
  const sources = engine.resolve(request.source.indices.join(','));
  if (sources.some((index) => index.name === request.dest.index)) throw validationFailed([`reindex cannot write into an index its reading from [${request.dest.index}]`]);
}

/** Runs the reindex; `task` (when it runs as one) sees the counters move and may cancel it. */
export async function reindex(engine: Engine, request: ReindexRequest, task?: RunningTask<ReindexResponse>): Promise<ReindexResponse> {
  const started = performance.now();
  checkReindex(engine, request);
  const status: ReindexStatus = {
    total: 0,
    updated: 0,
    created: 0,
    deleted: 0,
    batches: 0,
    version_conflicts: 0,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: Number.isFinite(request.requestsPerSecond) ? request.requestsPerSecond : -1,
    throttled_until_millis: 0,
  };
  if (task) task.status = status as unknown as Record<string, unknown>;
  const run = new Run(engine, request, status, task?.signal);
  const sources = await openSources(engine, request, task?.signal);
  let failure: unknown;
  try {
    status.total = sources.reduce((n, source) => n + source.total, 0);
    if (request.maxDocs !== undefined) status.total = Math.min(status.total, request.maxDocs);
    await Promise.all(sources.map((source) => run.drain(source)));
  } catch (e) {
    failure = e;
  } finally {
    await Promise.allSettled(sources.map((source) => source.close()));
    status.retries.search = sources.reduce((n, source) => n + ((source as Partial<RemoteHitSource>).searchRetries ?? 0), 0);
  }
  if (failure instanceof RemoteSearchFailures) run.searchFailed(failure);
  else if (failure !== undefined) throw failure;
  if (task?.signal.aborted) status.canceled = 'by user request';
  if (request.refresh && engine.has(request.dest.index)) engine.refresh(request.dest.index);
  return { took: Math.round(performance.now() - started), timed_out: run.timedOut, ...status, failures: run.failures };
}

/** The HTTP status of a finished reindex: ES's highest of its failures' (408 for a time-out), else 200. */
export function reindexStatus(response: ReindexResponse): number {
  const statuses = response.failures.map((failure) => (failure as { status: number }).status);
  return Math.max(200, response.timed_out ? 408 : 200, ...statuses);
}

/** One source per slice: local slices read disjoint shards; a remote is one scroll. */
async function openSources(engine: Engine, request: ReindexRequest, signal?: AbortSignal): Promise<HitSource[]> {
  const { source, keepAliveMs } = request;
  if (source.remote) {
    const remote = await openRemoteSource(source.remote, { indices: source.indices, query: source.rawQuery, size: source.size, source: source.rawSource, scroll: formatTimeValue(keepAliveMs), signal });
    return [remote];
  }
  const indices = source.indices.join(',');
  const shards = Math.max(1, ...engine.resolve(indices).map((index) => index.shards.length));
  const slices = request.slices === 'auto' ? shards : request.slices;
  const opened: HitSource[] = [];
  try {
    for (let id = 0; id < slices; id++) {
      opened.push(LocalSource.open(engine, { indices, size: source.size, source: source.filter, keepAliveMs, ...(slices > 1 && { slice: { id, max: slices } }) }));
    }
  } catch (e) {
    await Promise.allSettled(opened.map((s) => s.close()));
    throw e;
  }
  return opened;
}

/** The state the slices share: counters, failures, documents left under `max_docs`, whether to stop. */
class Run {
  readonly failures: ReindexResponse['failures'] = [];
  timedOut = false;
  #left: number;
  #stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly request: ReindexRequest,
    private readonly status: ReindexStatus,
    private readonly signal?: AbortSignal,
  ) {
    this.#left = request.maxDocs ?? Infinity;
  }

  /**
   * Copies one source's batches until it ends, the run stops, or `max_docs` is reached. Unthrottled,
   * the next batch is read and applied while the previous one is still being flushed to disk (two
   * commits in flight, applied in order); throttled, one at a time.
   */
  async drain(source: HitSource): Promise<void> {
    const throttled = Number.isFinite(this.request.requestsPerSecond);
    const inFlight: Promise<void>[] = [];
    try {
      while (!this.#stopped && !this.signal?.aborted && this.#left > 0) {
        const began = performance.now();
        let batch = await source.next();
        if (this.#stopped || this.signal?.aborted) break;
        if (batch.length > this.#left) batch = batch.slice(0, this.#left);
        if (batch.length === 0) break;
        this.#left -= batch.length;
        inFlight.push(this.#write(batch));
        if (throttled || inFlight.length > 1) await inFlight.shift();
        if (throttled) await this.#throttle(batch.length, performance.now() - began);
      }
    } finally {
      await Promise.all(inFlight);
    }
  }

  /** A remote search failed: ES stops there and reports the failures with their status. */
  searchFailed(failure: RemoteSearchFailures): void {
    this.timedOut ||= failure.timedOut;
    for (const f of failure.failures) {
      this.failures.push({
        ...(f.index !== null && { index: f.index }),
        ...(f.shard !== null && { shard: f.shard }),
        ...(f.node !== null && { node: f.node }),
        status: f.reason.status,
        reason: { type: f.reason.type, reason: f.reason.reason },
      });
    }
  }

  async #write(batch: SourceHit[]): Promise<void> {
    const { dest, conflicts } = this.request;
    const items = await this.engine.write(
      batch.map((hit) => {
        const routing = dest.routing.kind === 'keep' ? hit.routing : dest.routing.kind === 'value' ? dest.routing.value : undefined;
        return { action: dest.opType, index: dest.index, id: hit.id, source: hit.source, ...(routing !== undefined && { routing }) };
      }),
    );
    this.status.batches++;
    items.forEach((item, i) => {
      if (!(item instanceof EsError)) {
        if (item.result === 'created') this.status.created++;
        else if (item.result === 'updated') this.status.updated++;
        else if (item.result === 'noop') this.status.noops++;
        return;
      }
      const conflict = item.type === 'version_conflict_engine_exception';
      if (conflict) this.status.version_conflicts++;
      if (conflict && conflicts === 'proceed') return;
      // Anything else stops the reindex; what was written stays written.
      this.#stopped = true;
      this.failures.push({ index: dest.index, id: batch[i].id, cause: { type: item.type, reason: item.reason, ...item.fields }, status: item.status });
    });
  }

  /** Holds the next batch back so that documents go at `requests_per_second` (ES's per-batch delay). */
  async #throttle(documents: number, spentMs: number): Promise<void> {
    const rps = this.request.requestsPerSecond;
    if (!Number.isFinite(rps)) return;
    const delay = Math.max(0, (documents / rps) * 1000 - spentMs);
    if (delay === 0) return;
    this.status.throttled_until_millis = Math.round(delay);
    await abortableDelay(delay, this.signal);
    this.status.throttled_millis += Math.round(delay);
    this.status.throttled_until_millis = 0;
  }
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
