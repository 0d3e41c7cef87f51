/**
 * A sorted run: one segment's live documents in the order of one sort, in wasm memory where the
 * kernels read it in place: the segment positions in that order (u32) and, per sort key, the key's
 * values in that order (f64; keyword keys as segment-local ordinals). About 12 bytes per document
 * for one key.
 *
 * Segments are immutable, so a run is valid for the segment's life, up to its deletes: deletes only
 * ever grow, and a run made for fewer of them is filtered (O(n), no sort) rather than rebuilt.
 */
import { MAX_KEYS, reference, type Column, type KeyOrder, type Position, type Run, type SortKey, type WasmArray, type WasmKernels } from '../../../core/index.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import type { SortKeySource } from '../sort/key.ts';

/** What a run is sorted by, within its segment: per key the column by position and its order. */
export interface RunSpec {
  keys: { column: Float64Array; order: KeyOrder }[];
}

/** The spec's keys as the top-k kernel takes them. */
export function sortKeys(spec: RunSpec): SortKey[] {
  return spec.keys.map(({ column, order }) => ({ values: column, ...order }));
}

/** The entries 0..n-1 that sort first, best first: the wasm kernel, or the plain reference beyond its four keys. */
export function topPositions(kernels: WasmKernels, spec: RunSpec, n: number, k: number): Uint32Array {
  const keys = sortKeys(spec);
  return keys.length <= MAX_KEYS ? kernels.topK(keys, n, k) : reference.topK(keys, n, k);
}

/** {@link topPositions} of the entries after a position (in the spec's columns' space): Elasticsearch's `search_after` collection. */
export function topPositionsAfter(kernels: WasmKernels, spec: RunSpec, n: number, k: number, position: Position): Uint32Array {
  const keys = sortKeys(spec);
  return keys.length <= MAX_KEYS ? kernels.topKAfter(keys, n, k, position) : reference.topKAfter(keys, n, k, position);
}

/** A column's values at some positions, in their order. */
export function gather(column: ArrayLike<number>, at: ArrayLike<number>): Float64Array {
  // The common pair in a loop of its own: one loop over every kind of array is megamorphic, and
  // ten times slower.
  if (column instanceof Float64Array && at instanceof Uint32Array) return gatherDoubles(column, at);
  const out = new Float64Array(at.length);
  for (let i = 0; i < at.length; i++) out[i] = column[at[i]];
  return out;
}

function gatherDoubles(column: Float64Array, at: Uint32Array): Float64Array {
  const out = new Float64Array(at.length);
  for (let i = 0; i < at.length; i++) out[i] = column[at[i]];
  return out;
}

/** The spec of a segment's run under the given keys. */
export function runSpec(keys: readonly SortKeySource[], live: LiveSegment): RunSpec {
  return { keys: keys.map((key) => ({ column: key.column(live), order: key.localOrder(live) })) };
}

export class SortedRun {
  #shape: Run<Column> | undefined;
  #maxScore: number | undefined;

  private constructor(
    readonly positions: WasmArray<Uint32Array>,
    readonly keys: WasmArray<Float64Array>[],
    /** The deletes this run leaves out (the identity of the snapshot's bitmap). */
    readonly deleted: Uint8Array | undefined,
    readonly deletedCount: number,
    /** A query's run: which of `keys` holds each entry's score (a sort key, or one kept after them). */
    readonly scoreKey?: number,
  ) {}

  get length(): number {
    return this.positions.length;
  }

  /** Bytes of wasm memory the run holds. */
  get bytes(): number {
    return this.positions.bytes + this.keys.reduce((n, key) => n + key.bytes, 0);
  }

  /** The run as the kernels take it, by its first `keys` keys (all by default), values read as stored (no map, no offset). */
  shape(keys = this.keys.length): Run<Column> {
    if (this.#shape?.keys.length !== keys) this.#shape = { length: this.length, keys: this.keys.slice(0, keys).map((values) => ({ values })) };
    return this.#shape;
  }

  /** The best score in a query's run (computed once; -Infinity when empty or unscored). */
  get maxScore(): number {
    if (this.#maxScore === undefined) {
      let max = -Infinity;
      if (this.scoreKey !== undefined) for (const score of this.keys[this.scoreKey].view) if (score > max) max = score;
      this.#maxScore = max;
    }
    return this.#maxScore;
  }

  get freed(): boolean {
    return this.positions.freed;
  }

  /** Sorts the whole segment (ties in position order) and keeps its live documents. */
  static build(kernels: WasmKernels, live: LiveSegment, spec: RunSpec): SortedRun {
    const n = live.segment.count;
    const columns = spec.keys.map((k) => k.column);
    if (live.deletedCount === 0 && columns.length <= MAX_KEYS) {
      // Nothing to leave out: the kernel sorts straight into the run's positions.
      const out = SortedRun.#alloc(kernels, n, columns.length);
      try {
        kernels.topKInto(sortKeys(spec), n, n, out.positions);
      } catch (error) {
        out.positions.free();
        for (const key of out.keys) key.free();
        throw error;
      }
      const positions = out.positions.view;
      for (let j = 0; j < columns.length; j++) {
        const values = out.keys[j].view, column = columns[j];
        for (let i = 0; i < n; i++) values[i] = column[positions[i]];
      }
      return new SortedRun(out.positions, out.keys, undefined, 0);
    }
    return SortedRun.#keep(kernels, live, topPositions(kernels, spec, n, n), columns);
  }

  /**
   * A query's run from its live matches: `docs` (ascending positions), sorted whole by `spec`, whose
   * columns are indexed like `docs`. `scores` (also indexed like `docs`), when the order has no
   * `_score` key but hits show scores, is kept after the keys.
   */
  static ofMatches(kernels: WasmKernels, live: LiveSegment, docs: Uint32Array, spec: RunSpec, scoreKey: number | undefined, scores?: Float64Array): SortedRun {
    const m = docs.length;
    const order = topPositions(kernels, spec, m, m);
    const columns = scores ? [...spec.keys.map((k) => k.column), scores] : spec.keys.map((k) => k.column);
    const out = SortedRun.#alloc(kernels, m, columns.length);
    const positions = out.positions.view;
    const keys = out.keys.map((key) => key.view);
    for (let i = 0; i < m; i++) {
      const at = order[i];
      positions[i] = docs[at];
      for (let j = 0; j < columns.length; j++) keys[j][i] = columns[j][at];
    }
    return new SortedRun(out.positions, out.keys, live.deleted, live.deletedCount, scoreKey);
  }

  /**
   * A query's run taken from this one (same order and snapshot): the entries whose position is
   * marked in `matches`, in this run's order, so nothing is sorted again. `scores` (by position)
   * are kept after the keys when hits show them.
   */
  selected(kernels: WasmKernels, live: LiveSegment, matches: Uint8Array, count: number, scores?: Float64Array): SortedRun {
    // The entries to keep, by the kernel (one pass over the run's positions, no branch on the marks).
    const picked = kernels.markedEntries(this.positions, matches);
    const length = Math.min(count, picked.length);
    const out = SortedRun.#alloc(kernels, length, this.keys.length + (scores ? 1 : 0));
    // Views after the allocation: growing memory detaches earlier ones.
    const from = this.positions.view;
    const fromKeys = this.keys.map((key) => key.view);
    const positions = out.positions.view;
    const keys = out.keys.map((key) => key.view);
    for (let i = 0; i < length; i++) positions[i] = from[picked[i]];
    for (let j = 0; j < fromKeys.length; j++) {
      const source = fromKeys[j], target = keys[j];
      for (let i = 0; i < length; i++) target[i] = source[picked[i]];
    }
    if (scores) {
      const target = keys[fromKeys.length];
      for (let i = 0; i < length; i++) target[i] = scores[positions[i]];
    }
    return new SortedRun(out.positions, out.keys, live.deleted, live.deletedCount, scores ? fromKeys.length : undefined);
  }

  /** The first `k` entries whose position passes `isMatch`, in this run's order: positions and key values. */
  head(isMatch: (position: number) => boolean, k: number): { positions: Uint32Array; keys: Float64Array[] } {
    const positions = this.positions.view;
    const entries = new Uint32Array(Math.min(k, positions.length));
    let n = 0;
    for (let i = 0; i < positions.length && n < k; i++) if (isMatch(positions[i])) entries[n++] = i;
    return { positions: gatherAt(positions, entries, n, new Uint32Array(n)), keys: this.keys.map(({ view }) => gatherAt(view, entries, n, new Float64Array(n))) };
  }

  /** This run with `live`'s deletes left out: a new run; this one stays as it is. */
  filtered(kernels: WasmKernels, live: LiveSegment): SortedRun {
    // Copies first: allocating the new run may grow memory and detach these views.
    return SortedRun.#keep(kernels, live, this.positions.view.slice(), this.keys.map((key) => key.view.slice()), 'in order', this.scoreKey);
  }

  free(): void {
    this.positions.free();
    for (const key of this.keys) key.free();
  }

  /**
   * The run of `order` (segment positions, sorted) minus the deleted ones. Key values are read from
   * `columns` by position, or, `in order`, by index into `order` (when they come from a run).
   */
  static #keep(kernels: WasmKernels, live: LiveSegment, order: Uint32Array, columns: Float64Array[], read: 'by position' | 'in order' = 'by position', scoreKey?: number): SortedRun {
    const deleted = live.deleted;
    let length = order.length;
    if (deleted) for (let i = 0; i < order.length; i++) length -= deleted[order[i]];
    const out = SortedRun.#alloc(kernels, length, columns.length);
    // Views are taken after every allocation: growing memory detaches earlier ones.
    const positions = out.positions.view;
    const keys = out.keys.map((key) => key.view);
    const byPosition = read === 'by position';
    let at = 0;
    for (let i = 0; i < order.length; i++) {
      const p = order[i];
      if (deleted?.[p]) continue;
      positions[at] = p;
      for (let j = 0; j < columns.length; j++) keys[j][at] = columns[j][byPosition ? p : i];
      at++;
    }
    return new SortedRun(out.positions, out.keys, live.deleted, live.deletedCount, scoreKey);
  }

  static #alloc(kernels: WasmKernels, length: number, keys: number) {
    const positions = kernels.u32(length);
    const arrays: WasmArray<Float64Array>[] = [];
    try {
      for (let j = 0; j < keys; j++) arrays.push(kernels.f64(length));
    } catch (error) {
      positions.free();
      for (const array of arrays) array.free();
      throw error;
    }
    return { positions, keys: arrays };
  }
}

/** `out[j] = from[at[j]]` for j below n. */
function gatherAt<T extends Uint32Array | Float64Array>(from: T, at: Uint32Array, n: number, out: T): T {
  for (let j = 0; j < n; j++) out[j] = from[at[j]];
  return out;
}
