/**
 * One sort key as the search phases use it. Within a segment a key is a column of f64 values by
 * position, ordered by {@link SortKeySource.localOrder}: that is what top-k and sorted runs sort.
 * Across segments, stored values are read through a map and an offset ({@link SortKeySource.readAs},
 * the kernels' run-key rule in src/core/order.ts) and compare by {@link SortKeySource.order}.
 */
import type { Column, KeyOrder } from '../../../core/index.ts';
import type { Segment } from '../../segments/segment.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import type { SegmentRef } from './tie-break.ts';

/** Wasm-resident maps from segment-local values to values that compare across segments. */
export interface MapStore {
  /** The map kept for (segment, id), rebuilt when `version` changes. */
  map(segment: Segment, id: string, version: object, build: () => ArrayLike<number>): Column;
}

export interface SortKeySource {
  /** Identifies how this key orders a segment: part of a sorted run's key. */
  readonly id: string;
  /** How stored values compare across every segment of the search. */
  readonly order: KeyOrder;
  /** True when {@link readAs} never maps or offsets (the values compare as stored). */
  readonly asStored?: boolean;
  /** The segment's values by position. */
  column(live: LiveSegment): Float64Array;
  /** How those values order within the segment (a keyword stand-in sits among its local terms). */
  localOrder(live: LiveSegment): KeyOrder;
  /** The map and offset that make the segment's values comparable across segments. */
  readAs(segment: SegmentRef, maps: MapStore): { map?: Column; offset?: number };
  /** The value a hit shows in its `sort` array. */
  sortValue(segment: SegmentRef, local: number): unknown;
  /**
   * A `search_after` value (what {@link sortValue} showed, as the client sends it back) as a value
   * that compares with the segments' values read through {@link readAs}; NaN for `null` (missing).
   * Throws the client's error for a value of the wrong type.
   */
  afterValue(value: unknown): number;
}
