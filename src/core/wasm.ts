/**
 * The wasm kernels behind a typed API. One instance per process (or worker), created on first use.
 *
 * Columns can live in the module's memory ({@link WasmColumn}, no copy per call: the engine's way)
 * or be plain Float64Arrays (copied into scratch memory for the call: convenient for tests).
 *
 * @example
 * const k = wasmKernels();
 * const prices = k.column(3); prices.values.set([3, 1, 2]);
 * k.topK([{ values: prices, order: 'desc' }], 3, 2); // Uint32Array [0, 2]
 */
import { readFileSync } from 'node:fs';
import type { MergedPage, Runs, SortKey } from './order.ts';

interface Exports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  mark(): number;
  release(at: number): void;
  reset(): void;
  topK(spec: number, keys: number, n: number, k: number, out: number): number;
  mergeRuns(spec: number, keys: number, starts: number, runs: number, from: number, size: number, outRun: number, outPos: number): number;
  rankSelect(spec: number, keys: number, starts: number, runs: number, rank: number, out: number): void;
  sumKeys(keys: number, n: number): number;
}

export const WASM_URL = new URL('../../build/deeppage.wasm', import.meta.url);
/** Sort keys the kernels take at most. */
export const MAX_KEYS = 4;
const FLAG_DESC = 1;
const MISSING_FIRST = 2;
const MISSING_VALUE = 4;

/** A column of f64 in the module's memory. Its `values` view is re-created whenever memory grows. */
export class WasmColumn {
  #view: Float64Array | undefined;
  constructor(private readonly memory: WebAssembly.Memory, readonly ptr: number, readonly length: number) {}
  get values(): Float64Array {
    if (this.#view === undefined || this.#view.buffer !== this.memory.buffer) {
      this.#view = new Float64Array(this.memory.buffer, this.ptr, this.length);
    }
    return this.#view;
  }
}

export type Column = Float64Array | WasmColumn;

export class WasmKernels {
  readonly #x: Exports;

  constructor(module: WebAssembly.Module) {
    this.#x = new WebAssembly.Instance(module, {}).exports as unknown as Exports;
  }

  /** Allocates a column of `length` f64 that lives until {@link reset}. */
  column(length: number): WasmColumn {
    return new WasmColumn(this.#x.memory, this.#x.alloc(length * 8), length);
  }

  /** Frees every column and scratch buffer. Columns allocated before must not be used again. */
  reset(): void {
    this.#x.reset();
  }

  /** The entries 0..n-1 that sort first by `keys` (1..4 keys; ties by lower entry), best first. */
  topK(keys: SortKey<Column>[], n: number, k: number): Uint32Array {
    checkCount('n', n);
    checkCount('k', k);
    for (const key of keys) checkLength(key.values, n);
    return this.#call(() => {
      const spec = this.#spec(keys, n);
      const want = Math.min(k, n);
      const out = this.#x.alloc(want * 4);
      const got = this.#x.topK(spec, keys.length, n, k, out);
      return this.#u32(out, got);
    });
  }

  /** Merged entries [from, from+size) of sorted runs; ties by run, then position. */
  mergeRuns(runs: Runs<Column>, from: number, size: number): MergedPage {
    checkCount('from', from);
    checkCount('size', size);
    const total = checkRuns(runs);
    return this.#call(() => {
      const spec = this.#spec(runs.keys, total);
      const starts = this.#putU32(runs.starts);
      const room = Math.max(0, Math.min(size, total - from));
      const outRun = this.#x.alloc(room * 4), outPos = this.#x.alloc(room * 4);
      const got = this.#x.mergeRuns(spec, runs.keys.length, starts, runs.starts.length - 1, from, size, outRun, outPos);
      return { run: this.#u32(outRun, got), pos: this.#u32(outPos, got) };
    });
  }

  /** For each run, how many of its entries are among the first `rank` of the merged order. */
  rankSelect(runs: Runs<Column>, rank: number): Uint32Array {
    checkCount('rank', rank);
    const total = checkRuns(runs);
    return this.#call(() => {
      const spec = this.#spec(runs.keys, total);
      const starts = this.#putU32(runs.starts);
      const count = runs.starts.length - 1;
      const out = this.#x.alloc(count * 4);
      this.#x.rankSelect(spec, runs.keys.length, starts, count, rank, out);
      return this.#u32(out, count);
    });
  }

  /** The scan floor: one scalar pass summing `n` values of a column. */
  sumKeys(values: Column, n = values.length): number {
    checkLength(values, n);
    return this.#call(() => this.#x.sumKeys(this.#place(values, n), n));
  }

  #call<T>(body: () => T): T {
    const at = this.#x.mark();
    try {
      return body();
    } finally {
      this.#x.release(at);
    }
  }

  /** Writes the key descriptors (16 bytes each, see assembly/README.md) into scratch memory. */
  #spec(keys: SortKey<Column>[], n: number): number {
    if (keys.length < 1 || keys.length > MAX_KEYS) throw new RangeError(`1 to ${MAX_KEYS} sort keys are supported, got ${keys.length}`);
    const ptrs = keys.map((key) => this.#place(key.values, n));
    const spec = this.#x.alloc(keys.length * 16);
    const view = new DataView(this.#x.memory.buffer);
    keys.forEach((key, j) => {
      let flags = key.order === 'desc' ? FLAG_DESC : 0;
      let stand = 0;
      if (key.missing === '_first') flags |= MISSING_FIRST;
      else if (typeof key.missing === 'number') {
        flags |= MISSING_VALUE;
        stand = key.missing;
      }
      view.setUint32(spec + j * 16, ptrs[j], true);
      view.setUint32(spec + j * 16 + 4, flags, true);
      view.setFloat64(spec + j * 16 + 8, stand, true);
    });
    return spec;
  }

  /** The address of a column's first value: in place when it lives in the module, else a scratch copy. */
  #place(values: Column, n: number): number {
    if (values instanceof WasmColumn) return values.ptr;
    if (values.buffer === this.#x.memory.buffer) return values.byteOffset;
    const ptr = this.#x.alloc(n * 8);
    new Float64Array(this.#x.memory.buffer, ptr, n).set(values.subarray(0, n));
    return ptr;
  }

  #putU32(values: Uint32Array): number {
    const ptr = this.#x.alloc(values.length * 4);
    new Uint32Array(this.#x.memory.buffer, ptr, values.length).set(values);
    return ptr;
  }

  #u32(ptr: number, length: number): Uint32Array {
    return new Uint32Array(this.#x.memory.buffer, ptr, length).slice();
  }
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${name} must be an integer in [0, 2^32), got ${value}`);
}

function checkLength(values: Column, n: number): void {
  if (values.length < n) throw new RangeError(`a key column holds ${values.length} values, fewer than the ${n} entries`);
}

function checkRuns(runs: Runs<Column>): number {
  const { starts } = runs;
  if (starts.length < 1) throw new RangeError('starts needs at least one offset');
  for (let s = 1; s < starts.length; s++) {
    if (starts[s] < starts[s - 1]) throw new RangeError(`starts must not decrease (at run ${s - 1})`);
  }
  const end = starts[starts.length - 1];
  for (const key of runs.keys) checkLength(key.values, end);
  return end;
}

let shared: WasmKernels | undefined;

/** The process-wide kernels, compiled from build/deeppage.wasm on first use. */
export function wasmKernels(): WasmKernels {
  shared ??= new WasmKernels(new WebAssembly.Module(readFileSync(WASM_URL)));
  return shared;
}
