/**
 * The sort order shared by the wasm kernels and their reference: what a sort key and a sorted run
 * are, and how two entries compare. The kernels implement the same rule on order-preserving i64
 * images (assembly/keys.ts); this file states it once in plain TypeScript.
 */

export type Direction = 'asc' | 'desc';

/** Where entries whose value is NaN (missing) sort: last (default), first, or as if they held a value. */
export type Missing = '_last' | '_first' | number;

/** How one key orders its values. */
export interface KeyOrder {
  order?: Direction;
  missing?: Missing;
}

/** One sort key for top-k: a column of f64 values indexed by entry, with its order. */
export interface SortKey<Column = Float64Array> extends KeyOrder {
  values: Column;
}

/**
 * Compares two values of one key: negative when `a` sorts first.
 * NaN is missing; -0 sorts before +0 in ascending order (Lucene's doubleToSortableLong order).
 */
export function compareValues(a: number, b: number, order: Direction = 'asc', missing: Missing = '_last'): number {
  if (typeof missing === 'number' && !Number.isNaN(missing)) {
    if (Number.isNaN(a)) a = missing;
    if (Number.isNaN(b)) b = missing;
  }
  const aMissing = Number.isNaN(a), bMissing = Number.isNaN(b);
  if (aMissing || bMissing) {
    if (aMissing && bMissing) return 0;
    const missingFirst = missing === '_first';
    return aMissing === missingFirst ? -1 : 1;
  }
  let c = a < b ? -1 : a > b ? 1 : 0;
  if (c === 0 && a === 0) c = (Object.is(a, -0) ? -1 : 1) - (Object.is(b, -0) ? -1 : 1);
  return order === 'desc' ? -c : c;
}

/** Compares entries `ea` and `eb` on every key in turn: negative when `ea` sorts first, 0 on a full tie. */
export function compareEntries(keys: readonly SortKey<ArrayLike<number>>[], ea: number, eb: number): number {
  for (const key of keys) {
    const c = compareValues(key.values[ea], key.values[eb], key.order, key.missing);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * A position in an order (`search_after`): the values of its first keys, each in its key's column
 * space. An entry comes after the position when it sorts after those values; an entry equal to them
 * on those keys comes after it when `tie` > 0 (default 0: equal entries are at or before it, skipped).
 */
export interface Position {
  values: readonly number[];
  tie?: number;
}

/** How entry `e` compares with a position: > 0 when it comes after it. */
export function compareToPosition(keys: readonly SortKey<ArrayLike<number>>[], e: number, position: Position): number {
  for (let j = 0; j < position.values.length; j++) {
    const c = compareValues(keys[j].values[e], position.values[j], keys[j].order, keys[j].missing);
    if (c !== 0) return c;
  }
  return position.tie ?? 0;
}

/**
 * One key of a sorted run. A present value v reads as `map[v]` when there is a map, then plus
 * `offset` when it is not 0: a run can keep segment-local keyword ordinals (the map turns them into
 * ordinals that compare across segments) or segment positions (the offset turns them into shard
 * ordinals). NaN (missing) stays NaN.
 */
export interface RunKey<Column = Float64Array> {
  values: Column;
  map?: Column;
  offset?: number;
}

/** A sorted run: `length` entries, in order by the keys, ties in position order. */
export interface Run<Column = Float64Array> {
  length: number;
  keys: RunKey<Column>[];
}

/**
 * Sorted runs to merge, with the order of their keys. Entries compare by keys, then run index, then
 * position within the run (Lucene's TopDocs.merge tie-break).
 */
export interface Runs<Column = Float64Array> {
  order: KeyOrder[];
  runs: Run<Column>[];
}

/** The comparable value of key `j` at position `p` of a run (the map and offset rule above). */
export function runValue(run: Run<ArrayLike<number>>, j: number, p: number): number {
  const key = run.keys[j];
  let v = key.values[p];
  if (key.map !== undefined && !Number.isNaN(v)) v = key.map[v];
  // Adding 0 would turn -0 into +0, which sorts differently.
  return key.offset ? v + key.offset : v;
}

/** A page of merged entries: for each, its run and its position within the run. */
export interface MergedPage {
  run: Uint32Array;
  pos: Uint32Array;
}
