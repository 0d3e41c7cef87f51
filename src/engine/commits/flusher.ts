/**
 * Flushes: a shard's writes become a durable commit point (its segments written in the segment
 * format, the deletes log trimmed), so a restart loads segments instead of replaying documents.
 * `POST /_flush` asks for one; in the background, as Elasticsearch flushes when its translog grows
 * or a shard goes idle, a shard is flushed once it has {@link FlushPolicy.ops} writes since its last
 * commit, or some writes and none for {@link FlushPolicy.idleMs}; and everything is flushed on shutdown.
 *
 * Flushes of one shard run one after the other, so each commit point drops exactly the segments the
 * one before it stored. A flush refreshes the shard first (a commit point holds sealed segments
 * only), so the background leaves indices with `refresh_interval: -1` alone until shutdown.
 */
import type { DocStore } from '../../store/doc-store.ts';
import type { SearchIndex } from '../search-index.ts';
import { encodeSegment } from '../segments/format.ts';
import type { Segment } from '../segments/segment.ts';
import type { Shard } from '../shard.ts';
import { commitRecord } from './commit-record.ts';

/** When the background flushes a shard. */
export interface FlushPolicy {
  /** Writes since the last commit point that make a shard worth flushing (bounds what a restart replays). */
  ops: number;
  /** A shard with writes not committed and no new ones for this long is flushed, in ms. */
  idleMs: number;
  /** How often shards are looked at, in ms. */
  checkMs: number;
}

export const DEFAULT_FLUSH_POLICY: FlushPolicy = { ops: 20_000, idleMs: 30_000, checkMs: 5_000 };

export interface FlushOptions {
  /** Also shards with no write since their last commit point (ES's `force`); default true. */
  force?: boolean;
  /** Wait for a flush already running on a shard, then flush again (ES's `wait_if_ongoing`); else skip that shard. Default true. */
  waitIfOngoing?: boolean;
}

export class Flusher {
  /** Per shard, the last flush asked for (the next one waits for it). */
  readonly #running = new WeakMap<Shard, Promise<void>>();
  /** Shards with a flush queued or in progress: the background check leaves them alone. */
  readonly #busy = new WeakSet<Shard>();
  /** Per shard, its uncommitted count at the last check and since when it has not changed. */
  readonly #seen = new WeakMap<Shard, { ops: number; since: number }>();
  readonly #timer: NodeJS.Timeout;
  /** The last segment encoding queued: the next one waits for it (see {@link #encode}). */
  #encoding: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: DocStore,
    private readonly indices: () => Iterable<SearchIndex>,
    /** Told of each flush's promise, so that whoever waits for storage waits for it too. */
    private readonly track: (done: Promise<void>) => void,
    private readonly policy: FlushPolicy = DEFAULT_FLUSH_POLICY,
  ) {
    this.#timer = setInterval(() => this.#check(), policy.checkMs);
    this.#timer.unref();
  }

  /** Refreshes and commits the index's shards (those given, else all); resolves when durable. */
  flush(index: SearchIndex, shards: Iterable<Shard> = index.shards, { force = true, waitIfOngoing = true }: FlushOptions = {}): Promise<void> {
    const chosen = [...shards].filter((shard) => (force || shard.writes.uncommittedOps > 0 || shard.writes.dirty) && (waitIfOngoing || !this.#busy.has(shard)));
    return Promise.all(chosen.map((shard) => this.#flushShard(index, shard))).then(() => {});
  }

  /** Flushes every shard that has writes since its last commit (on shutdown). */
  async flushAll(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.indices()].map((index) => this.flush(index, index.shards, { force: false })));
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #flushShard(index: SearchIndex, shard: Shard): Promise<void> {
    const before = this.#running.get(shard) ?? Promise.resolve();
    this.#busy.add(shard);
    const done = before.catch(() => {}).then(async () => {
      if (index.closed) return;
      // Sealed a slice at a time; then at once whatever came in the last pass, so the point holds every applied write.
      await index.scheduler.refreshInPasses([shard.number]);
      if (index.closed) return;
      index.scheduler.refresh([shard.number]);
      const { point, added, dropped, ops } = shard.commitPoint();
      const numbers = new Map(point.segments.map((s) => [s.segment, s.number]));
      const blobs = await Promise.all(added.map(async (segment) => ({ number: numbers.get(segment)!, bytes: await this.#encode(segment) })));
      await this.store.commitShard(index.uuid, shard.number, commitRecord(point), blobs, dropped);
      shard.committed(point, ops);
    });
    this.#running.set(shard, done);
    void done.catch(() => {}).finally(() => this.#running.get(shard) === done && this.#busy.delete(shard));
    this.track(done);
    return done;
  }

  /**
   * Encodes a segment in the segment format, one segment per turn of the event loop across every
   * flush: encoding a shard's segments at once held the loop for 120 ms with 1M documents. Segments
   * never change, so a commit point stays what it was while its segments wait their turn.
   */
  #encode(segment: Segment): Promise<Uint8Array> {
    const encoded = this.#encoding.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => encodeSegment(segment));
    this.#encoding = encoded.then(() => {}, () => {});
    return encoded;
  }

  #check(): void {
    const now = Date.now();
    for (const index of this.indices()) {
      // Flushing refreshes; with refresh turned off, nothing may become visible on its own.
      if (index.settings.refreshIntervalMs < 0) continue;
      const due = index.shards.filter((shard) => {
        if (this.#busy.has(shard)) return false;
        const ops = shard.writes.uncommittedOps;
        const seen = this.#seen.get(shard);
        if (!seen || seen.ops !== ops) this.#seen.set(shard, { ops, since: now });
        return ops >= this.policy.ops || (ops > 0 && seen?.ops === ops && now - seen.since >= this.policy.idleMs);
      });
      if (due.length === 0) continue;
      this.flush(index, due).catch((error) => console.error(`deeppage: background flush of [${index.name}] failed`, error));
    }
  }
}
