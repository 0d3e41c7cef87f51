/**
 * The module's allocator: blocks freed return memory to the baseline, freed blocks are reused, the
 * debug build poisons what is freed, and impossible sizes trap instead of wrapping around.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, WasmKernels, wasmModule } from '../../src/core/index.ts';
import { runsOf, totalOf } from './arbitraries.ts';

describe('the allocator', () => {
  it('returns to its baseline after any sequence of allocations and frees, and reuses freed space', () => {
    const kernels = new WasmKernels(wasmModule());
    const baseline = kernels.inUse();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 300_000 }), fc.boolean()), { maxLength: 60 }), (steps) => {
        const live: ReturnType<WasmKernels['f64']>[] = [];
        for (const [length, freeOne] of steps) {
          live.push(kernels.f64(length));
          if (freeOne && live.length > 0) live.splice(Math.floor(length % live.length), 1)[0].free();
        }
        const ptrs = new Set(live.map((a) => a.ptr));
        expect(ptrs.size).toBe(live.length);
        for (const array of live) array.free();
        expect(kernels.inUse()).toEqual(baseline);
      }),
      { numRuns: 50 },
    );
    const size = kernels.memory.buffer.byteLength;
    for (let i = 0; i < 100; i++) kernels.f64(100_000).free();
    expect(kernels.memory.buffer.byteLength).toBe(size);
  });

  it('kernel calls give back all their scratch space', () => {
    const kernels = new WasmKernels(wasmModule());
    const baseline = kernels.inUse();
    fc.assert(
      fc.property(runsOf(20, 300, 3), fc.nat(2000), fc.nat(50), (runs, from, size) => {
        kernels.mergeRuns(runs, from, size);
        kernels.rankSelect(runs, from);
        const first = runs.runs[0];
        kernels.topK(first.keys.map((k) => ({ values: k.values as Float64Array })), first.length, size);
        expect(kernels.inUse()).toEqual(baseline);
      }),
      { numRuns: 50 },
    );
  });

  it('traps on a size beyond the largest block instead of wrapping around', () => {
    const kernels = new WasmKernels(wasmModule());
    expect(() => kernels.f64(0xffffffff / 8)).toThrow(WebAssembly.RuntimeError);
    expect(() => kernels.u32(0x40000000)).toThrow(RangeError); // 2^32 bytes would wrap to 0
    expect(kernels.inUse().blocks).toBe(0);
  });

  it('a freed array cannot be used from JavaScript', () => {
    const kernels = new WasmKernels(wasmModule());
    const array = kernels.f64(4);
    array.free();
    expect(() => array.view).toThrow(/freed/);
    expect(() => kernels.topK([{ values: array }], 4, 1)).toThrow(/freed/);
    array.free(); // a second free is a no-op, not a double free in the module
  });

  it('the debug build poisons freed blocks, so a read after free shows', () => {
    const kernels = new WasmKernels(wasmModule('debug'));
    const array = kernels.f64(64);
    array.view.fill(1);
    const { ptr } = array;
    array.free();
    const bytes = new Uint8Array(kernels.memory.buffer, ptr + 16, 256);
    expect(bytes.every((b) => b === 0xa5)).toBe(true);
  });

  it('the debug build gives the same answers as the reference', () => {
    const kernels = new WasmKernels(wasmModule('debug'));
    fc.assert(
      fc.property(runsOf(12, 100, 3), fc.nat(700), fc.nat(30), (runs, from, size) => {
        const got = kernels.mergeRuns(runs, from, size);
        const want = reference.mergeRuns(runs, from, size);
        expect([...got.run]).toEqual([...want.run]);
        expect([...got.pos]).toEqual([...want.pos]);
        expect([...kernels.rankSelect(runs, Math.min(from, totalOf(runs)))]).toEqual([...reference.rankSelect(runs, Math.min(from, totalOf(runs)))]);
      }),
      { numRuns: 40 },
    );
  });
});
