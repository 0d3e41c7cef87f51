/**
 * A shard's merges: the next run of adjacent segments the policy (segments/merge-policy.ts) asks
 * for, merged a slice at a time (steps.ts) beside searches, as Lucene's merges run, then put in
 * place of its parts with what was deleted of them meanwhile. A merge changes where documents
 * are, never what a search finds. The shard (shard.ts) publishes what {@link ShardMerges.merging}
 * returns.
 */
import { nextMerge, type ForceMergeGoal } from '../segments/merge-policy.ts';
import { mergeSegments, type MergedSegment } from '../segments/merge.ts';
import type { Segment } from '../segments/segment.ts';
import type { Steps } from '../steps.ts';
import type { PendingDeletes } from './pending-deletes.ts';
import { liveLocals, type LiveSegment, type ShardSnapshot } from './shard-snapshot.ts';

/** A merge under way: the segments as they were published when it began, and the documents it keeps of each. */
interface Merge {
  parts: { segment: Segment; locals: Uint32Array }[];
  steps: Steps<MergedSegment>;
}

/** A merge done: the merged segment, and the shard's segments with it in place of its parts. */
export interface MergeDone {
  merged: MergedSegment;
  segments: LiveSegment[];
}

export class ShardMerges {
  #merge: Merge | undefined;
  /** The goal of the force merge under way, if one is. */
  #forceGoal: ForceMergeGoal | undefined;

  /**
   * @param shard holds the snapshot the shard published last.
   * @param deletes the shard's deletes not yet published, which a merged segment takes over.
   */
  constructor(
    private readonly shard: { readonly snapshot: ShardSnapshot },
    private readonly deletes: PendingDeletes,
  ) {}

  /** The policy asks for a merge (the shard holds more segments than it keeps, or a force merge's goal is not met), and none is under way. */
  get wanted(): boolean {
    return this.#merge === undefined && nextMerge(this.shard.snapshot.segments, this.#forceGoal) !== undefined;
  }

  /** Sets the goal of a force merge (`_forcemerge`) for the merges from now on; undefined when it is over. */
  force(goal: ForceMergeGoal | undefined): void {
    this.#forceGoal = goal;
  }

  /**
   * Merges the run of segments the policy asks for, a slice at a time; the shard's segments with
   * the merged one in their place, unless a refresh has dropped one of its parts by the end.
   */
  *merging(): Steps<MergeDone | undefined> {
    if (this.#merge) return undefined;
    const merge = this.#plan();
    if (!merge) return undefined;
    this.#merge = merge;
    try {
      for (;;) {
        const step = merge.steps.next();
        if (step.done) {
          const segments = this.#inPlace(merge, step.value.segment);
          return segments && { merged: step.value, segments };
        }
        yield;
      }
    } finally {
      this.#merge = undefined;
    }
  }

  /** The next merge the policy asks for, with a force merge's goal if one runs. */
  #plan(): Merge | undefined {
    const segments = this.shard.snapshot.segments;
    const run = nextMerge(segments, this.#forceGoal);
    if (!run) return undefined;
    const parts = segments.slice(run.at, run.at + run.k).map((s) => ({ segment: s.segment, locals: liveLocals(s) }));
    return { parts, steps: mergeSegments(parts) };
  }

  /**
   * The published segments with the merged one in place of its parts, if they are all still
   * published side by side, with what was deleted of them since the merge began: published
   * deletes as published, the rest pending for the next refresh.
   */
  #inPlace({ parts }: Merge, merged: Segment): LiveSegment[] | undefined {
    const segments = this.shard.snapshot.segments;
    const at = segments.findIndex((s) => s.segment === parts[0].segment);
    if (at < 0 || parts.some((part, p) => segments[at + p]?.segment !== part.segment)) return undefined;
    let published: Uint8Array | undefined, pending: Uint8Array | undefined;
    let publishedCount = 0, pendingCount = 0, to = 0;
    for (let p = 0; p < parts.length; p++) {
      const { locals } = parts[p];
      const seen = segments[at + p].deleted;
      const now = this.deletes.of(parts[p].segment) ?? seen;
      for (let i = 0; i < locals.length; i++, to++) {
        if (seen?.[locals[i]] === 1) {
          (published ??= new Uint8Array(merged.count))[to] = 1;
          publishedCount++;
        }
        if (now?.[locals[i]] === 1) {
          (pending ??= new Uint8Array(merged.count))[to] = 1;
          pendingCount++;
        }
      }
    }
    if (pendingCount > publishedCount) this.deletes.pending(merged, pending!, pendingCount);
    return [...segments.slice(0, at), { segment: merged, deleted: published, deletedCount: publishedCount, base: 0 }, ...segments.slice(at + parts.length)];
  }
}
