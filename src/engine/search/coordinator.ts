/**
 * The coordinator: the page `[from, from + size)` of the merged order of every segment's sorted
 * input, one call of the wasm merge (rank selection places each input's head at global rank `from`,
 * a loser tree emits `size` entries). An input is a segment's whole sorted run, or a prefix of its
 * order (top-k candidates); either way, positions map back to the segment. Inputs come in
 * tie-break order (sort/tie-break.ts).
 */
import { MAX_KEYS, reference, WasmArray, type Column, type KeyOrder, type Run, type WasmKernels } from '../../core/index.ts';
import type { SegmentRef } from './sort/tie-break.ts';

/** One segment's sorted input to the merge: its run shape, and the segment position of each entry. */
export interface MergeInput {
  segment: SegmentRef;
  run: Run<Column>;
  positions: ArrayLike<number> | WasmArray<Uint32Array>;
}

/** A document on the page. */
export interface PageEntry extends SegmentRef {
  local: number;
}

export function mergePage(kernels: WasmKernels, inputs: readonly MergeInput[], order: KeyOrder[], from: number, size: number): PageEntry[] {
  if (inputs.length === 0 || size === 0) return [];
  const runs = { order, runs: inputs.map((input) => input.run) };
  const page = order.length <= MAX_KEYS ? kernels.mergeRuns(runs, from, size) : reference.mergeRuns(plain(runs), from, size);
  const entries: PageEntry[] = new Array(page.run.length);
  for (let i = 0; i < page.run.length; i++) {
    const { segment, positions } = inputs[page.run[i]];
    const view = positions instanceof WasmArray ? positions.view : positions;
    entries[i] = { target: segment.target, shard: segment.shard, live: segment.live, local: view[page.pos[i]] };
  }
  return entries;
}

/** The runs with wasm arrays as views, for the plain reference (sorts of more than four keys). */
function plain(runs: { order: KeyOrder[]; runs: Run<Column>[] }) {
  const view = (c: Column) => (c instanceof WasmArray ? c.view : c);
  return {
    order: runs.order,
    runs: runs.runs.map((run) => ({ length: run.length, keys: run.keys.map((k) => ({ ...k, values: view(k.values), map: k.map && view(k.map) })) })),
  };
}
