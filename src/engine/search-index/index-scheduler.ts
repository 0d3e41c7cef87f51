/**
 * When an index's writes become visible and its segments merge: the refresh timer
 * (`index.refresh_interval`), refreshes now or in passes of the event loop, `refresh=wait_for`
 * writers, background merges and `_forcemerge`. Shards do the work (shard.ts); each time they
 * publish, the index publishes its next snapshot (search-index.ts, through `publish`).
 *
 * Long work goes in passes (steps.ts) so that requests are answered in between: sealing a shard's
 * 27,000 cities in one callback held the loop 150 ms; refreshing five shards in one, 70 ms.
 */
import type { TermsLineage } from '../segments/merge.ts';
import type { ForceMergeGoal } from '../segments/merge-policy.ts';
import type { Segment } from '../segments/segment.ts';
import type { Shard } from '../shard.ts';
import type { Sources } from '../sources.ts';
import { inPasses, type Steps } from '../steps.ts';
import type { SearchedIndex } from './index-snapshot.ts';

/**
 * Unsealed documents a shard seals at once when it publishes; more are sealed a slice at a time
 * first. Under the load check's bulk loader a shard's last 2,000 cities took 15–30 ms to seal and
 * publish in one callback; 512 take a few.
 */
const SEAL_AT_ONCE = 512;

/**
 * Publishes the index's next snapshot once shards have published theirs. `before` holds the
 * segments published until now, when index sorting needs to know which are new; `lineage`, after
 * a merge, how its keyword columns came from its parts'.
 */
export type Publish = (before: ReadonlySet<Segment> | undefined, lineage?: ReadonlyMap<string, TermsLineage>) => void;

export class IndexScheduler {
  #timer: NodeJS.Timeout | undefined;
  /** Deleted or shut down: nothing is refreshed or merged any more. */
  #closed = false;
  /** A periodic refresh is going through the shards ({@link #periodicRefresh}). */
  #refreshing = false;
  /** Background merges under way ({@link #mergeInPasses}). */
  #merges: Promise<void> | undefined;
  /** The last force merge asked for: the next waits for it ({@link forceMerge}). */
  #forceMerging: Promise<void> = Promise.resolve();
  /**
   * `refresh=wait_for` writers: the shards each still waits for, and those of them a refresh has
   * sealed since it began waiting (they count once the index's snapshot shows them).
   */
  #refreshWaiters: { shards: Set<number>; sealed: Set<number>; resolve: () => void }[] = [];

  constructor(
    private readonly index: SearchedIndex,
    private readonly shards: readonly Shard[],
    /** The node's `_source` owner: told when a shard publishes a snapshot. */
    private readonly sources: Sources,
    private readonly publish: Publish,
  ) {
    this.reschedule();
  }

  /** Deleted or shut down. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Makes all writes so far visible to searches (the given shards only, if any); nothing once the index is closed. */
  refresh(shards: Iterable<number> = this.shards.keys()): void {
    if (this.#closed) return;
    const refreshed = [...shards];
    const before = this.#segmentsIfSorted();
    let changed = false;
    for (const n of refreshed) changed = this.#refreshShard(n) || changed;
    this.#published(changed, before);
  }

  /**
   * Makes all writes so far visible (the given shards only, if any), in passes of the event loop:
   * shard by shard, what was written is sealed a slice at a time (then what came meanwhile, until
   * what is left seals in a moment), the shard publishes, and the index's new snapshot comes once
   * every shard has. Resolves once published (at once if the index closes).
   */
  async refreshInPasses(shards: Iterable<number> = this.shards.keys()): Promise<void> {
    if (this.#closed) return;
    await inPasses(this.#refreshSteps([...shards]), () => this.#closed);
  }

  /** Resolves once the shards have refreshed (ES's `refresh=wait_for`); refreshes now if no refresh is scheduled. */
  waitForRefresh(shards: Iterable<number>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#timer === undefined) return this.refreshInPasses(shards);
    return new Promise((resolve) => this.#refreshWaiters.push({ shards: new Set(shards), sealed: new Set(), resolve }));
  }

  /** Resolves once no merge is under way or wanted (tests, and whoever needs the segments settled), or the index closed. */
  async merged(): Promise<void> {
    this.#mergeInPasses();
    while (this.#merges) {
      await this.#merges;
      if (this.#closed) return;
      this.#mergeInPasses();
    }
  }

  /**
   * `_forcemerge`: seals what was written, then merges every shard's segments until the goal is met
   * (segments/merge-policy.ts), with the background merges' machinery: a slice at a time, searches
   * answered in between. One at a time per index, as Elasticsearch runs force merges on a pool of
   * one thread: a second one waits for the first.
   */
  forceMerge(goal: ForceMergeGoal): Promise<void> {
    const run = this.#forceMerging.then(async () => {
      await this.refreshInPasses();
      for (const shard of this.shards) shard.forceMerge(goal);
      try {
        await this.merged();
      } finally {
        for (const shard of this.shards) shard.forceMerge(undefined);
      }
    });
    this.#forceMerging = run.catch(() => {});
    return run;
  }

  /** The refresh interval is set anew from the index's settings (`index.refresh_interval`). */
  reschedule(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const { refreshIntervalMs } = this.index.settings;
    if (refreshIntervalMs < 0) return;
    // Node clamps longer timers to 1 ms; a refresh every 24.8 days is as good as never.
    this.#timer = setInterval(() => this.#periodicRefresh(), Math.min(refreshIntervalMs, 2 ** 31 - 1));
    this.#timer.unref();
  }

  /** Stops the refresh timer; writers waiting for a refresh are let go. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const waiter of this.#refreshWaiters.splice(0)) waiter.resolve();
  }

  /** The periodic refresh: {@link refreshInPasses} of every shard, one at a time. */
  #periodicRefresh(): void {
    if (this.#refreshing) return;
    this.#refreshing = true;
    this.refreshInPasses()
      // A failed periodic refresh must not take the node down; the next tick retries.
      .catch((e: unknown) => console.error(`deeppage: refresh of [${this.index.name}] failed`, e))
      .finally(() => (this.#refreshing = false));
  }

  *#refreshSteps(shards: readonly number[]): Steps<void> {
    const before = this.#segmentsIfSorted();
    let changed = false;
    for (const n of shards) {
      const shard = this.shards[n];
      this.#sealingFor(n);
      // A seal another refresh began is waited for, not finished at once.
      while (shard.seals.underWay || shard.writes.unsealed > SEAL_AT_ONCE) {
        yield* shard.seals.sealing();
        yield;
      }
      changed = this.#refreshShard(n) || changed;
      yield;
    }
    this.#published(changed, before);
  }

  /**
   * Background merges, in passes of the event loop: while a shard holds more segments than it
   * keeps, a run of its adjacent segments is merged a slice at a time and published in their place
   * (with a new index snapshot: the same documents, fewer segments).
   */
  #mergeInPasses(): void {
    if (this.#merges || !this.shards.some((shard) => shard.wantsMerge)) return;
    this.#merges = inPasses(this.#merging(), () => this.#closed)
      .catch((e: unknown) => console.error(`deeppage: merging segments of [${this.index.name}] failed`, e))
      .finally(() => (this.#merges = undefined));
  }

  *#merging(): Steps<void> {
    for (let merged = true; merged; ) {
      merged = false;
      for (const [n, shard] of this.shards.entries()) {
        if (!shard.wantsMerge) continue;
        const before = this.#segmentsIfSorted();
        const segment = yield* shard.merging();
        if (!segment) continue;
        merged = true;
        this.sources.published(this.index.uuid, n, shard.snapshot.generation);
        this.#published(true, before, segment.lineage);
        yield;
      }
    }
  }

  /** Writers waiting now wrote before this: their writes to the shard are sealed from here on. */
  #sealingFor(n: number): void {
    for (const waiter of this.#refreshWaiters) if (waiter.shards.has(n)) waiter.sealed.add(n);
  }

  /** Seals a shard's new writes into its published snapshot; whether it had any. */
  #refreshShard(n: number): boolean {
    this.#sealingFor(n);
    const shard = this.shards[n];
    if (!shard.writes.dirty) return false;
    shard.refresh();
    this.sources.published(this.index.uuid, n, shard.snapshot.generation);
    return true;
  }

  /**
   * After shards refreshed: the index's next snapshot, merges if they are wanted now, and
   * `wait_for` writers told once every shard they wrote to has been sealed since they began
   * waiting (a periodic refresh goes shard by shard: one sealed before a writer came does not
   * count for it).
   */
  #published(changed: boolean, before: ReadonlySet<Segment> | undefined, lineage?: ReadonlyMap<string, TermsLineage>): void {
    if (changed) {
      this.publish(before, lineage);
      this.#mergeInPasses();
    }
    this.#refreshWaiters = this.#refreshWaiters.filter((waiter) => {
      for (const n of waiter.sealed) waiter.shards.delete(n);
      waiter.sealed.clear();
      if (waiter.shards.size > 0) return true;
      waiter.resolve();
      return false;
    });
  }

  /** The segments published now, when the index sorts its segments (only index sorting needs to know which segments are new). */
  #segmentsIfSorted(): Set<Segment> | undefined {
    return this.index.settings.sort ? new Set(this.shards.flatMap((shard) => shard.segments)) : undefined;
  }
}
