/**
 * `npm start` for this release: pages through a million prices spread over five shards, the way the
 * search service will, and shows what each page cost.
 */
import { wasmKernels } from './core/index.ts';

const SHARDS = 5;
const PER_SHARD = 200_000;
const SIZE = 10;

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const kernels = wasmKernels();
const random = mulberry32(42);
const total = SHARDS * PER_SHARD;

// Each shard holds its own prices (rounded to cents, so many are equal) and sorts them once.
const shardPrices = Array.from({ length: SHARDS }, () =>
  Float64Array.from({ length: PER_SHARD }, () => Math.round(random() * 100_000) / 100),
);
const sorted = kernels.column(total);
const starts = Uint32Array.from({ length: SHARDS + 1 }, (_, s) => s * PER_SHARD);
let t0 = performance.now();
shardPrices.forEach((prices, s) => {
  const order = kernels.topK([{ values: prices, order: 'desc' }], PER_SHARD, PER_SHARD);
  const run = sorted.values.subarray(starts[s], starts[s + 1]);
  order.forEach((doc, i) => (run[i] = prices[doc]));
});
console.log(`${total.toLocaleString()} prices over ${SHARDS} shards, each sorted by price desc in ${(performance.now() - t0).toFixed(1)} ms`);

const runs = { keys: [{ values: sorted, order: 'desc' as const }], starts };
for (const from of [0, SIZE, 500_000, total - SIZE]) {
  t0 = performance.now();
  const page = kernels.mergeRuns(runs, from, SIZE);
  const ms = performance.now() - t0;
  const hits = [...page.run].map((shard, i) => `${sorted.values[starts[shard] + page.pos[i]].toFixed(2)}@${shard}`);
  console.log(`from=${String(from).padEnd(7)} size=${SIZE}  ${ms.toFixed(3).padStart(7)} ms  ${hits.join(' ')}`);
}
