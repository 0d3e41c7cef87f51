/**
 * Documents whose value in a column lies in a closed interval [lo, hi] (numbers, dates as epoch
 * millis, keywords as the segment's ordinals): from the field's sorted run when the search keeps one
 * (two binary searches), else a pass over the column. Live documents only.
 */
import { lowerBound, upperBound } from '../binary-search.ts';
import { forEachValue, type FieldColumn } from '../segments/segment.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { NO_MATCHES, type Matches } from './matches.ts';

/**
 * A segment's live documents sorted by a numeric field: its values in that order and their
 * positions. Read through functions, when needed: wasm memory may grow, and move, between reads.
 */
export interface FieldRun {
  values(): Float64Array;
  positions(): Uint32Array;
}

/** Documents with a value of the numeric column in [lo, hi]: from the field's sorted run when kept (single-valued columns; asked for only then), else a scan. */
export function numbersBetween(column: FieldColumn, lo: number, hi: number, live: LiveSegment, sortedRun: () => FieldRun | undefined): Matches {
  const sorted = column.several === undefined ? sortedRun() : undefined;
  return sorted ? sortedBetween(sorted, column, live, lo, hi) : valuesBetween(column, lo, hi, live);
}

/**
 * Documents with a value in [lo, hi] from the field's sorted run of the snapshot (its deletes left
 * out): the entries between two binary searches (missing values, NaN, sort last and fail both
 * bounds). They are known at once, by count and by the column's value; listed in position order
 * only when read.
 */
function sortedBetween(sorted: FieldRun, column: FieldColumn, live: LiveSegment, lo: number, hi: number): Matches {
  if (!(lo <= hi)) return NO_MATCHES;
  const values = sorted.values();
  const a = lowerBound(values, lo);
  const b = upperBound(values, hi, a);
  const found = b - a;
  const count = live.segment.count;
  const { min } = column;
  const { deleted } = live;
  let docs: Uint32Array | undefined;
  return {
    known: {
      count: found,
      has: (doc) => min[doc] >= lo && min[doc] <= hi && !(deleted && deleted[doc] === 1),
      between: { values: min, lo, hi },
      // A copy: the run lives in wasm memory, whose views a later allocation may detach.
      unordered: () => sorted.positions().slice(a, b),
    },
    get docs() {
      return (docs ??= listBetween(sorted.positions(), a, b, count));
    },
  };
}

/** Positions[a, b) in ascending order: few are sorted, many are marked and read back in order. */
function listBetween(positions: Uint32Array, a: number, b: number, count: number): Uint32Array {
  const found = b - a;
  if (found * 16 < count) return positions.slice(a, b).sort();
  const marked = new Uint8Array(count);
  for (let i = a; i < b; i++) marked[positions[i]] = 1;
  // Without a branch (a mark is 0 or 1): one slot of room for the write past the last.
  const docs = new Uint32Array(found + 1);
  let at = 0;
  for (let doc = 0; doc < count; doc++) {
    docs[at] = doc;
    at += marked[doc];
  }
  return docs.subarray(0, found);
}

/** Documents with at least one value in [lo, hi] (a document with several values by any of them). */
export function valuesBetween(column: FieldColumn, lo: number, hi: number, live: LiveSegment): Matches {
  const { min, max, several } = column;
  if (!(lo <= hi)) return NO_MATCHES;
  const n = min.length;
  if (several === undefined) return singleValuesBetween(min, lo, hi, live);
  const docs = new Uint32Array(n);
  let found = 0;
  for (let doc = 0; doc < n; doc++) {
    if (max![doc] !== min[doc]) {
      let hit = false;
      forEachValue(column, doc, (value) => {
        hit ||= value >= lo && value <= hi;
      });
      if (hit) docs[found++] = doc;
      continue;
    }
    // A missing value (NaN, or ordinal -1 below any bound given as an ordinal) fails the test.
    const value = min[doc];
    if (value >= lo && value <= hi) docs[found++] = doc;
  }
  return { docs: docs.slice(0, found) };
}

/**
 * {@link valuesBetween} over a single-valued column, known by a count (live documents only) and a
 * test; listed only when read (a `_count`, or a conjunction that reads only the test, never lists
 * them). Both passes run without a branch per document (`+(test)` turns a comparison into 0 or 1
 * without one; a branch would mispredict at every match).
 */
function singleValuesBetween(values: Float64Array | Int32Array, lo: number, hi: number, { deleted }: LiveSegment): Matches {
  const n = values.length;
  let count = 0;
  if (deleted) for (let doc = 0; doc < n; doc++) count += +(values[doc] >= lo) & +(values[doc] <= hi) & (deleted[doc] ^ 1);
  else for (let doc = 0; doc < n; doc++) count += +(values[doc] >= lo) & +(values[doc] <= hi);
  let docs: Uint32Array | undefined;
  return {
    known: { count, has: (doc) => values[doc] >= lo && values[doc] <= hi && !(deleted && deleted[doc] === 1), between: { values, lo, hi } },
    get docs() {
      if (docs) return docs;
      // One slot of room for the write past the last match.
      const list = new Uint32Array(count + 1);
      let found = 0;
      if (deleted) {
        for (let doc = 0; doc < n; doc++) {
          list[found] = doc;
          found += +(values[doc] >= lo) & +(values[doc] <= hi) & (deleted[doc] ^ 1);
        }
      } else {
        for (let doc = 0; doc < n; doc++) {
          list[found] = doc;
          found += +(values[doc] >= lo) & +(values[doc] <= hi);
        }
      }
      return (docs = list.subarray(0, count));
    },
  };
}
