/**
 * One sort key as the search phases use it. Within a segment a key is a column of f64 values by
 * position, ordered by {@link SortKeySource.localOrder}: that is what top-k and sorted runs sort.
 * Across segments, stored values are read through a map and an offset ({@link SortKeySource.readAs},
 * the kernels' run-key rule in src/core/order.ts) and compare by {@link SortKeySource.order}.
 *
 * A sort's keys together, as plan.ts plans them from its clauses, are its {@link SortPlan}.
 */
import type { Column, KeyOrder } from '../../../core/index.ts';
import type { Segment } from '../../segments/segment.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import type { SegmentRef } from '../layout.ts';
import type { RunName } from '../order-key.ts';
import type { SortClause } from '../request.ts';

/** Wasm-resident maps from segment-local values to values that compare across segments. */
export interface MapStore {
  /** The map kept for (segment, id), rebuilt when `version` changes. */
  map(segment: Segment, id: string, version: object, build: () => ArrayLike<number>): Column;
}

export interface SortKeySource {
  /** Names how this key orders a segment (order-key.ts's `keyName`): part of a sorted run's name. */
  readonly id: string;
  /** How stored values compare across every segment of the search. */
  readonly order: KeyOrder;
  /** True when {@link readAs} never maps or offsets (the values compare as stored). */
  readonly asStored?: boolean;
  /** The segment's values by position. */
  column(live: LiveSegment): Float64Array;
  /** Names {@link column} within a segment (the same for every order of the field): a copy of it in wasm memory is kept under it. */
  readonly columnId: string;
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

export interface SortPlan {
  /**
   * False when the hits come in the search's layout order (shard order, then ordinal order): under
   * match_all, when nothing but `_score` clauses and a final `_shard_doc` ascending sort them.
   */
  keyed: boolean;
  /** Hits carry a `sort` array (ES: when sorted by anything but `_score` alone). */
  byField: boolean;
  /** A `_score` clause is present, so hits carry their score. */
  tracksScore: boolean;
  /** The clauses in request order, each with its key source (none for `_score`: it orders nothing under match_all). */
  clauses: readonly { clause: SortClause; source?: SortKeySource }[];
  /** The kernel keys, in clause order. */
  keys: SortKeySource[];
  /** Names the order of the keys: segments keep their sorted runs under it. */
  runKey: RunName;
  /** Every key compares across segments as stored (no keyword map, no `_doc` offset). */
  asStored: boolean;
  /** How the keys compare across segments. */
  order(): KeyOrder[];
  /** The hit's `sort` array; `score` stands for its `_score` clauses. */
  values(segment: SegmentRef, local: number, score: number): unknown[];
}
