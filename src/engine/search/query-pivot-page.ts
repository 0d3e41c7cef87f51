/**
 * A deep page of a query never asked before, found without sorting its matches: the first sort key
 * (or the score) of every segment's matches, or of its kept query run, is split by pivots into what
 * sorts before the page, a window that holds it, and what sorts after (pivot-page.ts
 * `pivotWindow`), and only the window is sorted. A new query's deep page then costs its matching and
 * one pass, not a sort of every match; the runs that make later pages cheap are built between
 * requests.
 *
 * Ties go by segment, then document, as the merge breaks them: the window's documents are put in
 * position order before they are sorted, and sorted by a top-k whose ties go to the earlier entry.
 */
import type { Column, RunKey, WasmArray, WasmKernels } from '../../core/index.ts';
import type { PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import { pageOf, pivotWindow } from './pivot-page.ts';
import type { RunCache } from './runs/run-cache.ts';
import type { SortPlan } from './sort/key.ts';

/** One segment's matches: their first key as the kernels read it (or their scores), and their documents, index by index, in any order. */
export interface QueryPart {
  segment: SegmentRef;
  key: RunKey<Column>;
  docs: Uint32Array | WasmArray<Uint32Array>;
}

/** Entries [from, from + size) by score, best first, with their scores; undefined when no small window holds them. */
export function scoredPivotPage(parts: readonly QueryPart[], from: number, size: number, kernels: WasmKernels): PageEntry[] | undefined {
  const window = windowDocs(parts, { order: 'desc' }, from, size, kernels);
  if (!window) return undefined;
  const top = kernels.topK([{ values: window.values, order: 'desc' }], window.between, window.stop);
  const page: PageEntry[] = [];
  for (let i = window.start; i < top.length; i++) {
    const { target, shard, live } = parts[window.partOf[top[i]]].segment;
    page.push({ target, shard, live, local: window.docs[top[i]], score: window.values[top[i]] });
  }
  return page;
}

/** Entries [from, from + size) by the plan's sort (fields, no score); undefined when no small window holds them. */
export function sortedPivotPage(parts: readonly QueryPart[], plan: SortPlan, from: number, size: number, runs: RunCache): PageEntry[] | undefined {
  const window = windowDocs(parts, plan.order()[0], from, size, runs.kernels);
  if (!window) return undefined;
  const perPart = parts.map(() => [] as number[]);
  for (let e = 0; e < window.between; e++) perPart[window.partOf[e]].push(window.docs[e]);
  return pageOf(
    parts.map((part) => part.segment),
    plan,
    runs,
    { between: window.between, docs: perPart.map((docs) => Uint32Array.from(docs).sort()) },
    window.start,
    window.stop,
  );
}

/**
 * The window around [from, from + size): its entries part after part, each part's in position order
 * (so ties go by segment, then document), with their first-key values as they compare.
 */
function windowDocs(parts: readonly QueryPart[], order: Parameters<typeof pivotWindow>[1], from: number, size: number, kernels: WasmKernels) {
  const window = pivotWindow(
    parts.map((part) => ({ length: part.docs.length, key: part.key, deletedCount: 0 })),
    order,
    from,
    size,
    kernels,
  );
  if (!window) return undefined;
  const n = window.between;
  const partOf = new Uint32Array(n), docs = new Uint32Array(n), values = new Float64Array(n);
  let e = 0, at = 0;
  window.docs.forEach((entries, p) => {
    const all = parts[p].docs instanceof Uint32Array ? (parts[p].docs as Uint32Array) : (parts[p].docs as WasmArray<Uint32Array>).view;
    // The part's window entries by document: a part in any order (a field run's slice) is put in position order.
    const order = Array.from(entries.keys()).sort((a, b) => all[entries[a]] - all[entries[b]]);
    for (const i of order) {
      partOf[e] = p;
      docs[e] = all[entries[i]];
      values[e++] = window.values[at + i];
    }
    at += entries.length;
  });
  return { between: n, partOf, docs, values, start: window.start, stop: window.stop };
}
