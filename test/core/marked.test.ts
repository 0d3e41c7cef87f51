import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, wasmKernels } from '../../src/core/index.ts';

const wasm = wasmKernels();

describe('markedEntries matches the reference', () => {
  it('positions in any order, marks of any density, plain and in-memory positions', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }).chain((count) =>
          fc.tuple(fc.constant(count), fc.array(fc.nat(count - 1), { maxLength: 3000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer()),
        ),
        fc.boolean(),
        ([count, positions, density, seed], inMemory) => {
          let s = seed | 1;
          const marks = Uint8Array.from({ length: count }, () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32 < density ? 1 : 0));
          const plain = Uint32Array.from(positions);
          const want = reference.markedEntries(plain, marks);
          if (!inMemory) {
            expect([...wasm.markedEntries(plain, marks)]).toEqual([...want]);
            return;
          }
          const kept = wasm.u32(plain.length);
          try {
            kept.view.set(plain);
            expect([...wasm.markedEntries(kept, marks)]).toEqual([...want]);
          } finally {
            kept.free();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
