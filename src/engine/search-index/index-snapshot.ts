/**
 * What a search reads of an index: its shards at one refresh ({@link IndexSnapshot}), and what is
 * worked out once per snapshot and dropped with it ({@link SnapshotCache}). The index
 * (search-index.ts) publishes a new snapshot at each refresh and merge; a search runs on the one
 * it started with, and a point in time or a scroll holds its own as long as it lives.
 */
import type { Mappings } from '../mapping.ts';
import type { Query } from '../query/query.ts';
import type { Layout } from '../search/layout.ts';
import type { SortPlan } from '../search/sort/key.ts';
import type { KeywordOrdinals, OrdinalsCarry, OrdinalsWarmup } from '../search/sort/sort-ordinals.ts';
import type { IndexSettings } from '../settings.ts';
import type { ShardSnapshot } from '../shard/shard-snapshot.ts';

/** The index a snapshot is of, as searches read it: its names, and its settings and mappings now. */
export interface SearchedIndex {
  readonly name: string;
  readonly uuid: string;
  readonly settings: IndexSettings;
  readonly mappings: Mappings;
}

export interface IndexSnapshot {
  readonly index: SearchedIndex;
  readonly shards: readonly ShardSnapshot[];
  /** Reached through aliases with filters only: the documents a search may see here (their filters, or'ed). */
  readonly filter?: Query;
  /** Shared by the snapshot and the same snapshot reached through filtered aliases. */
  readonly cache: SnapshotCache;
}

/** What is worked out once per snapshot, kept with it and dropped with it; each slot is filled by the one module named beside it. */
export class SnapshotCache {
  /** Sort plans, by the name of their clauses (search/order-key.ts's `OrderKey.sort`; search/sort/plan.ts). */
  readonly plans = new Map<string, SortPlan>();
  /** The segments in tie-break order (search/sort/tie-break.ts). */
  layout: Layout | undefined;
  /** Global ordinals of keyword fields, by field (search/sort/keyword-key.ts). */
  readonly ordinals = new Map<string, KeywordOrdinals>();
  /** By field, what the last ordinals were built from, for the next ones to extend; carried into the index's next snapshot (keyword-key.ts). */
  readonly carries = new Map<string, OrdinalsCarry>();
  /** By field, ordinals numbered between requests for a field that has no carry to extend; carried too (keyword-key.ts). */
  readonly warmups = new Map<string, OrdinalsWarmup>();
  /** The snapshot narrowed to some of its shards, by their numbers and the filter ({@link narrowed}). */
  readonly narrowed = new Map<string, IndexSnapshot>();
  /** The layouts of slices of this snapshot searched alone, by how and which slice (search/slice.ts). */
  readonly slices = new Map<string, Layout>();

  /** Everything goes (`_cache/clear`); searches work it out again as they need it. */
  clear(): void {
    this.plans.clear();
    this.layout = undefined;
    this.ordinals.clear();
    this.carries.clear();
    this.warmups.clear();
    this.narrowed.clear();
    this.slices.clear();
  }
}

/**
 * The snapshot narrowed to some of its shards (routing, `preference=_shards`, a slice), with a
 * cache of its own. Kept with the snapshot by the shards picked, whatever picked them, so that the
 * searches of those shards share what is kept for them (layout, sort plans, merges).
 */
export function narrowed(snapshot: IndexSnapshot, shards: readonly ShardSnapshot[]): IndexSnapshot {
  const { filter } = snapshot;
  // A filtered target shares its snapshot's cache: what it narrows to is its own.
  let key = shards.map((shard) => shard.shard).join(',');
  if (filter) key += ` ${JSON.stringify(filter)}`;
  let kept = snapshot.cache.narrowed.get(key);
  if (kept === undefined) {
    kept = { index: snapshot.index, shards, cache: new SnapshotCache(), ...(filter && { filter }) };
    snapshot.cache.narrowed.set(key, kept);
  }
  return kept;
}
