/**
 * The coordinator: the page `[from, from + size)` of the merged order of every segment's sorted
 * input, one call of the wasm merge (rank selection places each input's head at global rank `from`,
 * a loser tree emits `size` entries). An input is a segment's whole sorted run, or a prefix of its
 * order (top-k candidates); either way, positions map back to the segment. Inputs come in
 * tie-break order (sort/tie-break.ts).
 */
import { MAX_KEYS, reference, WasmArray, type Column, type KeyOrder, type LaidOutRuns, type MergedPage, type Run, type WasmKernels } from '../../core/index.ts';
import type { SegmentRef } from './layout.ts';

/** One segment's sorted input to the merge: its run shape, and the segment position of each entry. */
export interface MergeInput {
  segment: SegmentRef;
  run: Run<Column>;
  positions: ArrayLike<number> | WasmArray<Uint32Array>;
  /** Each entry's score, when a query's hits show scores. */
  scores?: ArrayLike<number> | WasmArray<Float64Array>;
}

/** A document on the page (shared by the pages of a kept merge: read, never changed). */
export interface PageEntry extends SegmentRef {
  local: number;
  /** Its score, when its input had scores. */
  score?: number;
}

export function mergePage(kernels: WasmKernels, inputs: readonly MergeInput[], order: KeyOrder[], from: number, size: number): PageEntry[] {
  if (inputs.length === 0 || size === 0) return [];
  const runs = { order, runs: inputs.map((input) => input.run) };
  const page = order.length <= MAX_KEYS ? kernels.mergeRuns(runs, from, size) : reference.mergeRuns(plain(runs), from, size);
  return entriesOf(inputs, page);
}

/**
 * The inputs of a merge laid out once ({@link layOutMerge}), to page through again and again with
 * {@link mergeLaidOut} while every run they read is kept: a search of the same snapshot and sort
 * then skips writing each segment's entry of the kernel's run table. The merged order is kept too,
 * in blocks of {@link BLOCK} entries as pages ask for them: a page within kept blocks is copied from
 * them, with no merge at all.
 */
export interface LaidOutMerge {
  inputs: readonly MergeInput[];
  runs: LaidOutRuns;
  /** Block b of the merged order (entries from b × {@link BLOCK}), as pages have asked for them. */
  blocks: Map<number, readonly PageEntry[]>;
}

/** The inputs laid out for the kernel; undefined when one of them is not in its memory (a top-k input) or the keys are too many. */
export function layOutMerge(kernels: WasmKernels, inputs: readonly MergeInput[], order: KeyOrder[]): LaidOutMerge | undefined {
  if (order.length > MAX_KEYS) return undefined;
  const runs = kernels.layOut({ order, runs: inputs.map((input) => input.run) });
  return runs && { inputs, runs, blocks: new Map() };
}

/**
 * {@link mergePage} over inputs laid out by {@link layOutMerge}. A page of at most {@link BLOCK}
 * entries is read from the blocks of the merged order it spans, each merged the first time it is
 * asked for; its entries are shared with the next such page (they are only read).
 */
export function mergeLaidOut(kernels: WasmKernels, merge: LaidOutMerge, from: number, size: number): PageEntry[] {
  if (merge.inputs.length === 0 || size === 0) return [];
  if (size > BLOCK) return entriesOf(merge.inputs, kernels.mergeLaidOut(merge.runs, from, size));
  const end = Math.min(from + size, merge.runs.total);
  const page: PageEntry[] = [];
  for (let at = from; at < end; ) {
    const block = blockOf(kernels, merge, Math.floor(at / BLOCK));
    const start = at % BLOCK;
    const stop = Math.min(block.length, start + (end - at));
    for (let i = start; i < stop; i++) page.push(block[i]);
    at += stop - start;
  }
  return page;
}

/** Entries in a block of the merged order; at most {@link BLOCKS_KEPT} blocks are kept a merge, all let go at once when there are more. */
const BLOCK = 64;
const BLOCKS_KEPT = 64;

function blockOf(kernels: WasmKernels, merge: LaidOutMerge, b: number): readonly PageEntry[] {
  let block = merge.blocks.get(b);
  if (block === undefined) {
    block = entriesOf(merge.inputs, kernels.mergeLaidOut(merge.runs, b * BLOCK, BLOCK));
    if (merge.blocks.size >= BLOCKS_KEPT) merge.blocks.clear();
    merge.blocks.set(b, block);
  }
  return block;
}

function entriesOf(inputs: readonly MergeInput[], page: MergedPage): PageEntry[] {
  const entries: PageEntry[] = new Array(page.run.length);
  for (let i = 0; i < page.run.length; i++) {
    const { segment, positions, scores } = inputs[page.run[i]];
    const at = page.pos[i];
    const entry: PageEntry = { target: segment.target, shard: segment.shard, live: segment.live, local: viewOf(positions)[at] };
    if (scores) entry.score = viewOf(scores)[at];
    entries[i] = entry;
  }
  return entries;
}

const viewOf = <T extends Uint32Array | Float64Array>(array: ArrayLike<number> | WasmArray<T>): ArrayLike<number> => (array instanceof WasmArray ? array.view : array);

/** The runs with wasm arrays as views, for the plain reference (sorts of more than four keys). */
function plain(runs: { order: KeyOrder[]; runs: Run<Column>[] }) {
  const view = (c: Column) => (c instanceof WasmArray ? c.view : c);
  return {
    order: runs.order,
    runs: runs.runs.map((run) => ({ length: run.length, keys: run.keys.map((k) => ({ ...k, values: view(k.values), map: k.map && view(k.map) })) })),
  };
}
