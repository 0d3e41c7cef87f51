/**
 * A deep page of a sort that the segments have no sorted runs for yet, found without sorting them.
 *
 * Pivots on the first key, read from a sample of its values, split every live document into those
 * that sort before the page, a window that holds the page, and those after it, in one pass over the
 * key's column per segment that also collects the window. Only the window is then sorted (each
 * segment's part by top-k) and merged at the rank the documents before it leave, as top-k
 * candidates are merged. The window holds a few percent of the documents at worst (a page halfway
 * down), and almost none near either end; a first key with few values can make it the whole tie
 * that holds the page, and when that is more than {@link MAX_WINDOW_SHARE} of the documents the
 * caller sorts the segments instead.
 *
 * Exact on any values: the pass compares values as they compare across segments (keywords through
 * their global ordinals, `_doc` with its offset), with the window's ends included, so everything
 * counted before the window sorts strictly before it and everything after it strictly after, -0
 * and +0 included (they compare equal here, and both fall in the window together); the order inside
 * the window is the kernels' own. Missing values sit in a block at one end (or stand in as their
 * value): a page that reaches into that block is left to the caller.
 */
import type { Column, RunKey, WasmKernels } from '../../core/index.ts';
import { WasmArray } from '../../core/index.ts';
import { mergePage, type MergeInput, type PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import { topLive } from './query-phase.ts';
import type { RunCache } from './runs/run-cache.ts';
import { gather, runSpec } from './runs/sorted-run.ts';
import type { SortPlan } from './sort/key.ts';

/** Sample size for the pivots: the window's expected share is about 6/√(this) of the documents halfway down. */
export const PIVOT_SAMPLE = 8192;
/** The largest share of the documents the window may hold before the caller sorts the segments instead. */
export const MAX_WINDOW_SHARE = 0.25;

/** One segment's first key as the pass reads it. */
interface KeyReader {
  segment: SegmentRef;
  column: Float64Array;
  map: ArrayLike<number> | undefined;
  offset: number;
}

/**
 * The page `[from, from + size)` of the merged order of `segments` (none of them a slice's part), or
 * undefined when the window around it would be too large or the page reaches into missing values.
 */
export function pivotPage(segments: readonly SegmentRef[], plan: SortPlan, from: number, size: number, runs: RunCache): PageEntry[] | undefined {
  const order = plan.order();
  const first = order[0];
  const sign = first.order === 'desc' ? -1 : 1;
  const stand = typeof first.missing === 'number' && !Number.isNaN(first.missing) ? sign * first.missing : undefined;
  const missingFirst = first.missing === '_first';
  const readers: KeyReader[] = segments.map((segment) => {
    const { map, offset } = plan.keys[0].readAs(segment, runs);
    return { segment, column: plan.keys[0].column(segment.live), map: map && viewOf(map), offset: offset ?? 0 };
  });
  const total = segments.reduce((n, { live }) => n + live.segment.count - live.deletedCount, 0);
  if (from >= total || size === 0) return [];
  const sample = sampleKeys(readers, sign, stand, total);
  for (const widen of [1, 4]) {
    const window = windowOf(sample, readers, sign, stand, missingFirst, total, from, size, widen);
    if (window === 'too large' || window === 'missing') return undefined;
    if (window === 'missed') continue;
    const inputs: MergeInput[] = [];
    for (let s = 0; s < readers.length; s++) {
      const docs = window.docs[s];
      if (docs.length === 0) continue;
      const segment = readers[s].segment;
      const spec = runSpec(plan.keys, segment.live);
      const sorted = topLive(runs.kernels, spec, segment.live, docs.length, docs);
      const keys: RunKey<Column>[] = spec.keys.map(({ column }, j) => ({ values: gather(column, sorted), ...plan.keys[j].readAs(segment, runs) }));
      inputs.push({ segment, run: { length: sorted.length, keys }, positions: sorted });
    }
    return mergePage(runs.kernels, inputs, order, from - window.before, size);
  }
  return undefined;
}

/** The present keys of live documents at random positions spread over the segments by size, ascending; and how many live documents were drawn. */
function sampleKeys(readers: readonly KeyReader[], sign: number, stand: number | undefined, total: number): { keys: Float64Array; drawn: number } {
  const keys = new Float64Array(PIVOT_SAMPLE + readers.length);
  let drawn = 0, s = 0;
  let seed = 0x9e3779b9;
  for (const reader of readers) {
    const { live } = reader.segment;
    const n = live.segment.count;
    const deleted = live.deletedCount > 0 ? live.deleted : undefined;
    const take = Math.ceil((PIVOT_SAMPLE * (n - live.deletedCount)) / Math.max(1, total));
    for (let i = 0; i < take; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const p = (seed >>> 0) % n;
      if (deleted !== undefined && deleted[p] === 1) continue;
      drawn++;
      const k = keyOf(reader, p, sign, stand);
      if (k === k) keys[s++] = k;
    }
  }
  return { keys: keys.subarray(0, s).sort(), drawn };
}

interface Window {
  /** Live documents of every segment that sort before the window. */
  before: number;
  /** Per segment, the positions of its documents in the window, ascending. */
  docs: Uint32Array[];
}

/**
 * One pass: the window whose pivots the sample puts around the page, `widen` times the usual margin
 * wide. 'missed' when the page turned out not to lie inside it (a rare sample; try wider).
 */
function windowOf({ keys: sample, drawn }: { keys: Float64Array; drawn: number }, readers: readonly KeyReader[], sign: number, stand: number | undefined, missingFirst: boolean, total: number, from: number, size: number, widen: number): Window | 'missed' | 'too large' | 'missing' {
  const s = sample.length;
  if (s === 0) return 'missing';
  // Where the page falls among the present keys, as a share of them; the sample tells how many are missing.
  const presentShare = s / Math.max(1, drawn);
  const missingAhead = missingFirst ? total * (1 - presentShare) : 0;
  const margin = (q: number) => Math.ceil(widen * (3 * Math.sqrt(s * Math.max(q * (1 - q), 1 / s)) + 2));
  const at = (rank: number) => Math.min(1, Math.max(0, (rank - missingAhead) / Math.max(1, total * presentShare)));
  const lowIndex = Math.floor(at(from) * s) - margin(at(from));
  const highIndex = Math.ceil(at(from + size) * s) + margin(at(from + size));
  const low = lowIndex < 0 ? -Infinity : sample[lowIndex];
  const high = highIndex >= s ? Infinity : sample[highIndex];
  const limit = Math.max(4096, Math.floor(total * MAX_WINDOW_SHARE));
  let before = 0, missing = 0, inside = 0;
  const docs: Uint32Array[] = [];
  const scratch = new Uint32Array(readers.reduce((n, { column }) => Math.max(n, column.length), 0));
  for (const reader of readers) {
    const { live } = reader.segment;
    const n = live.segment.count;
    const counts = stand === undefined ? countPlain(reader, n, sign, low, high, scratch) : countStandIn(reader, n, sign, stand, low, high, scratch);
    let { below, found } = counts;
    let absent = n - below - found - counts.above;
    const deleted = live.deleted;
    if (deleted !== undefined && live.deletedCount > 0) {
      // Take the deleted documents back out of the counts and the window.
      for (let p = 0; p < n; p++) {
        if (deleted[p] !== 1) continue;
        const k = keyOf(reader, p, sign, stand);
        if (k !== k) absent--;
        else if (k < low) below--;
      }
      let kept = 0;
      for (let i = 0; i < found; i++) if (deleted[scratch[i]] !== 1) scratch[kept++] = scratch[i];
      found = kept;
    }
    before += below;
    missing += absent;
    inside += found;
    if (inside > limit) return 'too large';
    docs.push(scratch.slice(0, found));
  }
  const missingBefore = missingFirst ? missing : 0;
  const end = Math.min(from + size, total);
  // The page must lie among the present keys, and within the window.
  if (from < missingBefore || end > missingBefore + total - missing) return 'missing';
  if (missingBefore + before > from || missingBefore + before + inside < end) return 'missed';
  return { before: missingBefore + before, docs };
}

/** The first key's comparable value at a position: signed so that smaller sorts first; NaN for missing unless a value stands in. */
function keyOf({ column, map, offset }: KeyReader, p: number, sign: number, stand: number | undefined): number {
  const x = column[p];
  if (x !== x) return stand ?? NaN;
  return sign * ((map === undefined ? x : map[x]) + offset);
}

interface Counts {
  below: number;
  above: number;
  /** Positions written to the scratch array: those in the window. */
  found: number;
}

/**
 * One segment's documents (deleted ones too) before `low`, after `high`, and the positions of those
 * between, written to `out`. Without branches on the values (`+(a < b)` compiles to a flag, where a
 * ternary would branch): a page halfway down splits them at random. A missing value (NaN) fails
 * every compare, so it counts in none of the three.
 */
function countPlain({ column, map, offset }: KeyReader, n: number, sign: number, low: number, high: number, out: Uint32Array): Counts {
  let below = 0, above = 0, found = 0;
  if (map === undefined) {
    for (let p = 0; p < n; p++) {
      const k = sign * (column[p] + offset);
      below += +(k < low);
      above += +(k > high);
      out[found] = p;
      found += +(k >= low) & +(k <= high);
    }
  } else {
    for (let p = 0; p < n; p++) {
      const k = sign * (map[column[p]] + offset);
      below += +(k < low);
      above += +(k > high);
      out[found] = p;
      found += +(k >= low) & +(k <= high);
    }
  }
  return { below, above, found };
}

/** {@link countPlain} where a value stands in for missing ones: they count where it does. */
function countStandIn(reader: KeyReader, n: number, sign: number, stand: number, low: number, high: number, out: Uint32Array): Counts {
  let below = 0, above = 0, found = 0;
  for (let p = 0; p < n; p++) {
    const k = keyOf(reader, p, sign, stand);
    if (k < low) below++;
    else if (k > high) above++;
    else out[found++] = p;
  }
  return { below, above, found };
}

const viewOf = (column: Column): ArrayLike<number> => (column instanceof WasmArray ? column.view : column);
