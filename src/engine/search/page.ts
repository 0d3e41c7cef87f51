/**
 * Which documents make the page `[from, from + size)`, before anything is fetched.
 *
 * Sorted pages (`paging: sorted_runs`, the default) read every segment's sorted run from the run
 * cache; the merge places each run's head at rank `from` by rank selection and emits `size`
 * entries, so the cost is O(R log N + size log R) for R runs of N documents at any depth. A segment
 * without a run is sorted whole as part of the request when the page reaches deep into it (a sort
 * costs what Elasticsearch's top `from + size` costs there), and otherwise answers by top-k while
 * its run is built between requests. `paging: top_k` is Elasticsearch's algorithm: every segment's
 * top `from + size` by top-k (after a position, its top `size` after it, found by a scan), all merged
 * at the coordinator; it reads no sorted run and builds none.
 *
 * Unsorted pages (match_all by `_score`: every hit ties) are shard order, then ordinal order: whole
 * segments are skipped by their live counts.
 */
import { compareValues, runValue, type Column, type KeyOrder, type RunKey, type WasmKernels } from '../../core/index.ts';
import { compareToAfter, countThrough, views, type AfterKey } from './after.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { layOutMerge, mergeLaidOut, mergePage, type MergeInput, type PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import { inSlice, orderName } from './order-key.ts';
import { topLive } from './query-phase.ts';
import type { Paging } from './request.ts';
import type { RunCache } from './runs/run-cache.ts';
import { gather, runSpec, SortedRun, topPositions, type RunSpec } from './runs/sorted-run.ts';
import { docKey } from './sort/doc-key.ts';
import type { SortPlan } from './sort/key.ts';
import { upperBound } from '../binary-search.ts';

/**
 * A page reaching this deep into a segment (want × ratio ≥ its live documents) sorts it whole at
 * once. From half the segment on, top-k selects half of it and sorts that, which is about what a
 * whole sort costs, so the run costs what Elasticsearch's top `from + size` costs there; a
 * shallower page answers by top-k and leaves the run to be built between requests.
 */
export const SORT_WHOLE_RATIO = 2;

/**
 * @param shared the same `segments` serve every search of their snapshot: a merge of nothing but
 *   runs is laid out once for them (coordinator.ts), and later pages of the sort reuse it while the
 *   run cache frees nothing.
 */
export function sortedPage(segments: readonly SegmentRef[], plan: SortPlan, from: number, size: number, paging: Paging, runs: RunCache, after?: AfterKey, shared = false): PageEntry[] {
  const reusable = shared && paging === 'sorted_runs' && !after;
  const laidOut = reusable ? runs.laidOut(segments, plan.runKey) : undefined;
  if (laidOut) return mergeLaidOut(runs.kernels, laidOut, from, size);
  const want = from + size;
  const order = plan.order();
  const inputs: MergeInput[] = [];
  /** The run of each input, while every input is one. */
  const kept: SortedRun[] = [];
  let skipped = 0;
  for (const segment of segments) {
    const { live, only } = segment;
    const liveCount = only ? only.docs.length : live.segment.count - live.deletedCount;
    if (liveCount === 0) continue;
    // A slice's part of a segment keeps a run of its own, of its documents only.
    const runKey = only ? inSlice(plan.runKey, only.name) : plan.runKey;
    const make = (kernels: WasmKernels) => (only ? sliceRun(kernels, live, only.docs, runSpec(plan.keys, live)) : SortedRun.build(kernels, live, runSpec(plan.keys, live)));
    if (paging === 'sorted_runs') {
      let run = runs.get(live, runKey);
      // After a position, the page may lie anywhere in the segment: its run is what finds it.
      if (!run && (after || want * SORT_WHOLE_RATIO >= liveCount)) run = runs.add(live, runKey, make);
      if (run) {
        // Keys read as stored (numbers) need no per-search map or offset: the run's own shape serves.
        const shape = plan.asStored ? run.shape() : { length: run.length, keys: run.keys.map((values, j) => ({ values, ...plan.keys[j].readAs(segment, runs) })) };
        if (after) skipped += countThrough(shape, order, after);
        inputs.push({ segment, run: shape, positions: run.positions });
        kept.push(run);
        continue;
      }
      runs.schedule(live, runKey, make);
    }
    const readAs = plan.keys.map((key) => key.readAs(segment, runs));
    const spec = runSpec(plan.keys, live);
    const locals = after ? topLiveAfter(runs.kernels, spec, segment, size, spec.keys.map(({ column }, j) => ({ values: column, ...readAs[j] })), order, after) : topLive(runs.kernels, spec, live, want, only?.docs);
    const keys: RunKey<Column>[] = spec.keys.map(({ column }, j) => ({ values: gather(column, locals), ...readAs[j] }));
    inputs.push({ segment, run: { length: locals.length, keys }, positions: locals });
  }
  const merge = reusable && kept.length === inputs.length ? layOutMerge(runs.kernels, inputs, order) : undefined;
  if (!merge) return mergePage(runs.kernels, inputs, order, after ? skipped : from, size);
  runs.keepLaidOut(segments, plan.runKey, kept, merge);
  return mergeLaidOut(runs.kernels, merge, from, size);
}

/** Pages up to this size, and a sixteenth of the documents scanned, are collected in a heap; larger ones (a walk's batches) by the kernel. */
const HEAP_PAGE = 1024;
const HEAP_SHARE = 16;

/**
 * Elasticsearch's per-segment collection after a position, as Lucene's top-field collector does it:
 * one pass over the segment's live documents (a slice's part of them). A page of up to
 * {@link HEAP_PAGE} (and a small share of the documents) keeps the best `size` that come after the position in a bounded heap, a document
 * first compared with the heap's worst so that most are passed over at once; a larger one gathers
 * every document after the position and takes the top `size` by the kernel. Both decide most
 * documents on the first key alone, read straight from its column. Ties go to the lower position.
 */
function topLiveAfter(kernels: WasmKernels, spec: RunSpec, { live, only }: SegmentRef, size: number, keys: readonly RunKey<Column>[], order: KeyOrder[], after: AfterKey): Uint32Array {
  if (size === 0) return new Uint32Array(0);
  const n = live.segment.count;
  const whole = views({ length: n, keys: [...keys] });
  const first = whole.keys[0];
  // A first key read as stored (no ordinal map, no offset), with a position on it, is compared straight from its column.
  const direct = first.map === undefined && !first.offset && after.values.length > 0 ? (first.values instanceof Float64Array ? first.values : Float64Array.from(first.values)) : undefined;
  const bound = after.values.length > 0 ? after.values[0] : NaN;
  const ascending = order[0].order === 'asc';
  /** > 0 when document p comes after the position. */
  const afterPosition = (p: number): number => compareToAfter(whole, order, after, p);
  /** Whether document p sorts after document q. */
  const worse = (p: number, q: number): boolean => {
    if (direct) {
      // Two first-key values, neither missing nor equal: the direction decides.
      const [a, b] = [direct[p], direct[q]];
      if (a === a && b === b && a !== b) return ascending ? a > b : a < b;
    }
    for (let j = 0; j < order.length; j++) {
      const c = compareValues(runValue(whole, j, p), runValue(whole, j, q), order[j].order, order[j].missing);
      if (c !== 0) return c > 0;
    }
    return p > q;
  };
  const docs = only?.docs;
  const deleted = live.deleted;
  const total = docs ? docs.length : n;
  if (size > HEAP_PAGE || size * HEAP_SHARE > total) {
    const found = new Uint32Array(total);
    let count = 0;
    for (let i = 0; i < total; i++) {
      const p = docs ? docs[i] : i;
      if (!docs && deleted?.[p]) continue;
      if (direct) {
        const v = direct[p];
        // Neither missing nor equal to the position's value: the direction decides (the rest take the full comparison).
        if (v === v && bound === bound && v !== bound) {
          if (ascending ? v > bound : v < bound) found[count++] = p;
          continue;
        }
      }
      if (afterPosition(p) > 0) found[count++] = p;
    }
    const locals = found.subarray(0, count);
    const gathered: RunSpec = { keys: spec.keys.map(({ column, order }) => ({ column: gather(column, locals), order })) };
    return topPositions(kernels, gathered, count, Math.min(size, count)).map((i) => locals[i]);
  }
  const heap = new Uint32Array(size);
  let count = 0;
  /** The heap's worst document's first key, when it is full and the key is direct and present. */
  let worst = NaN;
  for (let i = 0; i < total; i++) {
    const p = docs ? docs[i] : i;
    if (!docs && deleted?.[p]) continue;
    if (direct) {
      const v = direct[p];
      if (v === v && bound === bound && v !== bound && (ascending ? v < bound : v > bound)) continue;
      // Strictly worse than the heap's worst on the first key: passed over.
      if (v === v && worst === worst && v !== worst && (ascending ? v > worst : v < worst)) continue;
    }
    if (count === size && !worse(heap[0], p)) continue;
    if (afterPosition(p) <= 0) continue;
    if (count < size) {
      // Sift up: the worst stays at the root.
      let at = count++;
      heap[at] = p;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at], heap[parent])) break;
        [heap[at], heap[parent]] = [heap[parent], heap[at]];
        at = parent;
      }
    } else {
      heap[0] = p;
      for (let at = 0; ; ) {
        const l = 2 * at + 1;
        const r = l + 1;
        let top = at;
        if (l < count && worse(heap[l], heap[top])) top = l;
        if (r < count && worse(heap[r], heap[top])) top = r;
        if (top === at) break;
        [heap[at], heap[top]] = [heap[top], heap[at]];
        at = top;
      }
    }
    if (direct && count === size) worst = direct[heap[0]];
  }
  return Uint32Array.from(heap.subarray(0, count)).sort((a, b) => (a === b ? 0 : worse(a, b) ? 1 : -1));
}

export function unsortedPage(segments: readonly SegmentRef[], from: number, size: number, paging: Paging, runs: RunCache): PageEntry[] {
  const page: PageEntry[] = [];
  let skip = from;
  for (const segment of segments) {
    if (page.length === size) break;
    const { live, only } = segment;
    const liveCount = only ? only.docs.length : live.segment.count - live.deletedCount;
    if (skip >= liveCount) {
      skip -= liveCount;
      continue;
    }
    const take = Math.min(liveCount - skip, size - page.length);
    const positions = only ? only.docs : live.deletedCount > 0 ? livePositions(live, paging, runs) : undefined;
    const { target, shard } = segment;
    for (let i = skip; i < skip + take; i++) page.push({ target, shard, live, local: positions ? positions[i] : i });
    skip = 0;
  }
  return page;
}

/**
 * Where a position falls in the layout order (shard order, then ordinal): how many live documents
 * come at or before it. The order's only key is `_shard_doc` ascending, whose value is the shard's
 * place above the ordinal, so whole segments are counted by their ranges.
 */
export function layoutRank(segments: readonly SegmentRef[], plan: SortPlan, after: AfterKey, paging: Paging, runs: RunCache): number {
  let rank = 0;
  const [value] = after.values;
  for (const segment of segments) {
    const { live, only } = segment;
    const liveCount = only ? only.docs.length : live.segment.count - live.deletedCount;
    // A `_score` value decided for every hit (or the position is missing: after everything).
    if (value === undefined || Number.isNaN(value)) {
      if (value === undefined && after.tie > 0) return 0;
      rank += liveCount;
      continue;
    }
    const first = plan.keys[0].readAs(segment, runs).offset ?? 0;
    const through = Math.floor(value - first); // the last position at or before the value
    if (through < 0) break;
    if (only) {
      rank += upperBound(only.docs, through);
      if (through < live.segment.count - 1) break;
      continue;
    }
    if (through >= live.segment.count - 1 || live.deletedCount === 0) {
      rank += Math.min(liveCount, through + 1);
      if (through < live.segment.count - 1) break;
      continue;
    }
    rank += upperBound(livePositions(live, paging, runs), through);
    break;
  }
  return rank;
}

/** The segment's live positions in order: its `_doc` run, or with `top_k` paging a scan of its deletes. */
function livePositions(live: LiveSegment, paging: Paging, runs: RunCache): Uint32Array {
  if (paging === 'top_k') {
    const { deleted } = live;
    const out = new Uint32Array(live.segment.count - live.deletedCount);
    for (let p = 0, i = 0; p < live.segment.count; p++) if (!deleted?.[p]) out[i++] = p;
    return out;
  }
  const keys = [docKey('asc')];
  const key = orderName(keys.map((k) => k.id));
  return (runs.get(live, key) ?? runs.build(live, key, runSpec(keys, live))).positions.view;
}

/** The run of a slice's part of a segment: its documents only, sorted. */
function sliceRun(kernels: WasmKernels, live: LiveSegment, docs: Uint32Array, spec: RunSpec): SortedRun {
  const gathered: RunSpec = { keys: spec.keys.map(({ column, order }) => ({ column: gather(column, docs), order })) };
  return SortedRun.ofMatches(kernels, live, docs, gathered, undefined);
}
