/**
 * Seeded benchmark inputs: the same keys on every run and machine.
 */

/** mulberry32: a small, fast 32-bit PRNG; returns a generator of uint32 values. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * `n` uniform doubles in [0, 1) with 53 random bits each (two draws), so a million of them are
 * all distinct with overwhelming probability: 32 bits alone would give ~100 ties per million.
 */
export function randomKeys(n: number, seed: number): Float64Array {
  const next = mulberry32(seed);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (next() * 2 ** 21 + (next() >>> 11)) / 2 ** 53;
  return keys;
}

/** The same keys, sorted ascending (a copy). */
export function ascending(keys: Float64Array): Float64Array {
  return keys.slice().sort();
}

/** `runs` runs of `runLength` random keys, each sorted descending, back to back; `starts` has runs+1 offsets. */
export function descendingRuns(runs: number, runLength: number, seed: number): { keys: Float64Array; starts: Uint32Array } {
  const keys = randomKeys(runs * runLength, seed);
  const starts = new Uint32Array(runs + 1);
  for (let s = 0; s < runs; s++) {
    starts[s + 1] = (s + 1) * runLength;
    keys.subarray(s * runLength, (s + 1) * runLength).sort().reverse();
  }
  return { keys, starts };
}
