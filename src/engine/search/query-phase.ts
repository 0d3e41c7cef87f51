/**
 * The query phase: each segment of each shard picks its best `from + size` live documents with the
 * wasm top-k kernel, and hands back their positions, best first. Ties inside a segment go to the
 * lower position, i.e. the lower shard ordinal.
 */
import { reference, wasmKernels, type SortKey } from '../../core/index.ts';
import type { LiveSegment } from '../shard.ts';

/** The kernels take up to 4 keys; longer sorts run on the plain reference (rare in practice). */
const MAX_KERNEL_KEYS = 4;

export function topLive(keys: SortKey[], live: LiveSegment, want: number): Uint32Array {
  const n = live.segment.count;
  const k = Math.min(want, n - live.deletedCount);
  if (k <= 0) return new Uint32Array(0);
  // At most deletedCount of the first k + deletedCount can be deleted, so k live ones remain.
  const picked = keys.length <= MAX_KERNEL_KEYS ? wasmKernels().topK(keys, n, k + live.deletedCount) : reference.topK(keys, n, k + live.deletedCount);
  const deleted = live.deleted;
  if (!deleted) return picked.length > k ? picked.subarray(0, k) : picked;
  const out = new Uint32Array(k);
  for (let i = 0, at = 0; at < k; i++) if (!deleted[picked[i]]) out[at++] = picked[i];
  return out;
}

/** The kernels' merge, or the reference's for sorts longer than the kernels take. */
export function mergeRuns(...args: Parameters<typeof reference.mergeRuns>) {
  const [runs] = args;
  return runs.keys.length <= MAX_KERNEL_KEYS ? wasmKernels().mergeRuns(runs as never, args[1], args[2]) : reference.mergeRuns(...args);
}
