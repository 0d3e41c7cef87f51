/**
 * A deep page of a query ordered by score alone, found without sorting its matches: the scores of
 * every segment's matches (or of its kept query run) are split by pivots into those before the page,
 * a window that holds it, and those after (pivot-page.ts `pivotWindow`), and only the window is
 * sorted. A first deep page of a new query then costs its scoring and one pass, not a sort of every
 * match; the runs that make later pages cheap are built between requests.
 *
 * Ties go by segment, then document, as the merge breaks them: a part's entries are its matches in
 * document order, or its run's entries, whose order among equal scores is document order too.
 */
import type { Column, WasmArray, WasmKernels } from '../../core/index.ts';
import type { PageEntry } from './coordinator.ts';
import type { SegmentRef } from './layout.ts';
import { pivotWindow } from './pivot-page.ts';

/** One segment's scored entries: their scores and their documents, index by index. */
export interface ScoredPart {
  segment: SegmentRef;
  scores: Column;
  docs: Uint32Array | WasmArray<Uint32Array>;
}

/** Entries [from, from + size) by score, best first, with their scores; undefined when no small window holds them. */
export function scoredPivotPage(parts: readonly ScoredPart[], from: number, size: number, kernels: WasmKernels): PageEntry[] | undefined {
  const window = pivotWindow(
    parts.map((part) => ({ length: part.docs.length, key: { values: part.scores }, deletedCount: 0 })),
    { order: 'desc' },
    from,
    size,
    kernels,
  );
  if (!window) return undefined;
  // The window's entries, part after part in index order, and their scores.
  const n = window.between;
  const partOf = new Uint32Array(n), index = new Uint32Array(n);
  let e = 0;
  window.docs.forEach((entries, p) => {
    for (const i of entries) {
      partOf[e] = p;
      index[e++] = i;
    }
  });
  const top = kernels.topK([{ values: window.values, order: 'desc' }], n, window.stop);
  const page: PageEntry[] = [];
  for (let i = window.start; i < top.length; i++) {
    const part = parts[partOf[top[i]]];
    const docs = part.docs instanceof Uint32Array ? part.docs : part.docs.view;
    const { target, shard, live } = part.segment;
    page.push({ target, shard, live, local: docs[index[top[i]]], score: window.values[top[i]] });
  }
  return page;
}
