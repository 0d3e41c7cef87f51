/**
 * A shard: the documents routed to it, as a write buffer plus a list of immutable segments. The
 * shard owns what it has published, the {@link ShardSnapshot} searches read, and wires the parts
 * that make the next one, each in a file of its own under shard/:
 *
 * - shard-writes.ts, the write path: writes land in the buffer and the id table at once (GET is
 *   real time, as in Elasticsearch), deletes in pending-deletes.ts;
 * - seals.ts: the buffer sealed into segments, a slice at a time when the caller can wait;
 * - {@link Shard.refresh} publishes them with the pending deletes as a new snapshot;
 * - shard-merges.ts: adjacent segments merged a slice at a time, and {@link Shard.merging}
 *   publishes the merged segment in their place, as Lucene's merges run beside searches;
 * - commit-points.ts: the published segments as storage keeps them.
 *
 * When these run is the index's to decide (search-index/index-scheduler.ts).
 */
import type { IndexFamily } from './field-types.ts';
import type { ForceMergeGoal } from './segments/merge-policy.ts';
import type { MergedSegment } from './segments/merge.ts';
import type { Segment } from './segments/segment.ts';
import type { Steps } from './steps.ts';
import { CommitPoints, type CommitPoint } from './shard/commit-points.ts';
import { Seals } from './shard/seals.ts';
import { ShardMerges } from './shard/shard-merges.ts';
import { emptySnapshot, nextSnapshot, type LiveSegment, type ShardSnapshot } from './shard/shard-snapshot.ts';
import { ShardWrites } from './shard/shard-writes.ts';

export class Shard {
  #snapshot: ShardSnapshot;
  /** The write path: documents and deletes not yet published, sequence numbers, planned writes. */
  readonly writes: ShardWrites;
  /** Sealing the buffered documents ahead of the refresh that publishes them. */
  readonly seals: Seals;
  readonly #merges: ShardMerges;
  readonly #commits = new CommitPoints();

  constructor(
    readonly number: number,
    familyOf: (field: string) => IndexFamily | undefined,
    /** Told of segments that leave the shard for good (merged away, or all deleted), so what is kept for them can go. */
    private readonly onDrop: (segments: Segment[]) => void = () => {},
  ) {
    this.#snapshot = emptySnapshot(number);
    this.writes = new ShardWrites(this);
    this.seals = new Seals(this.writes, familyOf);
    this.#merges = new ShardMerges(this, this.writes.deletes);
  }

  /** What searches see of the shard: the last snapshot it published. */
  get snapshot(): ShardSnapshot {
    return this.#snapshot;
  }

  /** The segments of the published snapshot (for what the shard hands over when its index goes). */
  get segments(): Segment[] {
    return this.#snapshot.segments.map((s) => s.segment);
  }

  /** Makes every write so far visible to searches: seals what no seal has taken yet at once, and publishes. */
  refresh(): void {
    const { writes } = this;
    writes.expireTombstones();
    this.seals.finishUnderWay();
    if (!writes.dirty) {
      // Every document sealed so far was deleted or replaced since: nothing to publish.
      this.seals.discard();
      return;
    }
    const sealed = this.seals.takeAll();
    const segments = this.#snapshot.segments.map((live) => writes.deletes.publish(live));
    for (const live of sealed) segments.push(live);
    writes.published();
    this.#replace(segments);
  }

  /**
   * Merges the run of adjacent segments the policy asks for, a slice at a time, then publishes the
   * merged segment in their place with the deletes made meanwhile; the merged segment if it
   * published one. Nothing changes when a refresh has dropped one of them before the merge ends.
   */
  *merging(): Steps<MergedSegment | undefined> {
    const done = yield* this.#merges.merging();
    if (!done) return undefined;
    this.#replace(done.segments, [done.merged.segment]);
    return done.merged;
  }

  /** The policy asks for a merge, and none is under way. */
  get wantsMerge(): boolean {
    return this.#merges.wanted;
  }

  /** Sets the goal of a force merge (`_forcemerge`) for the merges from now on; undefined when it is over. */
  forceMerge(goal: ForceMergeGoal | undefined): void {
    this.#merges.force(goal);
  }

  /**
   * The published snapshot as a commit point, every segment numbered; call right after a refresh so
   * that it holds every applied write (the checkpoint is the last applied seq; planned writes are not
   * in it, and replay after it). `added` are the segments storage does not have yet, `dropped` the
   * numbers it has that the point no longer lists, `ops` the writes it holds.
   */
  commitPoint(): { point: CommitPoint; added: Segment[]; dropped: number[]; ops: number } {
    if (this.writes.dirty) throw new Error('a commit point needs a refreshed shard');
    return { ...this.#commits.point(this.#snapshot, this.writes.appliedSeq), ops: this.writes.uncommittedOps };
  }

  /** Storage holds the commit point now; `ops` is what {@link commitPoint} counted. */
  committed(point: CommitPoint, ops: number): void {
    this.#commits.committed(point);
    this.writes.committed(ops);
  }

  /** On start-up, before any write: the shard as a stored commit point left it. */
  load(point: CommitPoint): void {
    this.#commits.loaded(point);
    this.#publish(point.segments.map(({ segment, deleted, deletedCount }) => ({ segment, deleted, deletedCount, base: 0 })));
    this.writes.loaded(point.checkpoint);
  }

  /** On start-up: storage holds these segments from a commit point that could not be read; the next commit drops them. */
  replacesStored(numbers: readonly number[]): void {
    this.#commits.replacesStored(numbers);
  }

  #publish(segments: readonly LiveSegment[]): void {
    this.#snapshot = nextSnapshot(this.#snapshot, segments);
  }

  /**
   * Publishes the segments but those wholly deleted, in place of those published before: the
   * segments no longer published (of those, and `also`) lose their pending deletes, and whoever
   * keeps things for them is told.
   */
  #replace(segments: readonly LiveSegment[], also: readonly Segment[] = []): void {
    const before = this.#snapshot.segments;
    this.#publish(segments.filter((s) => s.deletedCount < s.segment.count));
    const kept = new Set(this.#snapshot.segments.map((s) => s.segment));
    const dropped = [...before.map((s) => s.segment), ...also].filter((segment) => !kept.has(segment));
    this.writes.deletes.forget(dropped);
    if (dropped.length > 0) this.onDrop(dropped);
  }
}
