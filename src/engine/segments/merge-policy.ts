/**
 * Which segments of a shard merge next: always a run of adjacent ones (so documents keep their
 * relative order, and tie order, for good), merged into one segment in their place.
 *
 * On its own a shard keeps at most {@link MAX_SEGMENTS}: past that, the run of two to
 * {@link MAX_MERGE_AT_ONCE} segments that is cheapest for each segment it removes (a run of k
 * segments holding D live documents costs D / (k − 1)). Merging only pairs copied each document
 * once per doubling of its segment (about log₂ of the shard's size over a refresh's, 3–4 times in a
 * reindex of 1,000,000); a run of small segments merges at once, and a large segment joins a run only
 * when nothing smaller is left, as Lucene's log merge policy merges segments of one size level
 * together.
 *
 * `_forcemerge` sets a goal on top: at most `maxSegments` segments (runs of up to
 * {@link MAX_MERGE_AT_ONCE_EXPLICIT} at once, as Lucene's `maxMergeAtOnceExplicit`), or every segment
 * with more than {@link EXPUNGE_DELETES_ALLOWED} of its documents deleted rewritten without them
 * (Elasticsearch's `index.merge.policy.expunge_deletes_allowed`, 10 %).
 */
import { MAX_TEXT } from './ids.ts';
import type { Segment } from './segment.ts';

/** More segments than this and the shard merges a run of adjacent ones. */
export const MAX_SEGMENTS = 8;
/** The most segments one merge takes on its own. */
export const MAX_MERGE_AT_ONCE = 4;
/** The most segments one merge takes for `_forcemerge`. */
export const MAX_MERGE_AT_ONCE_EXPLICIT = 30;
/** The share of deleted documents above which `only_expunge_deletes` rewrites a segment. */
export const EXPUNGE_DELETES_ALLOWED = 0.1;

/** What `_forcemerge` asks of a shard while it runs. */
export interface ForceMergeGoal {
  /** At most this many segments (at least 1). */
  maxSegments?: number;
  /** Rewrite the segments with many deletes, and nothing else. */
  expungeDeletes?: boolean;
}

/** What the policy reads of a published segment. */
export interface PolicySegment {
  segment: Segment;
  deletedCount: number;
}

/** The run to merge next, as its first segment's place and its length; undefined when nothing is to be merged. */
export function nextMerge(segments: readonly PolicySegment[], goal?: ForceMergeGoal): { at: number; k: number } | undefined {
  // A force merge's goal first: its long runs copy each document fewer times than the policy's own.
  if (goal?.maxSegments !== undefined && segments.length > goal.maxSegments) {
    const k = Math.min(MAX_MERGE_AT_ONCE_EXPLICIT, segments.length - goal.maxSegments + 1);
    // A run that long may hold more ids than a segment can: then the cheapest shorter one that fits.
    const run = cheapestRun(segments, k, k) ?? (k > 2 ? cheapestRun(segments, 2, k) : undefined);
    if (run) return run;
  }
  if (segments.length > MAX_SEGMENTS) return cheapestRun(segments, 2, MAX_MERGE_AT_ONCE);
  if (goal?.expungeDeletes) {
    const at = segments.findIndex((s) => s.deletedCount > s.segment.count * EXPUNGE_DELETES_ALLOWED);
    return at < 0 ? undefined : { at, k: 1 };
  }
  return undefined;
}

/** The cheapest run of `least` to `most` adjacent segments whose ids fit one segment. */
function cheapestRun(segments: readonly PolicySegment[], least: number, most: number): { at: number; k: number } | undefined {
  const live = (s: PolicySegment) => s.segment.count - s.deletedCount;
  let best: { at: number; k: number; cost: number } | undefined;
  for (let i = 0; i + 1 < segments.length; i++) {
    let docs = live(segments[i]), text = segments[i].segment.ids.text.length;
    for (let k = 2; k <= most && i + k <= segments.length; k++) {
      const next = segments[i + k - 1];
      text += next.segment.ids.text.length;
      if (text > MAX_TEXT) break;
      docs += live(next);
      if (k < least) continue;
      const cost = docs / (k - 1);
      if (!best || cost < best.cost) best = { at: i, k, cost };
    }
  }
  return best && { at: best.at, k: best.k };
}
