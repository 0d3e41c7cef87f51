/**
 * A shard's commit points: its published segments as storage keeps them, each segment under a
 * number of its own, and which numbers the last durable commit point lists. A flush
 * (commits/flusher.ts) stores the segments storage does not have yet and drops those the new
 * point no longer lists; a restart (commits/recovery.ts) loads the last point.
 */
import type { Segment } from '../segments/segment.ts';
import type { ShardSnapshot } from './shard-snapshot.ts';

/** A shard's segments as a commit point: what a flush makes durable and a restart loads. */
export interface CommitPoint {
  /** Every operation with a seq up to this one is in the segments and their deletes. */
  checkpoint: number;
  segments: { number: number; segment: Segment; deleted?: Uint8Array; deletedCount: number }[];
}

export class CommitPoints {
  /** Segment numbers: the key each segment has, or will have, in storage. */
  #numbers = new WeakMap<Segment, number>();
  #nextNumber = 0;
  /** The segments of the last durable commit point, by number. */
  #committed = new Set<number>();

  /**
   * The snapshot as a commit point with every write up to `checkpoint`, each segment numbered.
   * `added` are the segments storage does not have yet, `dropped` the numbers it has that the
   * point no longer lists.
   */
  point(snapshot: ShardSnapshot, checkpoint: number): { point: CommitPoint; added: Segment[]; dropped: number[] } {
    const added: Segment[] = [];
    const segments = snapshot.segments.map(({ segment, deleted, deletedCount }) => {
      let number = this.#numbers.get(segment);
      if (number === undefined) this.#numbers.set(segment, (number = this.#nextNumber++));
      if (!this.#committed.has(number)) added.push(segment);
      return { number, segment, deleted, deletedCount };
    });
    const listed = new Set(segments.map((s) => s.number));
    const dropped = [...this.#committed].filter((number) => !listed.has(number));
    return { point: { checkpoint, segments }, added, dropped };
  }

  /** Storage holds the commit point now. */
  committed(point: CommitPoint): void {
    this.#committed = new Set(point.segments.map((s) => s.number));
  }

  /** On start-up, before any write: storage holds this commit point, its segments under their numbers. */
  loaded(point: CommitPoint): void {
    for (const { number, segment } of point.segments) {
      this.#numbers.set(segment, number);
      this.#nextNumber = Math.max(this.#nextNumber, number + 1);
    }
    this.committed(point);
  }

  /** On start-up: storage holds these segments from a commit point that could not be read; the next commit drops them. */
  replacesStored(numbers: readonly number[]): void {
    this.#committed = new Set(numbers);
    for (const number of numbers) this.#nextNumber = Math.max(this.#nextNumber, number + 1);
  }
}
