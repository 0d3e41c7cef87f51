/**
 * The wasm kernels behind a typed API. Each {@link WasmKernels} is one instance of the module with
 * its own linear memory; the engine owns one. This file runs in any host with WebAssembly: it is
 * given a compiled module or an instance and never reads a file (see load.ts for getting one, and
 * node.ts for reading the packaged file in Node).
 *
 * Arrays can live in the module's memory ({@link WasmArray}: allocated, read in place by every
 * kernel call, freed by their owner) or be plain typed arrays (copied into scratch memory for the
 * call and freed after it: convenient for tests).
 *
 * @example
 * const k = new WasmKernels(module);
 * const prices = k.f64(3); prices.view.set([3, 1, 2]);
 * k.topK([{ values: prices, order: 'desc' }], 3, 2); // Uint32Array [0, 2]
 * prices.free();
 */
import type { KeyOrder, MergedPage, Position, Runs, SortKey } from './order.ts';

/** The module's exports (assembly/README.md); every i32 result here is a u32 read as unsigned. */
interface Exports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  free(ptr: number): void;
  allocatedBytes(): number;
  allocatedBlocks(): number;
  topK(spec: number, keys: number, n: number, k: number, out: number): number;
  topKAfter(spec: number, keys: number, n: number, k: number, out: number, after: number, count: number, tie: number): number;
  mergeRuns(spec: number, keys: number, table: number, runs: number, from: number, size: number, outRun: number, outPos: number): number;
  rankSelect(spec: number, keys: number, table: number, runs: number, rank: number, out: number): void;
  countBetween(spec: number, keys: number, table: number, runs: number, low: number, high: number, out: number, values: number, counts: number): number;
  markedEntries(positions: number, n: number, marks: number, out: number): number;
  scoreTerms(table: number, terms: number, norms: number, deleted: number, count: number, minimum: number, scored: number, bits: number, sums: number, hits: number, docs: number, scores: number): number;
  sumKeys(keys: number, n: number): number;
}

const FUNCTIONS = ['alloc', 'free', 'allocatedBytes', 'allocatedBlocks', 'topK', 'topKAfter', 'mergeRuns', 'rankSelect', 'countBetween', 'markedEntries', 'scoreTerms', 'sumKeys'] as const;

/**
 * The instance's exports with every u32 result made unsigned. Wasm hands an i32 result to JavaScript
 * as a signed number, so an address at or past 2 GiB (or a count of 2^31 and more) would arrive
 * negative; wrapping the exports once means no call site can forget the `>>> 0`.
 */
function unsignedExports(instance: WebAssembly.Instance): Exports {
  const raw = instance.exports as unknown as Exports;
  const missing = [...(raw.memory instanceof WebAssembly.Memory ? [] : ['memory']), ...FUNCTIONS.filter((name) => typeof raw[name] !== 'function')];
  if (missing.length > 0) throw new TypeError(`deeppage: not the kernels module (it lacks ${missing.join(', ')})`);
  return {
    memory: raw.memory,
    alloc: (bytes) => raw.alloc(bytes) >>> 0,
    free: raw.free,
    allocatedBytes: () => raw.allocatedBytes() >>> 0,
    allocatedBlocks: () => raw.allocatedBlocks() >>> 0,
    topK: (spec, keys, n, k, out) => raw.topK(spec, keys, n, k, out) >>> 0,
    topKAfter: (spec, keys, n, k, out, after, count, tie) => raw.topKAfter(spec, keys, n, k, out, after, count, tie) >>> 0,
    mergeRuns: (spec, keys, table, runs, from, size, outRun, outPos) => raw.mergeRuns(spec, keys, table, runs, from, size, outRun, outPos) >>> 0,
    rankSelect: raw.rankSelect,
    countBetween: (spec, keys, table, runs, low, high, out, values, counts) => raw.countBetween(spec, keys, table, runs, low, high, out, values, counts) >>> 0,
    markedEntries: (positions, n, marks, out) => raw.markedEntries(positions, n, marks, out) >>> 0,
    scoreTerms: (table, terms, norms, deleted, count, minimum, scored, bits, sums, hits, docs, scores) => raw.scoreTerms(table, terms, norms, deleted, count, minimum, scored, bits, sums, hits, docs, scores) >>> 0,
    sumKeys: raw.sumKeys,
  };
}

/** Sort keys the kernels take at most. */
export const MAX_KEYS = 4;
const FLAG_DESC = 1;
const MISSING_FIRST = 2;
const MISSING_VALUE = 4;
const SPEC_BYTES = 16;
/** Bytes per run in a run table: u32 length, u32 reserved, then per key u32 values, u32 map, f64 offset. */
const RUN_BYTES = 8 + 16 * MAX_KEYS;

type TypedArray = Float64Array | Uint32Array;
type ArrayKind = 'f64' | 'u32';

/**
 * An array in the module's memory, owned by whoever allocated it until {@link free}. Its `view` is
 * re-created whenever memory grows (growth detaches old views); using it after `free` throws.
 */
export class WasmArray<T extends TypedArray = Float64Array> {
  #view: T | undefined;
  #ptr: number;

  constructor(
    private readonly kernels: WasmKernels,
    readonly kind: ArrayKind,
    ptr: number,
    readonly length: number,
  ) {
    this.#ptr = ptr;
  }

  /** The address of the first element; throws once freed. */
  get ptr(): number {
    if (this.#ptr < 0) throw new Error('deeppage: a freed wasm array was used');
    return this.#ptr;
  }

  get freed(): boolean {
    return this.#ptr < 0;
  }

  /** Bytes the array's elements take (the block holding them is a little larger). */
  get bytes(): number {
    return this.length * (this.kind === 'f64' ? 8 : 4);
  }

  get view(): T {
    const buffer = this.kernels.memory.buffer;
    if (this.#view === undefined || this.#view.buffer !== buffer) {
      this.#view = (this.kind === 'f64' ? new Float64Array(buffer, this.ptr, this.length) : new Uint32Array(buffer, this.ptr, this.length)) as T;
    }
    return this.#view;
  }

  free(): void {
    if (this.#ptr < 0) return;
    this.kernels.free(this.#ptr);
    this.#ptr = -1;
    this.#view = undefined;
  }
}

export type Column = Float64Array | WasmArray<Float64Array>;

/** Runs split at two values ({@link WasmKernels.countBetween}). */
export interface Between {
  /** Per run, its entries that sort before the first value. */
  before: Uint32Array;
  /** Per run, its entries from the first value through the second. */
  between: Uint32Array;
  /** Their positions: each run's in position order, one run after another. */
  positions: Uint32Array;
  /** Their values of the first key as they compare (map, then offset), in the same order. */
  values: Float64Array;
}

/**
 * One term of a query over a segment's postings ({@link WasmKernels.scoreTerms}): the documents
 * holding it, ascending, how often each does, and its BM25 scorer as Lucene's is made: a weight
 * and, per norm byte, 1 / (k1 × (1 − b + b × length / avgdl)), both float32.
 */
export interface ScoredTerm {
  docs: Uint32Array;
  freqs: Uint32Array;
  weight: number;
  /** 256 values, by norm byte. */
  inverse: Float32Array;
}

/** Documents with their scores when asked ({@link WasmKernels.scoreTerms}). */
export interface ScoredDocs {
  docs: Uint32Array;
  scores?: Float64Array;
}

/** Runs laid out for the merge kernel by {@link WasmKernels.layOut}. */
export interface LaidOutRuns {
  /** Sort keys. */
  readonly keys: number;
  /** Runs. */
  readonly count: number;
  /** Entries over every run. */
  readonly total: number;
  /** The key descriptors, then the run table, holding the arrays' addresses. */
  readonly image: Uint8Array;
  /** The arrays the table names. */
  readonly arrays: readonly WasmArray[];
}

export class WasmKernels {
  readonly #x: Exports;

  /**
   * Kernels on an instance of the module: a compiled module is instantiated here (synchronously, with
   * no imports); an instance is used as it is and must not be shared with other code.
   */
  constructor(source: WebAssembly.Module | WebAssembly.Instance) {
    this.#x = unsignedExports(source instanceof WebAssembly.Instance ? source : new WebAssembly.Instance(source, {}));
  }

  get memory(): WebAssembly.Memory {
    return this.#x.memory;
  }

  /** A new array of `length` f64 in the module's memory (contents unspecified). */
  f64(length: number): WasmArray<Float64Array> {
    return new WasmArray<Float64Array>(this, 'f64', this.#alloc(length * 8), length);
  }

  /** A new array of `length` u32 in the module's memory (contents unspecified). */
  u32(length: number): WasmArray<Uint32Array> {
    return new WasmArray<Uint32Array>(this, 'u32', this.#alloc(length * 4), length);
  }

  /** Frees a block by address (WasmArray.free calls this). */
  free(ptr: number): void {
    this.#x.free(ptr);
  }

  /** What the module's allocator holds for its callers: bytes (of blocks) and blocks. */
  inUse(): { bytes: number; blocks: number } {
    return { bytes: this.#x.allocatedBytes(), blocks: this.#x.allocatedBlocks() };
  }

  /** The entries 0..n-1 that sort first by `keys` (1..4 keys; ties by lower entry), best first. */
  topK(keys: SortKey<Column>[], n: number, k: number): Uint32Array {
    return this.#topK(keys, n, k, (scratch) => scratch(Math.min(k, n) * 4), (out, got) => this.#u32(out, got));
  }

  /** {@link topK} written into `out` (at least min(k, n) long) in place; returns how many were written. */
  topKInto(keys: SortKey<Column>[], n: number, k: number, out: WasmArray<Uint32Array>): number {
    if (out.length < Math.min(k, n)) throw new RangeError(`the output holds ${out.length} entries, fewer than min(k, n) = ${Math.min(k, n)}`);
    return this.#topK(keys, n, k, () => out.ptr, (_, got) => got);
  }

  #topK<T>(keys: SortKey<Column>[], n: number, k: number, output: (scratch: (bytes: number) => number) => number, result: (out: number, got: number) => T): T {
    checkCount('n', n);
    checkCount('k', k);
    checkKeys(keys.length);
    for (const key of keys) checkLength(key.values, n);
    return this.#call((scratch) => {
      const spec = this.#spec(scratch, keys, keys.map((key) => this.#place(scratch, key.values, n)));
      const out = output(scratch);
      return result(out, this.#x.topK(spec, keys.length, n, k, out));
    });
  }

  /**
   * {@link topK} of the entries that come after `position` (`search_after` within one shard's
   * columns): one pass, where an entry before the position costs what one past the k-th does. With no
   * position values, `tie` decides for every entry at once.
   */
  topKAfter(keys: SortKey<Column>[], n: number, k: number, position: Position): Uint32Array {
    checkCount('n', n);
    checkCount('k', k);
    checkKeys(keys.length);
    const { values, tie = 0 } = position;
    if (values.length > keys.length) throw new RangeError(`the position has ${values.length} values for ${keys.length} keys`);
    if (values.length === 0) return tie > 0 ? this.topK(keys, n, k) : new Uint32Array(0);
    for (const key of keys) checkLength(key.values, n);
    return this.#call((scratch) => {
      const spec = this.#spec(scratch, keys, keys.map((key) => this.#place(scratch, key.values, n)));
      const after = scratch(values.length * 8);
      const out = scratch(Math.max(1, Math.min(k, n)) * 4);
      this.#heap().f64.set(values, after / 8);
      return this.#u32(out, this.#x.topKAfter(spec, keys.length, n, k, out, after, values.length, tie > 0 ? 1 : 0));
    });
  }

  /** Merged entries [from, from+size) of sorted runs; ties by run, then position. */
  mergeRuns(runs: Runs<Column>, from: number, size: number): MergedPage {
    checkCount('from', from);
    checkCount('size', size);
    const total = checkRuns(runs);
    const room = Math.max(0, Math.min(size, total - from));
    return this.#call((scratch) => {
      const { spec, table, out } = this.#layout(scratch, runs, room * 8);
      const got = this.#x.mergeRuns(spec, runs.order.length, table, runs.runs.length, from, size, out, out + room * 4);
      return { run: this.#u32(out, got), pos: this.#u32(out + room * 4, got) };
    });
  }

  /**
   * The runs laid out once for {@link mergeLaidOut}: their key descriptors and run table as bytes,
   * which each merge copies into scratch memory instead of writing them run by run. Every column must
   * be a {@link WasmArray} (undefined otherwise: a plain one would be copied per call anyway), and
   * the layout serves only while all of them are allocated.
   */
  layOut(runs: Runs<Column>): LaidOutRuns | undefined {
    const total = checkRuns(runs);
    const keys = runs.order.length;
    const arrays: WasmArray[] = [];
    const addresses: number[] = [];
    for (const run of runs.runs) {
      for (const { values, map } of run.keys) {
        if (!(values instanceof WasmArray) || (map !== undefined && !(map instanceof WasmArray))) return undefined;
        arrays.push(values);
        if (map) arrays.push(map);
        addresses.push(values.ptr, map ? map.ptr : 0);
      }
    }
    const image = new ArrayBuffer(keys * SPEC_BYTES + runs.runs.length * RUN_BYTES);
    const u32 = new Uint32Array(image), f64 = new Float64Array(image);
    writeSpec(u32, f64, 0, runs.order);
    writeTable(u32, f64, keys * SPEC_BYTES, runs, addresses);
    return { keys, count: runs.runs.length, total, image: new Uint8Array(image), arrays };
  }

  /** {@link mergeRuns} over runs laid out by {@link layOut}; throws if one of their arrays was freed since. */
  mergeLaidOut(laid: LaidOutRuns, from: number, size: number): MergedPage {
    checkCount('from', from);
    checkCount('size', size);
    for (const array of laid.arrays) if (array.freed) throw new Error('deeppage: a laid-out run was freed');
    const room = Math.max(0, Math.min(size, laid.total - from));
    const { image } = laid;
    return this.#call((scratch) => {
      const spec = scratch(image.length + room * 8);
      this.#heap().u8.set(image, spec);
      const out = spec + image.length;
      const got = this.#x.mergeRuns(spec, laid.keys, spec + laid.keys * SPEC_BYTES, laid.count, from, size, out, out + room * 4);
      return { run: this.#u32(out, got), pos: this.#u32(out + room * 4, got) };
    });
  }

  /** For each run, how many of its entries are among the first `rank` of the merged order. */
  rankSelect(runs: Runs<Column>, rank: number): Uint32Array {
    checkCount('rank', rank);
    checkRuns(runs);
    const count = runs.runs.length;
    return this.#call((scratch) => {
      const { spec, table, out } = this.#layout(scratch, runs, count * 4);
      this.#x.rankSelect(spec, runs.order.length, table, count, rank, out);
      return this.#u32(out, count);
    });
  }

  /**
   * Splits runs whose entries are in any order at two values of the first key (`low` sorting no
   * later than `high` in the order): per run, how many entries sort before `low`, and the positions
   * of those from `low` through `high` (ends included), in position order, with their values as
   * they compare (map, then offset). Only key 0 of the order and of each run is read.
   */
  countBetween(runs: Runs<Column>, low: number, high: number): Between {
    const total = checkRuns(runs);
    if (Number.isNaN(low) || Number.isNaN(high)) throw new RangeError('the bounds of countBetween must be values, not NaN');
    const count = runs.runs.length;
    const first: Runs<Column> = { order: runs.order.slice(0, 1), runs: runs.runs.map((run) => ({ length: run.length, keys: run.keys.slice(0, 1) })) };
    return this.#call((scratch) => {
      // The counts, then room for every entry's value (8-byte aligned after the counts), then its position.
      const room = Math.max(1, total);
      const { spec, table, out } = this.#layout(scratch, first, count * 8 + room * 12);
      const values = out + count * 8, positions = values + room * 8;
      const between = this.#x.countBetween(spec, 1, table, count, low, high, positions, values, out);
      const counts = this.#u32(out, count * 2);
      const before = new Uint32Array(count), inside = new Uint32Array(count);
      for (let r = 0; r < count; r++) {
        before[r] = counts[2 * r];
        inside[r] = counts[2 * r + 1];
      }
      return { before, between: inside, positions: this.#u32(positions, between), values: new Float64Array(this.#x.memory.buffer, values, between).slice() };
    });
  }

  /**
   * The indices of the entries whose position is marked (`marks[position] === 1`), in entry order:
   * a run's entries picked by their documents. Every position must be below `marks.length`.
   */
  markedEntries(positions: WasmArray<Uint32Array> | Uint32Array, marks: Uint8Array): Uint32Array {
    const n = positions.length;
    return this.#call((scratch) => {
      const at = positions instanceof WasmArray ? positions.ptr : this.#placeU32(scratch, positions);
      const marked = scratch(Math.max(1, marks.length));
      this.#heap().u8.set(marks, marked);
      const out = scratch(Math.max(1, n) * 4);
      return this.#u32(out, this.#x.markedEntries(at, n, marked, out));
    });
  }

  /**
   * The documents of a segment (norm byte per document in `norms`) holding at least `minimum` of
   * the terms, ascending; with `scored`, each one's score: per term w − w / (1 + freq × inverse[norm])
   * in float32, summed in double in term order, rounded to float32 once (Lucene's BM25 and its
   * disjunction sum). Every document must be below `norms.length`.
   */
  scoreTerms(terms: readonly ScoredTerm[], norms: Uint8Array, minimum: number, scored: boolean): ScoredDocs {
    return this.#call((scratch) => {
      const { docs, scores, n } = this.#scoreTerms(scratch, terms, norms, undefined, minimum, scored);
      return { docs: this.#u32(docs, n), ...(scored && { scores: new Float64Array(this.#x.memory.buffer, scores, n).slice() }) };
    });
  }

  /**
   * {@link scoreTerms}, scored, with the matches left in the module's memory (those marked 1 in
   * `deleted` left out): nothing is copied out, and kernels read them in place. The caller owns both
   * arrays and frees them.
   */
  scoreTermsKept(terms: readonly ScoredTerm[], norms: Uint8Array, minimum: number, deleted?: Uint8Array): { docs: WasmArray<Uint32Array>; scores: WasmArray<Float64Array> } {
    if (deleted && deleted.length < norms.length) throw new RangeError(`deleted marks ${deleted.length} documents of ${norms.length}`);
    let postings = 0;
    for (const term of terms) postings += term.docs.length;
    const room = Math.max(1, Math.min(norms.length, postings));
    const docs = this.#alloc(room * 4);
    let scores = 0;
    try {
      scores = this.#alloc(room * 8);
      const n = this.#call((scratch) => this.#scoreTerms(scratch, terms, norms, deleted, minimum, true, { docs, scores }).n);
      return { docs: new WasmArray<Uint32Array>(this, 'u32', docs, n), scores: new WasmArray<Float64Array>(this, 'f64', scores, n) };
    } catch (error) {
      this.#x.free(docs);
      if (scores) this.#x.free(scores);
      throw error;
    }
  }

  /**
   * {@link scoreTerms} cut to the best `k` in the same call: how many documents match (those marked
   * 1 in `deleted` left out), and the `k` best by score, then document, best first. Only the page's
   * share leaves the module, whatever the number of matches.
   */
  bestScored(terms: readonly ScoredTerm[], norms: Uint8Array, minimum: number, k: number, deleted?: Uint8Array): { count: number; docs: Uint32Array; scores: Float64Array } {
    checkCount('k', k);
    if (deleted && deleted.length < norms.length) throw new RangeError(`deleted marks ${deleted.length} documents of ${norms.length}`);
    return this.#call((scratch) => {
      const { docs, scores, n } = this.#scoreTerms(scratch, terms, norms, deleted, minimum, true);
      const spec = this.#spec(scratch, [{ order: 'desc' }], [scores]);
      const out = scratch(Math.max(1, Math.min(k, n)) * 4);
      const best = this.#u32(out, this.#x.topK(spec, 1, n, k, out));
      const { u32, f64 } = this.#heap();
      const bestDocs = new Uint32Array(best.length), bestScores = new Float64Array(best.length);
      for (let i = 0; i < best.length; i++) {
        bestDocs[i] = u32[(docs >>> 2) + best[i]];
        bestScores[i] = f64[(scores >>> 3) + best[i]];
      }
      return { count: n, docs: bestDocs, scores: bestScores };
    });
  }

  /** Lays out the terms in scratch memory and runs the scoreTerms kernel; the results stay in scratch. */
  #scoreTerms(scratch: (bytes: number) => number, terms: readonly ScoredTerm[], norms: Uint8Array, deleted: Uint8Array | undefined, minimum: number, scored: boolean, into?: { docs: number; scores: number }): { docs: number; scores: number; n: number } {
    checkCount('minimum', minimum);
    if (terms.length > 0xffff) throw new RangeError(`scoreTerms takes at most 65,535 terms, not ${terms.length}`);
    const count = norms.length;
    let postings = 0;
    for (const term of terms) {
      if (term.freqs.length < term.docs.length) throw new RangeError(`a term has ${term.docs.length} documents and ${term.freqs.length} frequencies`);
      if (term.inverse.length !== 256) throw new RangeError(`a term's inverse-length table has ${term.inverse.length} values, not 256`);
      postings += term.docs.length;
    }
    const room = Math.max(1, Math.min(count, postings));
    // Scratch first (an allocation may grow memory), then every copy through fresh views.
    const table = scratch(Math.max(1, terms.length) * 24);
    const places = terms.map((term) => ({ docs: scratch(term.docs.length * 4 || 4), freqs: scored ? scratch(term.docs.length * 4 || 4) : 0, inverse: scored ? scratch(1024) : 0 }));
    const normsAt = scratch(Math.max(1, count));
    const deletedAt = deleted ? scratch(Math.max(1, count)) : 0;
    const bits = scratch(Math.max(1, (count + 63) >>> 6) * 8);
    const sums = scored ? scratch(Math.max(1, count) * 8) : 0;
    const hits = minimum > 1 ? scratch(Math.max(1, count) * 2) : 0;
    const docs = into ? into.docs : scratch(room * 4);
    const scores = into ? into.scores : scored ? scratch(room * 8) : 0;
    const { u8, u32 } = this.#heap();
    const f32 = new Float32Array(this.#x.memory.buffer);
    u8.set(norms, normsAt);
    if (deleted) u8.set(deleted.subarray(0, count), deletedAt);
    terms.forEach((term, t) => {
      const at = places[t];
      u32.set(term.docs, at.docs >>> 2);
      if (scored) {
        u32.set(term.freqs.subarray(0, term.docs.length), at.freqs >>> 2);
        f32.set(term.inverse, at.inverse >>> 2);
      }
      const row = (table >>> 2) + t * 6;
      u32[row] = at.docs;
      u32[row + 1] = at.freqs;
      u32[row + 2] = term.docs.length;
      u32[row + 3] = at.inverse;
      f32[row + 4] = term.weight;
      u32[row + 5] = 0;
    });
    const n = this.#x.scoreTerms(table, terms.length, normsAt, deletedAt, count, minimum, scored ? 1 : 0, bits, sums, hits, docs, scores);
    return { docs, scores, n };
  }

  /** The scan floor: one scalar pass summing `n` values of a column. */
  sumKeys(values: Column, n = values.length): number {
    checkLength(values, n);
    return this.#call((scratch) => this.#x.sumKeys(this.#place(scratch, values, n), n));
  }

  #alloc(bytes: number): number {
    // Beyond 2^32 - 1 the argument would wrap to a small size; the module traps above 1 GiB anyway.
    if (!(bytes <= 0xffffffff)) throw new RangeError(`cannot allocate ${bytes} bytes in wasm32 memory`);
    return this.#x.alloc(Math.max(bytes, 1));
  }

  /** Runs `body` with a scratch allocator whose blocks are all freed afterwards. */
  #call<T>(body: (scratch: (bytes: number) => number) => T): T {
    const blocks: number[] = [];
    try {
      return body((bytes) => {
        const ptr = this.#alloc(bytes);
        blocks.push(ptr);
        return ptr;
      });
    } finally {
      for (const ptr of blocks) this.#x.free(ptr);
    }
  }

  /** Writes the key descriptors (16 bytes each, see assembly/README.md) into scratch memory. */
  #spec(scratch: (bytes: number) => number, keys: readonly KeyOrder[], columns?: number[]): number {
    checkKeys(keys.length);
    const spec = scratch(keys.length * SPEC_BYTES);
    const { u32, f64 } = this.#heap();
    writeSpec(u32, f64, spec, keys, columns);
    return spec;
  }

  /**
   * Lays out one scratch block: the key descriptors (SPEC_BYTES each), the run table (RUN_BYTES per
   * run; the runs' arrays are read in place, plain arrays copied first) and `outBytes` for results.
   */
  #layout(scratch: (bytes: number) => number, { order, runs }: Runs<Column>, outBytes: number): { spec: number; table: number; out: number } {
    const keys = order.length;
    const tableBytes = Math.max(1, runs.length) * RUN_BYTES;
    const spec = scratch(keys * SPEC_BYTES + tableBytes + outBytes);
    const table = spec + keys * SPEC_BYTES;
    // Columns not in the module's memory are copied in first: an allocation may grow the memory,
    // which detaches views of it, so the table is written only once every block is placed.
    const addresses = this.#addresses;
    addresses.length = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r];
      for (let j = 0; j < keys; j++) {
        const key = run.keys[j];
        addresses.push(this.#place(scratch, key.values, run.length), key.map ? this.#place(scratch, key.map, key.map.length) : 0);
      }
    }
    const { u32, f64 } = this.#heap();
    writeSpec(u32, f64, spec, order);
    writeTable(u32, f64, table, { order, runs }, addresses);
    return { spec, table, out: table + tableBytes };
  }

  /** The block addresses of the columns a layout reads (one array, reused: layouts run one at a time). */
  readonly #addresses: number[] = [];

  /** Views of the module's whole memory, made again when it grows (growing detaches the old buffer). */
  #views: { buffer: ArrayBuffer; u8: Uint8Array; u32: Uint32Array; f64: Float64Array } | undefined;

  #heap(): { u8: Uint8Array; u32: Uint32Array; f64: Float64Array } {
    const buffer = this.#x.memory.buffer;
    let views = this.#views;
    if (views === undefined || views.buffer !== buffer) this.#views = views = { buffer, u8: new Uint8Array(buffer), u32: new Uint32Array(buffer), f64: new Float64Array(buffer) };
    return views;
  }

  /** The address of a column's first value: in place when it lives in the module, else a scratch copy. */
  #place(scratch: (bytes: number) => number, values: Column, n: number): number {
    if (values instanceof WasmArray) return values.ptr;
    if (values.buffer === this.#x.memory.buffer) return values.byteOffset;
    const ptr = scratch(n * 8);
    new Float64Array(this.#x.memory.buffer, ptr, n).set(values.subarray(0, n));
    return ptr;
  }

  #placeU32(scratch: (bytes: number) => number, values: Uint32Array): number {
    const ptr = scratch(Math.max(1, values.length) * 4);
    this.#heap().u32.set(values, ptr / 4);
    return ptr;
  }

  #u32(ptr: number, length: number): Uint32Array {
    return new Uint32Array(this.#x.memory.buffer, ptr, length).slice();
  }
}

/** Writes key descriptors at byte `at` of the views (16 bytes each, see assembly/README.md). */
function writeSpec(u32: Uint32Array, f64: Float64Array, at: number, keys: readonly KeyOrder[], columns?: number[]): void {
  for (let j = 0; j < keys.length; j++) {
    const key = keys[j];
    let flags = key.order === 'desc' ? FLAG_DESC : 0;
    let stand = 0;
    if (key.missing === '_first') flags |= MISSING_FIRST;
    else if (typeof key.missing === 'number') {
      flags |= MISSING_VALUE;
      stand = key.missing;
    }
    const spec = at + j * SPEC_BYTES;
    u32[spec >>> 2] = columns?.[j] ?? 0;
    u32[(spec + 4) >>> 2] = flags;
    f64[(spec + 8) >>> 3] = stand;
  }
}

/** Writes the run table at byte `at` of the views (RUN_BYTES per run); `addresses` holds each key's values and map address, run by run. */
function writeTable(u32: Uint32Array, f64: Float64Array, at: number, { order, runs }: Runs<Column>, addresses: readonly number[]): void {
  const keys = order.length;
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    // Block addresses are 16-byte aligned and RUN_BYTES and SPEC_BYTES multiples of 8: every f64 is aligned.
    const entry = at + r * RUN_BYTES;
    u32[entry >>> 2] = run.length;
    u32[(entry + 4) >>> 2] = 0;
    for (let j = 0; j < keys; j++) {
      u32[(entry + 8 + j * 16) >>> 2] = addresses[(r * keys + j) * 2];
      u32[(entry + 12 + j * 16) >>> 2] = addresses[(r * keys + j) * 2 + 1];
      f64[(entry + 16 + j * 16) >>> 3] = run.keys[j].offset ?? 0;
    }
  }
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${name} must be an integer in [0, 2^32), got ${value}`);
}

function checkKeys(count: number): void {
  if (count < 1 || count > MAX_KEYS) throw new RangeError(`1 to ${MAX_KEYS} sort keys are supported, got ${count}`);
}

function checkLength(values: Column, n: number): void {
  if (values.length < n) throw new RangeError(`a key column holds ${values.length} values, fewer than the ${n} entries`);
}

function checkRuns({ order, runs }: Runs<Column>): number {
  checkKeys(order.length);
  let total = 0;
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    checkCount('run length', run.length);
    if (run.keys.length !== order.length) throw new RangeError(`run ${r} has ${run.keys.length} keys, the order has ${order.length}`);
    for (let j = 0; j < run.keys.length; j++) checkLength(run.keys[j].values, run.length);
    total += run.length;
  }
  if (total > 0xffffffff) throw new RangeError(`the runs hold ${total} entries, more than 2^32 - 1`);
  return total;
}
