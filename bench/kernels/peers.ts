/**
 * Hand-written JavaScript peers of the wasm kernels, for descending order (largest key first) only:
 * that is all the benchmark asks of them. Typed arrays throughout, no per-element objects.
 * Tie-breaks match the kernels: top-k prefers the lower entry; merge prefers the lower run, then
 * the lower position.
 */
import quickselect from 'quickselect';
import type { MergedPage } from '../../src/core/order.ts';

// ---------------------------------------------------------------------------------------------
// Top-k

/**
 * A bounded binary min-heap of the best k seen so far (its root is the worst of them), one pass
 * over the entries; returns the ids best first.
 */
export function heapTopK(keys: Float64Array, n: number, k: number): Uint32Array {
  const size = Math.max(0, Math.min(k, n));
  const hk = new Float64Array(size), hi = new Uint32Array(size);
  if (size === 0) return hi;
  let len = 0;
  for (let e = 0; e < n; e++) {
    const v = keys[e];
    if (len < size) {
      // Sift up. The newcomer has the highest id so far, so it is worse than a parent unless its key is larger.
      let c = len++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (v > hk[p]) break;
        hk[c] = hk[p];
        hi[c] = hi[p];
        c = p;
      }
      hk[c] = v;
      hi[c] = e;
    } else if (v > hk[0]) {
      // Strictly better than the worst kept (an equal key loses on its higher id).
      siftDownWorst(hk, hi, len, v, e);
    }
  }
  const out = new Uint32Array(size);
  for (let i = size - 1; i >= 0; i--) {
    out[i] = hi[0];
    len--;
    if (len > 0) siftDownWorst(hk, hi, len, hk[len], hi[len]);
  }
  return out;
}

/** Places (v, e) at the root of a min-heap of `len` and sifts it down; "worse" = smaller key, then higher id. */
function siftDownWorst(hk: Float64Array, hi: Uint32Array, len: number, v: number, e: number): void {
  let c = 0;
  for (;;) {
    const l = 2 * c + 1;
    if (l >= len) break;
    const r = l + 1;
    let w = l;
    if (r < len && (hk[r] < hk[l] || (hk[r] === hk[l] && hi[r] > hi[l]))) w = r;
    if (hk[w] < v || (hk[w] === v && hi[w] > e)) {
      hk[c] = hk[w];
      hi[c] = hi[w];
      c = w;
    } else break;
  }
  hk[c] = v;
  hi[c] = e;
}

/**
 * npm quickselect over an array of ids (mutated: pass 0..n-1 each call), then a comparator sort of
 * the first k; returns a copy of the best k ids, best first.
 */
export function quickselectTopK(keys: Float64Array, n: number, k: number, ids: Uint32Array): Uint32Array {
  const want = Math.max(0, Math.min(k, n));
  const cmp = (a: number, b: number): number => keys[b] - keys[a] || a - b;
  if (want > 0 && want < n) quickselect(ids as unknown as number[], want - 1, 0, n - 1, cmp);
  return ids.subarray(0, want).sort(cmp).slice();
}

/** The native floor: sorts the keys in place (ascending), no ids. */
export function sortKeys(copy: Float64Array): Float64Array {
  return copy.sort();
}

// ---------------------------------------------------------------------------------------------
// k-way merge of runs sorted descending

/** A binary max-heap of the runs' heads: root = largest head key, then lowest run index. */
class RunHeap {
  readonly cursor: Uint32Array; // per run: global entry index of its head
  readonly #hk: Float64Array;
  readonly #hr: Uint32Array;
  #len = 0;

  constructor(readonly keys: Float64Array, readonly starts: Uint32Array) {
    const runs = starts.length - 1;
    this.cursor = starts.slice(0, runs);
    this.#hk = new Float64Array(runs);
    this.#hr = new Uint32Array(runs);
    for (let s = 0; s < runs; s++) {
      if (starts[s] >= starts[s + 1]) continue;
      // Sift up: runs arrive in index order, so the newcomer beats a parent only on a larger key.
      const v = keys[starts[s]];
      let c = this.#len++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (!(v > this.#hk[p])) break;
        this.#hk[c] = this.#hk[p];
        this.#hr[c] = this.#hr[p];
        c = p;
      }
      this.#hk[c] = v;
      this.#hr[c] = s;
    }
  }

  /** The run holding the next merged entry; only while not empty. */
  top(): number {
    return this.#hr[0];
  }

  get empty(): boolean {
    return this.#len === 0;
  }

  /** Consumes the top run's head. */
  advance(): void {
    const s = this.#hr[0];
    const e = ++this.cursor[s];
    if (e < this.starts[s + 1]) this.#siftDown(this.keys[e], s);
    else if (--this.#len > 0) this.#siftDown(this.#hk[this.#len], this.#hr[this.#len]);
  }

  #siftDown(v: number, s: number): void {
    const hk = this.#hk, hr = this.#hr, len = this.#len;
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= len) break;
      const r = l + 1;
      let w = l;
      if (r < len && (hk[r] > hk[l] || (hk[r] === hk[l] && hr[r] < hr[l]))) w = r;
      if (hk[w] > v || (hk[w] === v && hr[w] < s)) {
        hk[c] = hk[w];
        hr[c] = hr[w];
        c = w;
      } else break;
    }
    hk[c] = v;
    hr[c] = s;
  }
}

/** The first `size` merged entries (from 0) of descending runs: run and position of each. */
export function heapMerge(keys: Float64Array, starts: Uint32Array, size: number): MergedPage {
  const total = starts[starts.length - 1] - starts[0];
  const count = Math.max(0, Math.min(size, total));
  const run = new Uint32Array(count), pos = new Uint32Array(count);
  const heap = new RunHeap(keys, starts);
  for (let i = 0; i < count; i++) {
    const s = heap.top();
    run[i] = s;
    pos[i] = heap.cursor[s] - starts[s];
    heap.advance();
  }
  return { run, pos };
}

/**
 * Rank selection the way Elasticsearch gets there: merge from the start up to `rank`, counting how
 * many entries each run gave.
 */
export function heapRank(keys: Float64Array, starts: Uint32Array, rank: number): Uint32Array {
  const heap = new RunHeap(keys, starts);
  for (let i = 0; i < rank && !heap.empty; i++) heap.advance();
  const counts = new Uint32Array(starts.length - 1);
  for (let s = 0; s < counts.length; s++) counts[s] = heap.cursor[s] - starts[s];
  return counts;
}
