/**
 * A page of a sort that the segments have no sorted runs for yet, found without sorting them.
 *
 * Pivots on the first key, read from a sample of its values, split every live document into those
 * that sort before the page, a window that holds it, and those after it: one pass of the
 * `countBetween` kernel over every segment's column (copies the run cache keeps in wasm memory). The
 * window is cut down with a histogram of its own values, then sorted by one top-k over every key
 * and read at the rank the documents before it leave. The window holds a few percent of the
 * documents at worst (a page halfway down), and almost none near either end; a first key with few
 * values can make it the whole tie that holds the page, and when that is more than
 * {@link MAX_WINDOW_SHARE} of the documents the caller sorts the segments instead.
 *
 * The window itself ({@link pivotWindow}) is found over any parts whose first-key values are in any
 * order: the segments' columns here, a scored query's match scores in query-page.ts.
 *
 * Exact on any values: the kernel splits in the kernels' own order (keywords through their global
 * ordinals, `_doc` with its offset, the run rule of core/order.ts `runValue`), with the window's ends
 * included, and the cut by histogram only ever keeps equal values together. Missing values are in
 * no window (unless a value stands in for them): a page among them is left to the caller.
 */
import { MAX_KEYS, reference, runValue, WasmArray, type Column, type KeyOrder, type Run, type RunKey, type WasmKernels } from '../../core/index.ts';
import type { PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import type { RunCache } from './runs/run-cache.ts';
import { gather } from './runs/sorted-run.ts';
import type { SortKeySource, SortPlan } from './sort/key.ts';

/**
 * A first-key value (as it compares across segments) as a number whose ascending order is the key's
 * order: negated when descending; a missing one (NaN) as its stand-in value, or NaN when none.
 */
function signedKey(order: KeyOrder): (value: number) => number {
  const sign = order.order === 'desc' ? -1 : 1;
  const stand = typeof order.missing === 'number' && !Number.isNaN(order.missing) ? order.missing : NaN;
  return (value) => sign * (value !== value ? stand : value);
}

/** Sample size for the pivots: the window's expected share is about 6/√(this) of the documents halfway down. */
export const PIVOT_SAMPLE = 8192;
/** The largest share of the documents the window may hold before the caller sorts the segments instead. */
export const MAX_WINDOW_SHARE = 0.25;

/**
 * Entries in any order whose first-key values split into a window: one part per segment, its values
 * by position as the kernels read them (map, then offset), and its deleted positions, left out.
 */
export interface PivotPart {
  length: number;
  key: RunKey<Column>;
  deleted?: Uint8Array;
  deletedCount: number;
}

/** A window of the parts' order that holds a page: found by {@link pivotWindow}. */
export interface PivotWindow extends Window {
  /** The page's ranks within the window's order. */
  start: number;
  stop: number;
}

function readerRun(segment: SegmentRef, keys: readonly SortKeySource[], runs: RunCache): Run<ArrayLike<number>> {
  return {
    length: segment.live.segment.count,
    keys: keys.map((key) => {
      const { map, offset } = key.readAs(segment, runs);
      return { values: key.column(segment.live), map: map && viewOf(map), offset };
    }),
  };
}

/**
 * The page `[from, from + size)` of the merged order of `segments` (none of them a slice's part), or
 * undefined when the window around it would be too large or missed it twice (a page among missing
 * values, which the window never holds).
 */
export function pivotPage(segments: readonly SegmentRef[], plan: SortPlan, from: number, size: number, runs: RunCache): PageEntry[] | undefined {
  const key = plan.keys[0];
  const parts = segments.map(({ live }, s): PivotPart => ({
    length: live.segment.count,
    key: { values: runs.column(live.segment, key.columnId, () => key.column(live)), ...key.readAs(segments[s], runs) },
    deleted: live.deleted,
    deletedCount: live.deletedCount,
  }));
  const window = pivotWindow(parts, plan.order()[0], from, size, runs.kernels);
  return window && pageOf(segments, plan, runs, window, window.start, window.stop);
}

/**
 * The window of the parts' order around ranks [from, from + size) (past the end: an empty one), or
 * undefined when it would be too large or missed the page twice (a page among missing values, which
 * no window holds).
 */
export function pivotWindow(parts: readonly PivotPart[], order: KeyOrder, from: number, size: number, kernels: WasmKernels): PivotWindow | undefined {
  const total = parts.reduce((n, part) => n + part.length - part.deletedCount, 0);
  if (from >= total || size === 0) return { before: total, between: 0, docs: parts.map(() => new Uint32Array(0)), values: new Float64Array(0), start: 0, stop: 0 };
  const sample = sampleKeys(parts, order, total, kernels);
  if (sample.keys.length === 0) return undefined;
  const end = Math.min(from + size, total);
  for (const widen of [1, 4]) {
    const [low, high] = pivots(sample, order, total, from, end, widen);
    const window = windowOf(parts, order, kernels, low, high);
    if (window.between > Math.max(4096, total * MAX_WINDOW_SHARE)) return undefined;
    if (window.before > from || window.before + window.between < end) continue;
    const narrow = narrowed(order, window, from, end);
    return { ...narrow, start: from - narrow.before, stop: end - narrow.before };
  }
  return undefined;
}

/** The comparable values (the run rule: map, then offset) of the first key at random live positions, spread over the segments by size; and how many were drawn. */
function sampleKeys(parts: readonly PivotPart[], order: KeyOrder, total: number, kernels: WasmKernels): { keys: Float64Array; drawn: number } {
  const keys = new Float64Array(PIVOT_SAMPLE + parts.length);
  const signed = signedKey(order);
  let drawn = 0, s = 0;
  let seed = 0x9e3779b9;
  for (const part of parts) {
    const n = part.length;
    if (n === 0) continue;
    const deleted = part.deletedCount > 0 ? part.deleted : undefined;
    const run = { length: n, keys: [viewsOf(part.key)] };
    const take = Math.ceil((PIVOT_SAMPLE * (n - part.deletedCount)) / Math.max(1, total));
    for (let i = 0; i < take; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const p = (seed >>> 0) % n;
      if (deleted !== undefined && deleted[p] === 1) continue;
      drawn++;
      const k = signed(runValue(run, 0, p));
      if (k === k) keys[s++] = k;
    }
  }
  // Sorted by the top-k kernel (a radix sort at k = n): TypedArray.prototype.sort is far slower here.
  const drawnKeys = keys.subarray(0, s);
  const ranked = kernels.topK([{ values: drawnKeys, order: 'asc' }], s, s);
  const sorted = new Float64Array(s);
  for (let i = 0; i < s; i++) sorted[i] = drawnKeys[ranked[i]];
  return { keys: sorted, drawn };
}

/**
 * Two values of the first key around ranks [from, end): the sample's values at those ranks' shares
 * of the present keys, a margin of three standard deviations (times `widen`) further out, or open
 * (±Infinity) past its ends. Missing values are in no window: the sample tells how many there are.
 */
function pivots({ keys, drawn }: { keys: Float64Array; drawn: number }, order: KeyOrder, total: number, from: number, end: number, widen: number): [number, number] {
  const s = keys.length;
  const sign = order.order === 'desc' ? -1 : 1;
  const presentShare = s / Math.max(1, drawn);
  const missingAhead = order.missing === '_first' ? total * (1 - presentShare) : 0;
  const share = (rank: number) => Math.min(1, Math.max(0, (rank - missingAhead) / Math.max(1, total * presentShare)));
  const margin = (q: number) => Math.ceil(widen * (3 * Math.sqrt(s * Math.max(q * (1 - q), 1 / s)) + 2));
  const lowIndex = Math.floor(share(from) * s) - margin(share(from));
  const highIndex = Math.ceil(share(end) * s) + margin(share(end));
  const low = lowIndex < 0 ? -Infinity : keys[lowIndex];
  const high = highIndex >= s ? Infinity : keys[highIndex];
  return [sign * low, sign * high];
}

interface Window {
  /** Live entries of every part that sort before the window. */
  before: number;
  /** Live entries in the window. */
  between: number;
  /** Per part, the positions of its live entries in the window, ascending. */
  docs: Uint32Array[];
  /** Their first-key values as they compare across segments, segment after segment (NaN: missing). */
  values: Float64Array;
}

/** One pass of the kernel over every part's first-key values (in wasm memory when kept there): the live entries before `low`, and those from it through `high`. */
function windowOf(parts: readonly PivotPart[], order: KeyOrder, kernels: WasmKernels, low: number, high: number): Window {
  const columns: Run<Column>[] = parts.map((part) => ({ length: part.length, keys: [part.key] }));
  const split = kernels.countBetween({ order: [order], runs: columns }, low, high);
  // The pass counts deleted entries too: the same pass over them alone takes them back out.
  const withDeletes = parts.flatMap((part, s) => (part.deletedCount > 0 ? [s] : []));
  const gone = new Map<number, { before: number; between: number }>();
  if (withDeletes.length > 0) {
    const deletedRuns: Run<Column>[] = withDeletes.map((s) => {
      const part = parts[s];
      const positions = deletedPositions(part.deleted!, part.length);
      const { values, map, offset } = part.key;
      return { length: positions.length, keys: [{ values: gather(viewOf(values), positions), map, offset }] };
    });
    const deleted = kernels.countBetween({ order: [order], runs: deletedRuns }, low, high);
    withDeletes.forEach((s, i) => gone.set(s, { before: deleted.before[i], between: deleted.between[i] }));
  }
  let before = 0, between = 0, at = 0;
  const docs: Uint32Array[] = [];
  const values: number[] | undefined = gone.size > 0 ? [] : undefined;
  for (let s = 0; s < parts.length; s++) {
    const all = split.positions.subarray(at, at + split.between[s]);
    const deleted = parts[s].deleted;
    const removed = gone.get(s);
    before += split.before[s] - (removed?.before ?? 0);
    const live = removed ? all.filter((p) => deleted![p] !== 1) : all;
    if (values) for (let i = 0; i < all.length; i++) if (!removed || deleted![all[i]] !== 1) values.push(split.values[at + i]);
    at += split.between[s];
    between += live.length;
    docs.push(live);
  }
  return { before, between, docs, values: values ? Float64Array.from(values) : split.values };
}

/** Buckets of the window's values when it is cut down ({@link narrowed}). */
const NARROW_BUCKETS = 256;

/**
 * The window cut down around ranks [from, end), read from its own documents: their first-key values
 * go into equal-width buckets between the least and the greatest (one pass, no branch on the
 * values); the buckets that hold those ranks stay, those below join the documents before it, those
 * above leave it. A value's bucket never decreases as the value grows, and equal values (-0 and +0
 * too) share one, so the cut is exact in the kernels' order. Left as it is when small already, or
 * when its values span no finite width (all equal, or infinite).
 */
function narrowed(order: KeyOrder, window: Window, from: number, end: number): Window {
  if (window.between <= 4 * (end - from) + 64) return window;
  const signed = signedKey(order);
  const keys = new Float64Array(window.between);
  let least = Infinity, most = -Infinity;
  for (let i = 0; i < keys.length; i++) {
    const v = window.values[i];
    const k = signed(v);
    keys[i] = k;
    least = Math.min(least, k);
    most = Math.max(most, k);
  }
  const scale = NARROW_BUCKETS / (most - least);
  if (!(most > least) || !Number.isFinite(scale) || !Number.isFinite(most - least)) return window;
  const buckets = new Uint8Array(keys.length);
  const counts = new Uint32Array(NARROW_BUCKETS);
  for (let i = 0; i < keys.length; i++) {
    const b = Math.min(NARROW_BUCKETS - 1, ((keys[i] - least) * scale) | 0);
    buckets[i] = b;
    counts[b]++;
  }
  // The buckets holding ranks from and end - 1 of the window, and what lies below the first.
  let below = 0, first = 0;
  while (below + counts[first] <= from - window.before) below += counts[first++];
  let upTo = below, last = first;
  while (upTo + counts[last] < end - window.before) upTo += counts[last++];
  // Typed arrays as large as the window, cut to what is kept.
  let between = 0, e = 0;
  const values = new Float64Array(window.between);
  const docs = window.docs.map((all) => {
    const kept = new Uint32Array(all.length);
    let k = 0;
    for (let i = 0; i < all.length; i++, e++) {
      const b = buckets[e];
      if (b < first || b > last) continue;
      kept[k++] = all[i];
      values[between++] = window.values[e];
    }
    return kept.subarray(0, k);
  });
  return { before: window.before + below, between, docs, values: values.subarray(0, between) };
}

function deletedPositions(deleted: Uint8Array, n: number): Uint32Array {
  const out: number[] = [];
  for (let p = 0; p < n; p++) if (deleted[p] === 1) out.push(p);
  return Uint32Array.from(out);
}

/**
 * Entries [start, stop) of the window's order: its documents, segment after segment in position
 * order, with every key read as it compares across segments, sorted by one top-k of `stop` whose
 * ties go to the earlier entry, which is the merge's tie-break (segment order, then position).
 */
export function pageOf(segments: readonly SegmentRef[], plan: SortPlan, runs: RunCache, window: { between: number; docs: Uint32Array[] }, start: number, stop: number): PageEntry[] {
  const n = window.between;
  const segmentOf = new Uint32Array(n), positions = new Uint32Array(n);
  const keys = plan.keys.map(() => new Float64Array(n));
  let e = 0;
  for (let s = 0; s < segments.length; s++) {
    const docs = window.docs[s];
    if (docs.length === 0) continue;
    const run = readerRun(segments[s], plan.keys, runs);
    for (const p of docs) {
      segmentOf[e] = s;
      positions[e] = p;
      for (let j = 0; j < keys.length; j++) keys[j][e] = runValue(run, j, p);
      e++;
    }
  }
  const order = plan.order();
  const sortKeys = keys.map((values, j) => ({ values, ...order[j] }));
  const top = sortKeys.length <= MAX_KEYS ? runs.kernels.topK(sortKeys, n, stop) : reference.topK(sortKeys, n, stop);
  const page: PageEntry[] = [];
  for (let i = start; i < top.length; i++) {
    const { target, shard, live } = segments[segmentOf[top[i]]];
    page.push({ target, shard, live, local: positions[top[i]] });
  }
  return page;
}

const viewOf = (column: Column): Float64Array => (column instanceof WasmArray ? column.view : column);

/** A run key with plain views of its arrays, for core/order.ts `runValue`. */
const viewsOf = ({ values, map, offset }: RunKey<Column>): RunKey<ArrayLike<number>> => ({ values: viewOf(values), map: map && viewOf(map), offset });
