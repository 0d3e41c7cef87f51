import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reference, wasmKernels } from '../../src/core/index.ts';
import { keyShape, keysOf, largeK, largeKey } from './arbitraries.ts';

const wasm = wasmKernels();

describe('topK matches the reference', () => {
  it('small inputs, 1..4 keys, any k', () => {
    fc.assert(
      fc.property(
        fc.nat(300).chain((n) => fc.tuple(fc.constant(n), keysOf(n, 4), fc.nat(n + 5))),
        ([n, keys, k]) => {
          expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('large inputs, where the sampled limit and buffer cuts run', () => {
    fc.assert(
      fc.property(largeKey, largeK, ({ n, keys }, k) => {
        expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
      }),
      { numRuns: 40 },
    );
  });

  // Found by the HTTP bench on the cities: a buffer cut while filtering images 4 at a time left the scan
  // 4 past a multiple of 8, and the 8-wide value filter then ran past the column's last full block,
  // offering the tail twice (a document twice on a page) and reading past the column.
  it('columns whose length is not a multiple of 8, with many ties, as populations are', () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let run = 0; run < 300; run++) {
      // Below the sampled path's 8,192, so the first filter is on images until the buffer's first cut.
      const n = (1000 + (next() % 7000)) | 1;
      // Skewed values with ties: most small, a few large, many repeated.
      const values = Float64Array.from({ length: n }, () => Math.floor(1000 * Math.exp((next() % 1400) / 100)) - (next() % 3));
      const k = 1 + (next() % Math.floor(n / 4));
      const keys = [{ values, order: next() % 2 ? ('desc' as const) : ('asc' as const) }];
      const got = wasm.topK(keys, n, k);
      expect(new Set(got).size, `n ${n}, k ${k}`).toBe(got.length);
      expect([...got], `n ${n}, k ${k}`).toEqual([...reference.topK(keys, n, k)]);
    }
  });

  // Whole sorts go through the MSD radix sort: values that share long leading bits (a narrow range, a
  // date field), spread over every exponent, or cluster on a few values take different paths through
  // its levels (digits where images differ, all-equal buckets, insertion at the bottom).
  it('whole sorts (k of a quarter of n and more) of clustered, narrow and spread values', () => {
    const specials = [NaN, -0, 0, Infinity, -Infinity];
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 25, max: 400 }), fc.integer({ min: 400, max: 40_000 })),
        fc.constantFrom('uniform', 'narrow', 'dates', 'ints', 'tiny', 'bits', 'outliers'),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 51, max: 5000 })),
        fc.constantFrom(0, 0.01, 0.3),
        fc.integer(),
        keyShape,
        fc.integer({ min: 4, max: 10 }),
        (n, kind, distinct, special, seed, key, share) => {
          let state = seed >>> 0 || 1;
          const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
          const draw = (): number => {
            const r = next();
            switch (kind) {
              case 'uniform': return (r - 0.5) * 2e6; // every exponent's top bits differ
              case 'narrow': return 1000 + r * 1e-3; // long shared leading bits
              case 'dates': return 1.6e12 + Math.floor(r * 3e10);
              case 'ints': return Math.floor(r * 100);
              case 'tiny': return (r - 0.5) * 1e-300;
              // A tight cluster and a few values far away: the cluster ties on the kept top bits.
              case 'outliers': return r < 0.01 ? 1e300 : r < 0.02 ? -1e300 : 1 + r * 1e-12;
              default: return new Float64Array(new Uint32Array([next() * 2 ** 32, next() * 2 ** 32]).buffer)[0]; // any bits
            }
          };
          // `distinct` > 0 draws from that many values, so equal images share buckets with others.
          const pool = distinct > 0 ? Array.from({ length: distinct }, draw) : undefined;
          const values = Float64Array.from({ length: n }, () => (next() < special ? specials[Math.floor(next() * specials.length)] : pool ? pool[Math.floor(next() * pool.length)] : draw()));
          const keys = [{ values, ...key }];
          const k = Math.max(1, Math.floor((n * share) / 10));
          expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('whole sorts where only the last entry differs', () => {
    for (const n of [25, 26, 27, 101, 4097]) {
      const values = new Float64Array(n).fill(5);
      values[n - 1] = 3;
      const keys = [{ values, order: 'asc' as const }];
      expect([...wasm.topK(keys, n, n)]).toEqual([...reference.topK(keys, n, n)]);
    }
  });

  it('large multi-key inputs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8192, max: 20_000 }).chain((n) => fc.tuple(fc.constant(n), keysOf(n, 4), fc.nat(3000))),
        ([n, keys, k]) => {
          expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
        },
      ),
      { numRuns: 15 },
    );
  });

  // A keyword of 8 values then `_shard_doc`: thousands of entries tie with the limit on the first key,
  // and only the later key decides which of them may still enter.
  it('a first key of few values, a unique second key, as a keyword page in a point in time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8192, max: 40_000 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3000 })),
        fc.nat(1000),
        (n, distinct, first, second, k, seed) => {
          const keys = [
            { values: Float64Array.from({ length: n }, (_, i) => ((i * 7919 + seed) % distinct)), order: first },
            { values: Float64Array.from({ length: n }, (_, i) => (i * 104729 + seed) % n), order: second },
          ];
          expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
          const at = (seed * 31) % n;
          const position = { values: [keys[0].values[at], keys[1].values[at]] };
          expect([...wasm.topKAfter(keys, n, k, position)]).toEqual([...reference.topKAfter(keys, n, k, position)]);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('reads columns in wasm memory in place', () => {
    const col = wasm.f64(10_000);
    for (let i = 0; i < col.length; i++) col.view[i] = (i * 7919) % 1000;
    const keys = [{ values: col, order: 'desc' as const }];
    const plain = [{ values: Float64Array.from(col.view), order: 'desc' as const }];
    expect([...wasm.topK(keys, col.length, 50)]).toEqual([...reference.topK(plain, col.length, 50)]);
    col.free();
  });

  it('rejects impossible arguments before they reach the module', () => {
    const values = new Float64Array(4);
    expect(() => wasm.topK([{ values }], 5, 1)).toThrow(RangeError);
    expect(() => wasm.topK([{ values }], 4, -1)).toThrow(RangeError);
    expect(() => wasm.topK([], 4, 1)).toThrow(RangeError);
    const five = Array.from({ length: 5 }, () => ({ values }));
    expect(() => wasm.topK(five, 4, 1)).toThrow(RangeError);
  });
});

describe('topK when the sample misleads', () => {
  // Mirrors the kernel's stratified sample (assembly/topk.ts: 1024 strata, xorshift32 from
  // 0x2545f491) to put the smallest values exactly where it looks, so its limit admits too few
  // entries and the kernel must fall back to a full pass.
  function sampledPositions(n: number): number[] {
    const stride = Math.floor(n / 1024);
    let rnd = 0x2545f491;
    const out: number[] = [];
    for (let s = 0; s < 1024; s++) {
      rnd = (rnd ^ (rnd << 13)) >>> 0;
      rnd = (rnd ^ (rnd >>> 17)) >>> 0;
      rnd = (rnd ^ (rnd << 5)) >>> 0;
      out.push(s * stride + (rnd % stride));
    }
    return out;
  }

  it.each(['asc', 'desc'] as const)('still returns the true top k (%s)', (order) => {
    const n = 16_384;
    const sign = order === 'asc' ? 1 : -1;
    const values = Float64Array.from({ length: n }, (_, i) => sign * (1e6 + i));
    sampledPositions(n).forEach((e, i) => (values[e] = sign * i));
    const keys = [{ values, order }];
    const got = wasm.topK(keys, n, 200);
    expect(got.length).toBe(200);
    expect([...got]).toEqual([...reference.topK(keys, n, 200)]);
  });
});

describe('topK on sorted columns', () => {
  // Survivors that arrive already in order (or exactly reversed) skip the radix sort.
  it.each([
    ['ascending keys, desc order', (i: number) => i, 'desc'],
    ['descending keys, asc order', (i: number) => -i, 'asc'],
    ['ascending keys, asc order', (i: number) => i, 'asc'],
    ['steps of equal keys, desc order', (i: number) => Math.floor(i / 3), 'desc'],
  ] as const)('%s', (_, at, order) => {
    for (const n of [40, 5000, 20_000]) {
      const keys = [{ values: Float64Array.from({ length: n }, (_, i) => at(i)), order }];
      for (const k of [n, Math.floor(n / 2), 33]) {
        expect([...wasm.topK(keys, n, k)]).toEqual([...reference.topK(keys, n, k)]);
      }
    }
  });
});
