/**
 * The query phase: each segment's best `want` live documents, best first, by top-k (one pass over
 * the segment, no sort). Elasticsearch's algorithm does this for every page; deeppage does it for a
 * cold shallow page, while the segment's sorted run is built off the request path.
 */
import type { WasmKernels } from '../../core/index.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { gather, topPositions, type RunSpec } from './runs/sorted-run.ts';

/**
 * Positions of the segment's best `want` live documents, best first; ties by lower position.
 * @param only a slice's documents of the segment (ascending live positions): the pass reads only them.
 */
export function topLive(kernels: WasmKernels, spec: RunSpec, live: LiveSegment, want: number, only?: Uint32Array): Uint32Array {
  if (only) {
    const gathered: RunSpec = { keys: spec.keys.map(({ column, order }) => ({ column: gather(column, only), order })) };
    const picked = topPositions(kernels, gathered, only.length, Math.min(want, only.length));
    for (let i = 0; i < picked.length; i++) picked[i] = only[picked[i]];
    return picked;
  }
  const n = live.segment.count;
  const k = Math.min(want, n - live.deletedCount);
  if (k <= 0) return new Uint32Array(0);
  // At most deletedCount of the first k + deletedCount can be deleted, so k live ones remain.
  const take = Math.min(n, k + live.deletedCount);
  const picked = topPositions(kernels, spec, n, take);
  const deleted = live.deleted;
  if (!deleted) return picked.length > k ? picked.subarray(0, k) : picked;
  const out = new Uint32Array(k);
  for (let i = 0, at = 0; at < k; i++) if (!deleted[picked[i]]) out[at++] = picked[i];
  return out;
}
