/**
 * Which documents make the page `[from, from + size)`, before anything is fetched.
 *
 * Sorted pages (`paging: sorted_runs`, the default) read every segment's sorted run from the run
 * cache; the merge places each run's head at rank `from` by rank selection and emits `size`
 * entries, so the cost is O(R log N + size log R) for R runs of N documents at any depth. A segment
 * without a run is sorted whole as part of the request when the page reaches deep into it (a sort
 * costs what Elasticsearch's top `from + size` costs there), and otherwise answers by top-k while
 * its run is built between requests. When the documents a deep page would sort that way are many
 * (a new sort over a large index), the page is found by pivots instead (pivot-page.ts), with every
 * missing run built between requests. `paging: top_k` is Elasticsearch's algorithm: every segment's
 * top `from + size` by top-k (after a position, its top `size` after it, found by a scan), all merged
 * at the coordinator; it reads no sorted run and builds none.
 *
 * Unsorted pages (match_all by `_score`: every hit ties) are shard order, then ordinal order: whole
 * segments are skipped by their live counts.
 */
import type { Column, KeyOrder, RunKey, WasmKernels } from '../../core/index.ts';
import { countThrough, segmentPosition, type AfterKey } from './after.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { layOutMerge, mergeLaidOut, mergePage, type MergeInput, type PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import { inSlice, orderName } from './order-key.ts';
import { pivotPage } from './pivot-page.ts';
import { topLive } from './query-phase.ts';
import type { Paging } from './request.ts';
import type { RunCache } from './runs/run-cache.ts';
import { gather, runSpec, SortedRun, topPositionsAfter, type RunSpec } from './runs/sorted-run.ts';
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
  if (paging === 'sorted_runs' && !after) {
    const page = pivotedPage(segments, plan, from, size, runs);
    if (page) return page;
  }
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

/**
 * A page of a sort that many documents have no run for yet: found by pivots, with every missing run
 * left to be built between requests; undefined when the segments are better sorted now (few
 * documents to sort, a slice, or a window pivots cannot keep small). What the page would sort
 * otherwise is, per segment without a run, all of it when the page reaches deep into it, else the
 * top-k's share, plus what a top-k call costs beyond its entries ({@link SEGMENT_COST}): many
 * segments of a shallow page add up (at 32 shards, 282 segments, a cold page at `from` 100 took
 * 11.6 ms by top-k, 1,000 took 27 ms; by pivots 4–8 ms).
 */
/** A top-k call's cost beyond its entries (the column placed in wasm memory, the call, the gathers), in documents sorted. */
const SEGMENT_COST = 256;

function pivotedPage(segments: readonly SegmentRef[], plan: SortPlan, from: number, size: number, runs: RunCache): PageEntry[] | undefined {
  let unsorted = 0;
  const missing: SegmentRef[] = [];
  for (const segment of segments) {
    const { live } = segment;
    if (segment.only) return undefined;
    const liveCount = live.segment.count - live.deletedCount;
    if (liveCount === 0 || runs.has(live, plan.runKey)) continue;
    missing.push(segment);
    unsorted += Math.min(liveCount, (from + size) * SORT_WHOLE_RATIO) + SEGMENT_COST;
  }
  if (unsorted === 0 || unsorted < runs.pivotMinDocs) return undefined;
  const page = pivotPage(segments, plan, from, size, runs);
  if (page) for (const { live } of missing) runs.schedule(live, plan.runKey, (kernels) => SortedRun.build(kernels, live, runSpec(plan.keys, live)));
  return page;
}

/**
 * Elasticsearch's per-segment collection after a position, as Lucene's top-field collector does it:
 * one pass over the segment's live documents (a slice's part of them) keeping the best `size` that
 * come after the position, by the top-k kernel with the position as a floor (a document before it
 * costs one SIMD compare, as one past the page's worst does). The position is read into the
 * segment's own key space: a keyword's global ordinal becomes its local one (or halfway between two),
 * a `_doc` value loses the segment's offset. Ties go to the lower position.
 */
function topLiveAfter(kernels: WasmKernels, spec: RunSpec, { live, only }: SegmentRef, size: number, keys: readonly RunKey<Column>[], order: readonly KeyOrder[], after: AfterKey): Uint32Array {
  const position = segmentPosition(after, keys, order, spec.keys.map((key) => key.order));
  const top = (spec: RunSpec, n: number, k: number) => topPositionsAfter(kernels, spec, n, k, position);
  if (only) {
    const { docs } = only;
    const gathered: RunSpec = { keys: spec.keys.map(({ column, order }) => ({ column: gather(column, docs), order })) };
    const picked = top(gathered, docs.length, Math.min(size, docs.length));
    for (let i = 0; i < picked.length; i++) picked[i] = docs[picked[i]];
    return picked;
  }
  const n = live.segment.count;
  // At most deletedCount of the first size + deletedCount can be deleted, so `size` live ones remain among them.
  const picked = top(spec, n, Math.min(n, size + live.deletedCount));
  const deleted = live.deleted;
  if (!deleted) return picked.length > size ? picked.subarray(0, size) : picked;
  const out: number[] = [];
  for (let i = 0; i < picked.length && out.length < size; i++) if (!deleted[picked[i]]) out.push(picked[i]);
  return Uint32Array.from(out);
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
