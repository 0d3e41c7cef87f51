/**
 * The segments of a search, each named by the target (the search's index snapshot) and shard it
 * belongs to, in the tie-break order sort/tie-break.ts lays them out in.
 */
import type { LiveSegment } from '../shard/shard-snapshot.ts';

/** A segment of the search, with the target and shard it belongs to. */
export interface SegmentRef {
  target: number;
  shard: number;
  live: LiveSegment;
  /** In a slice that splits the segment's shard (search/slice.ts): the segment's documents in the slice, which every page reads instead of its live ones. */
  only?: SliceDocs;
}

/** Some of a segment's live documents: their positions, ascending, and a name for the set that stays valid as deletes grow (runs of them are kept under it). */
export interface SliceDocs {
  docs: Uint32Array;
  name: string;
}

/** The segments of a search in tie-break order, and how many live documents they hold. */
export interface Layout {
  segments: readonly SegmentRef[];
  liveCount: number;
  /** Kept with a lone target's snapshot: every search of it gets these same `segments`, so what is worked out from them can be kept too. */
  shared: boolean;
}
