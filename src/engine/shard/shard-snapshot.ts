/**
 * What one search sees of a shard: its segments at one refresh, each with the deletes published
 * with it. A snapshot never changes once published, so pages taken from it never tear; the shard
 * (shard.ts) publishes a new one at each refresh and merge.
 */
import type { Segment } from '../segments/segment.ts';

/** A segment as one snapshot sees it: which of its documents are deleted, and its first ordinal. */
export interface LiveSegment {
  segment: Segment;
  /** 1 where the document is deleted; absent when none is. Never changes once published. */
  deleted?: Uint8Array;
  deletedCount: number;
  /** The shard ordinal of the segment's first document: the segments' counts before it. */
  base: number;
}

export interface ShardSnapshot {
  shard: number;
  /** Counts the shard's published snapshots (0 before the first refresh): what the owner of `_source` keeps documents for. */
  generation: number;
  segments: readonly LiveSegment[];
  liveCount: number;
}

/** The shard's snapshot before its first refresh. */
export function emptySnapshot(shard: number): ShardSnapshot {
  return { shard, generation: 0, segments: [], liveCount: 0 };
}

/** The snapshot after `previous`, of these segments in layout order: each given its base, and counted. */
export function nextSnapshot(previous: ShardSnapshot, segments: readonly LiveSegment[]): ShardSnapshot {
  let base = 0, liveCount = 0;
  const published = segments.map((s) => {
    const out = s.base === base ? s : { ...s, base };
    base += s.segment.count;
    liveCount += s.segment.count - s.deletedCount;
    return out;
  });
  return { shard: previous.shard, generation: previous.generation + 1, segments: published, liveCount };
}

/** The segment's live documents, by position. */
export function liveLocals(live: LiveSegment): Uint32Array {
  const out = new Uint32Array(live.segment.count - live.deletedCount);
  for (let i = 0, at = 0; i < live.segment.count; i++) if (!live.deleted?.[i]) out[at++] = i;
  return out;
}
