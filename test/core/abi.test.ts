/**
 * The two edges of the ABI at the top of wasm32 memory: `alloc` traps rather than wrap around, and
 * addresses at and past 2 GiB (negative as wasm's i32 results) reach the binding unsigned. These
 * grow a module's memory to 2-4 GiB; wasm memory is reserved, not touched, so it costs little RAM.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { reference, WasmKernels, wasmModule, type WasmArray } from '../../src/core/index.ts';
import { runsOf } from './arbitraries.ts';
import { placeRuns } from './in-wasm.ts';

interface Heap {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  free(ptr: number): void;
  allocatedBlocks(): number;
}

const GiB = 2 ** 30;
/** TLSF's largest block: 1 GiB less its 4-byte header. */
const MAX_BLOCK = GiB - 4;

function rawHeap(build: 'release' | 'debug'): Heap {
  return new WebAssembly.Instance(wasmModule(build), {}).exports as unknown as Heap;
}

describe.each(['release', 'debug'] as const)('alloc (%s build)', (build) => {
  it('traps on sizes that would wrap around when rounded to a block, and leaves the heap as it was', () => {
    const heap = rawHeap(build);
    const before = heap.alloc(64) >>> 0;
    // As u32: 2^32 - 1, - 15, - 16 round up past 2^32; -1 is how JavaScript may pass 2^32 - 1.
    for (const bytes of [0xffffffff, 0xfffffff1, 0xfffffff0, 0xffffffe0, -1, 0x80000000, MAX_BLOCK + 1]) {
      expect(() => heap.alloc(bytes), `alloc(${bytes})`).toThrow(WebAssembly.RuntimeError);
    }
    expect(heap.allocatedBlocks()).toBe(1);
    const after = heap.alloc(64) >>> 0;
    expect(after).not.toBe(before);
    expect(after).toBeGreaterThan(0);
  });

  it('gives the largest block, and traps once memory cannot grow to 4 GiB, never handing out an address twice', () => {
    const heap = rawHeap(build);
    const blocks: [number, number][] = [];
    for (const bytes of [MAX_BLOCK, GiB / 4, GiB / 64, 2 ** 20, 2 ** 12, 16]) {
      for (;;) {
        let ptr: number;
        try {
          ptr = heap.alloc(bytes) >>> 0;
        } catch (error) {
          expect(error).toBeInstanceOf(WebAssembly.RuntimeError);
          break;
        }
        blocks.push([ptr, bytes]);
        if (blocks.length > 100_000) throw new Error('alloc never traps');
      }
    }
    const size = heap.memory.buffer.byteLength;
    expect(size).toBeGreaterThan(4 * GiB - 2 ** 20);
    blocks.sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < blocks.length; i++) {
      const [ptr, bytes] = blocks[i];
      expect(ptr + bytes).toBeLessThanOrEqual(size);
      if (i + 1 < blocks.length) expect(ptr + bytes).toBeLessThanOrEqual(blocks[i + 1][0]);
    }
    expect(blocks.filter(([, bytes]) => bytes === MAX_BLOCK)).toHaveLength(3);
    expect(blocks.at(-1)![0]).toBeGreaterThan(4 * GiB - 2 ** 20);
    expect(heap.allocatedBlocks()).toBe(blocks.length);
  });
});

describe('the binding past 2 GiB', () => {
  /**
   * Kernels whose every later block lies at or past 2 GiB: two 1 GiB blocks fill the low memory,
   * then blocks of shrinking size take whatever is left below 2 GiB.
   */
  function kernelsAbove2GiB(): { kernels: WasmKernels; ballast: WasmArray<Uint32Array>[] } {
    const kernels = new WasmKernels(wasmModule());
    const ballast = [kernels.u32(MAX_BLOCK / 4 - 3), kernels.u32(MAX_BLOCK / 4 - 3)];
    for (const length of [2 ** 20, 2 ** 10, 4, 1]) {
      for (;;) {
        const array = kernels.u32(length);
        if (array.ptr >= 2 ** 31) {
          array.free();
          break;
        }
        ballast.push(array);
      }
    }
    return { kernels, ballast };
  }

  let kernels: WasmKernels;
  let ballast: WasmArray<Uint32Array>[];
  beforeAll(() => void ({ kernels, ballast } = kernelsAbove2GiB()));

  it('hands out addresses past 2 GiB as positive numbers', () => {
    const array = kernels.f64(1000);
    expect(array.ptr).toBeGreaterThanOrEqual(2 ** 31);
    array.view.set(Float64Array.from({ length: 1000 }, (_, i) => i));
    expect(array.view[999]).toBe(999);
    expect(array.freed).toBe(false);
    array.free();
  });

  it('top-k, merges and rank selections on arrays there (and its scratch space) match the reference', () => {
    const values = Float64Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 1009) - 500 + (i % 17 === 0 ? NaN : 0));
    const column = kernels.f64(values.length);
    column.view.set(values);
    expect(column.ptr).toBeGreaterThanOrEqual(2 ** 31);
    const want = reference.topK([{ values, order: 'desc' }], values.length, 100);
    expect([...kernels.topK([{ values: column, order: 'desc' }], values.length, 100)]).toEqual([...want]);
    expect([...kernels.topK([{ values, order: 'desc' }], values.length, 100)]).toEqual([...want]);
    const out = kernels.u32(100);
    expect(kernels.topKInto([{ values: column, order: 'desc' }], values.length, 100, out)).toBe(100);
    expect([...out.view]).toEqual([...want]);
    out.free();
    column.free();

    fc.assert(
      fc.property(runsOf(12, 60, 2), fc.nat(400), fc.nat(40), (runs, from, size) => {
        const { runs: inWasm, placed, free } = placeRuns(kernels, runs);
        try {
          expect(placed.every((array) => array.ptr >= 2 ** 31)).toBe(true);
          const page = kernels.mergeRuns(inWasm, from, size);
          const wantPage = reference.mergeRuns(runs, from, size);
          expect([...page.run]).toEqual([...wantPage.run]);
          expect([...page.pos]).toEqual([...wantPage.pos]);
          expect([...kernels.rankSelect(inWasm, from)]).toEqual([...reference.rankSelect(runs, from)]);
        } finally {
          free();
        }
      }),
      { numRuns: 30 },
    );
  });

  it('counts the bytes in use past 2 GiB as positive', () => {
    expect(kernels.inUse().bytes).toBeGreaterThanOrEqual(2 * MAX_BLOCK);
    for (const array of ballast) array.free();
    expect(kernels.inUse()).toEqual({ bytes: 0, blocks: 0 });
  });
});
