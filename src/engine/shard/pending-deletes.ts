/**
 * A shard's deletes of documents in published segments, in real time: GET and the write path see
 * them at once, searches once a refresh publishes them ({@link PendingDeletes.publish}). A
 * published snapshot's bitset never changes: the first delete after publishing copies it.
 */
import type { Segment } from '../segments/segment.ts';
import type { LiveSegment, ShardSnapshot } from './shard-snapshot.ts';

interface Deletes {
  deleted: Uint8Array;
  count: number;
  /** The array is also a published snapshot's: copy it before the next change. */
  shared: boolean;
}

export class PendingDeletes {
  /** Per segment with deletes not yet published, every delete so far. */
  readonly #bySegment = new Map<Segment, Deletes>();

  /** Some segment has a delete no snapshot has published yet. */
  get unpublished(): boolean {
    for (const deletes of this.#bySegment.values()) if (!deletes.shared) return true;
    return false;
  }

  /** Whether the document at `local` of the published `live` is deleted now. */
  isDeleted(live: LiveSegment, local: number): boolean {
    const deletes = this.#bySegment.get(live.segment);
    return (deletes ? deletes.deleted[local] : live.deleted?.[local]) === 1;
  }

  /** Deletes the document at `local` of `segment`, one of `published`'s segments. */
  mark(published: ShardSnapshot, segment: Segment, local: number): void {
    let deletes = this.#bySegment.get(segment);
    if (!deletes) {
      const live = published.segments.find((s) => s.segment === segment)!;
      deletes = { deleted: live.deleted ?? new Uint8Array(segment.count), count: live.deletedCount, shared: live.deleted !== undefined };
      this.#bySegment.set(segment, deletes);
    }
    if (deletes.shared) {
      deletes.deleted = deletes.deleted.slice();
      deletes.shared = false;
    }
    deletes.count += 1 - deletes.deleted[local];
    deletes.deleted[local] = 1;
  }

  /** The segment as the next snapshot publishes it, with its deletes so far; the array is shared until the next delete. */
  publish(live: LiveSegment): LiveSegment {
    const deletes = this.#bySegment.get(live.segment);
    if (!deletes || deletes.shared) return live;
    deletes.shared = true;
    return { segment: live.segment, deleted: deletes.deleted, deletedCount: deletes.count, base: live.base };
  }

  /** The segment's deletes now, if any were made since it was published. */
  of(segment: Segment): Uint8Array | undefined {
    return this.#bySegment.get(segment)?.deleted;
  }

  /** A merged segment, about to be published, has `count` deletes its snapshot will not show yet. */
  pending(segment: Segment, deleted: Uint8Array, count: number): void {
    this.#bySegment.set(segment, { deleted, count, shared: false });
  }

  /** The segments are no longer published: their deletes go with them. */
  forget(segments: Iterable<Segment>): void {
    for (const segment of segments) this.#bySegment.delete(segment);
  }
}
