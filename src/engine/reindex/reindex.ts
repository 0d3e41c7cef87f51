/**
 * `_reindex`: copies documents from source indices (of this node, or of a remote cluster) into a
 * destination, batch by batch, as Elasticsearch does. The source is read from a pinned snapshot
 * (local-source.ts) or a remote scroll (remote-source.ts), never by deep paging; each batch is one
 * engine write, acknowledged once durable, so what was copied stays whatever happens next. Slices
 * read disjoint sets of shards side by side. A cancelled reindex stops between batches and says so.
 */
import type { Engine } from '../engine.ts';
import { EsError, validationFailed } from '../errors.ts';
import { USER_REQUEST, type RunningTask } from '../tasks/task-manager.ts';
import { formatTimeValue } from '../time-value.ts';
import type { HitSource, SourceHit } from './hit-source.ts';
import { LocalSource } from './local-source.ts';
import type { ReindexRequest } from './reindex-request.ts';
import { checkRemoteAllowed, describeRemote } from './remote-info.ts';
import { openRemoteSource, RemoteSearchFailures, type RemoteHitSource } from './remote-source.ts';

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
  /** Each slice's counters, when there are several. */
  slices?: ReindexStatus[];
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
  // The destination may be an alias: what counts is the index its writes go to.
  const destIndex = engine.writeIndexOf(request.dest.index)?.name ?? request.dest.index;
  if (sources.some((index) => index.name === destIndex)) throw validationFailed([`reindex cannot write into an index its reading from [${destIndex}]`]);
}

/** Runs the reindex; `task` (when it runs as one) sees the counters move and may cancel it. */
export async function reindex(engine: Engine, request: ReindexRequest, task?: RunningTask<ReindexResponse>): Promise<ReindexResponse> {
  const started = performance.now();
  checkReindex(engine, request);
  const sources = await openSources(engine, request, task?.signal);
  const rps = Number.isFinite(request.requestsPerSecond) ? request.requestsPerSecond : -1;
  // ES splits max_docs and the rate between slices, the first slices taking the remainder.
  const share = (whole: number, slice: number) => Math.floor(whole / sources.length) + (slice < whole % sources.length ? 1 : 0);
  const slices = sources.map((source, id) => {
    const maxDocs = request.maxDocs === undefined ? Infinity : share(request.maxDocs, id);
    const status = emptyStatus(Math.min(source.total, maxDocs), rps === -1 ? -1 : rps / sources.length);
    return { source, maxDocs, status: sources.length > 1 ? { slice_id: id, ...status } : status };
  });
  const run = new Run(engine, request, sources.length, task?.signal);
  const showSlices = () => (slices.length > 1 ? { ...sum(rps, slices.map((slice) => slice.status)), slices: slices.map((slice) => slice.status) } : slices[0].status);
  if (task) Object.defineProperty(task, 'status', { get: showSlices, configurable: true });
  let failure: unknown;
  try {
    // Every slice ends (a failing one stops the others at their next batch) before the answer.
    const ended = await Promise.allSettled(slices.map((slice) => run.drain(slice.source, slice.status, slice.maxDocs)));
    failure = ended.find((result) => result.status === 'rejected')?.reason;
  } finally {
    await Promise.allSettled(sources.map((source) => source.close()));
    slices.forEach(({ source, status: counts }) => (counts.retries.search = (source as Partial<RemoteHitSource>).searchRetries ?? 0));
  }
  if (failure instanceof RemoteSearchFailures) run.searchFailed(failure);
  // A cancel (or shutdown) may fail a read in flight: that is the stop, reported as canceled below.
  else if (failure !== undefined && !task?.signal.aborted) throw failure;
  // A user's cancel says so as ES does; otherwise the node is shutting down.
  if (task?.signal.aborted) for (const slice of slices) slice.status.canceled = task.cancelled ? USER_REQUEST : 'node is closing';
  const dest = request.refresh ? engine.writeIndexOf(request.dest.index) : undefined;
  if (dest) await engine.refreshInPasses(dest.name);
  const { slices: sliceStatuses, ...totals } = showSlices() as ReindexStatus & { slices?: ReindexStatus[] };
  return { took: Math.round(performance.now() - started), timed_out: run.timedOut, ...totals, ...(sliceStatuses && { slices: sliceStatuses }), failures: run.failures };
}

function emptyStatus(total: number, requestsPerSecond: number): ReindexStatus {
  return {
    total,
    updated: 0,
    created: 0,
    deleted: 0,
    batches: 0,
    version_conflicts: 0,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: requestsPerSecond,
    throttled_until_millis: 0,
  };
}

/** The whole run's counters: the slices' added up (the rate is the one asked for; a wait is the longest). */
function sum(requestsPerSecond: number, slices: readonly ReindexStatus[]): ReindexStatus {
  const out = emptyStatus(0, requestsPerSecond);
  for (const slice of slices) {
    for (const key of ['total', 'updated', 'created', 'deleted', 'batches', 'version_conflicts', 'noops', 'throttled_millis'] as const) out[key] += slice[key];
    out.retries.bulk += slice.retries.bulk;
    out.retries.search += slice.retries.search;
    out.throttled_until_millis = Math.max(out.throttled_until_millis, slice.throttled_until_millis);
    if (slice.canceled) out.canceled = slice.canceled;
  }
  return out;
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
      opened.push(LocalSource.open(engine, { indices, size: source.size, source: source.filter, query: source.query, keepAliveMs, ...(slices > 1 && { slice: { id, max: slices } }) }));
    }
  } catch (e) {
    await Promise.allSettled(opened.map((s) => s.close()));
    throw e;
  }
  return opened;
}

/**
 * Batches of one slice whose flush to disk may be under way while the next is read and applied: a
 * flush is a sync of a few milliseconds, and with two a reindex still waited on them 7% of its time.
 */
const FLUSHES_IN_FLIGHT = 4;

/** What the slices share: the failures, and whether to stop. Each slice counts into its own status. */
class Run {
  readonly failures: ReindexResponse['failures'] = [];
  timedOut = false;
  #stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly request: ReindexRequest,
    /** How many slices share the rate. */
    private readonly slices: number,
    private readonly signal?: AbortSignal,
  ) {}

  /**
   * Copies one source's batches into `counts` until the source ends, the run stops, or `maxDocs`
   * documents are written (with `conflicts: proceed`, conflicts do not count, as in ES). A batch's
   * outcome is known once it is applied, before it is flushed to disk, so the next batch is read and
   * applied while the ones before flush (unthrottled: up to {@link FLUSHES_IN_FLIGHT} commits in flight); a batch with a
   * failure stops the slice before the next one is read, as in ES.
   */
  async drain(source: HitSource, counts: ReindexStatus, maxDocs: number): Promise<void> {
    const throttled = Number.isFinite(this.request.requestsPerSecond);
    let left = maxDocs;
    /** Hits read past `left` when conflicts may not count: written next (a conflict leaves room for more). */
    let unread: SourceHit[] = [];
    /** The next batch, read before a throttling wait with the wait added to the source's keep-alive (as ES does). */
    let ahead: Promise<SourceHit[]> | undefined;
    const flushing: Promise<void>[] = [];
    try {
      while (!this.#stopped && !this.signal?.aborted && left > 0) {
        const began = performance.now();
        let batch = unread.length > 0 ? unread : await (ahead ?? source.next());
        ahead = undefined;
        if (this.#stopped || this.signal?.aborted) break;
        unread = batch.slice(left);
        if (batch.length > left) batch = batch.slice(0, left);
        if (batch.length === 0) break;
        const { written, committed } = await this.#write(batch, counts);
        left -= this.request.conflicts === 'proceed' ? written : batch.length;
        // A failed flush stops the slice; it is thrown where it is awaited below.
        committed.catch(() => (this.#stopped = true));
        flushing.push(committed);
        if (throttled || flushing.length >= FLUSHES_IN_FLIGHT) await flushing.shift();
        if (!throttled) continue;
        const delay = this.#delay(batch.length, performance.now() - began);
        if (delay > 0 && left > 0 && unread.length === 0 && !this.#stopped) {
          ahead = source.next(delay);
          ahead.catch(() => {});
        }
        await this.#throttle(delay, counts);
      }
    } catch (e) {
      this.#stopped = true;
      throw e;
    } finally {
      await Promise.all(flushing);
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

  /** Applies the batch and starts its commit; how many documents it wrote (conflicts and failures aside). */
  async #write(batch: SourceHit[], counts: ReindexStatus): Promise<{ written: number; committed: Promise<void> }> {
    const { dest, conflicts } = this.request;
    const { items, committed } = await this.engine.commitWrites(
      batch.map((hit) => {
        const routing = dest.routing.kind === 'keep' ? hit.routing : dest.routing.kind === 'value' ? dest.routing.value : undefined;
        return { action: dest.opType, index: dest.index, id: hit.id, source: hit.source, sent: hit.text, routing };
      }),
    );
    counts.batches++;
    let written = 0;
    items.forEach((item, i) => {
      if (!(item instanceof EsError)) {
        written++;
        if (item.result === 'created') counts.created++;
        else if (item.result === 'updated') counts.updated++;
        else if (item.result === 'noop') counts.noops++;
        return;
      }
      const conflict = item.type === 'version_conflict_engine_exception';
      if (conflict) counts.version_conflicts++;
      if (conflict && conflicts === 'proceed') return;
      // Anything else stops the reindex; what was written stays written.
      this.#stopped = true;
      this.failures.push({ index: dest.index, id: batch[i].id, cause: item.describe(), status: item.status });
    });
    return { written, committed };
  }

  /** How long to hold the next batch back so that documents go at the slice's rate (ES's per-batch delay). */
  #delay(documents: number, spentMs: number): number {
    const rps = this.request.requestsPerSecond / this.slices;
    return Math.max(0, (documents / rps) * 1000 - spentMs);
  }

  async #throttle(delay: number, counts: ReindexStatus): Promise<void> {
    if (delay === 0) return;
    counts.throttled_until_millis = Math.round(delay);
    await abortableDelay(delay, this.signal);
    counts.throttled_millis += Math.round(delay);
    counts.throttled_until_millis = 0;
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
