/**
 * The query phase: each segment of each shard picks its best `from + size` live documents and hands
 * back their positions, best first. Ties inside a segment go to the lower position, i.e. the lower
 * shard ordinal.
 *
 * Shallow windows are cut by the wasm top-k kernel, which touches each document once. When the window
 * is a sizeable part of the segment (deep pages), the segment's whole live order is sorted once
 * instead and kept with the segment, so that later pages at any depth under the same sort only read
 * a prefix of it: segments are immutable, and the order stays valid until their deletes change.
 */
import { MAX_KEYS, reference, wasmKernels, type SortKey } from '../../core/index.ts';
import type { Segment } from '../segment.ts';
import type { LiveSegment } from '../shard.ts';

/** A window under 1/16 of the segment is cut by top-k; a larger one sorts the segment whole, once. */
const SORT_WHOLE_RATIO = 16;
/** Sorted orders kept per segment (one per distinct sort); the oldest goes first. */
const ORDERS_PER_SEGMENT = 4;

interface SortedOrder {
  deleted: Uint8Array | undefined;
  order: Uint32Array;
}

const sortedOrders = new WeakMap<Segment, Map<string, SortedOrder>>();

/**
 * @param sortId identifies the sort (clauses with their orders and missing values): segments cache
 *   their whole sorted order under it. Without one, nothing is cached.
 */
export function topLive(keys: SortKey[], live: LiveSegment, want: number, sortId?: string): Uint32Array {
  const liveCount = live.segment.count - live.deletedCount;
  const k = Math.min(want, liveCount);
  if (k <= 0) return new Uint32Array(0);
  const orders = sortId === undefined ? undefined : sortedOrders.get(live.segment);
  const cached = orders?.get(sortId!);
  if (cached && cached.deleted === live.deleted) return cached.order.subarray(0, k);
  if (sortId === undefined || k * SORT_WHOLE_RATIO < liveCount) return pickLive(keys, live, k);

  const order = pickLive(keys, live, liveCount);
  const kept = orders ?? new Map<string, SortedOrder>();
  kept.delete(sortId);
  if (kept.size >= ORDERS_PER_SEGMENT) kept.delete(kept.keys().next().value!);
  kept.set(sortId, { deleted: live.deleted, order });
  sortedOrders.set(live.segment, kept);
  return order.subarray(0, k);
}

/** Drops the sorted orders a segment keeps (ES's `_cache/clear`): the next deep page sorts it again. */
export function forgetSortedOrders(segment: Segment): void {
  sortedOrders.delete(segment);
}

/** How many sorted orders a segment keeps, for tests and stats. */
export function sortedOrderCount(segment: Segment): number {
  return sortedOrders.get(segment)?.size ?? 0;
}

/** The best k live documents of the segment, best first. */
function pickLive(keys: SortKey[], live: LiveSegment, k: number): Uint32Array {
  const n = live.segment.count;
  // At most deletedCount of the first k + deletedCount can be deleted, so k live ones remain.
  const want = Math.min(n, k + live.deletedCount);
  // Sorts longer than the kernels take run on the plain reference (rare in practice).
  const picked = keys.length <= MAX_KEYS ? wasmKernels().topK(keys, n, want) : reference.topK(keys, n, want);
  const deleted = live.deleted;
  if (!deleted) return picked.length > k ? picked.subarray(0, k) : picked;
  const out = new Uint32Array(k);
  for (let i = 0, at = 0; at < k; i++) if (!deleted[picked[i]]) out[at++] = picked[i];
  return out;
}
