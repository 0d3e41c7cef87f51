/**
 * The conformance vectors: top-k, merge pages and rank selections with the answers of the plain
 * reference (src/core/reference.ts), which every runtime checks the packaged kernels against
 * (check.js). Made from a fixed seed, so generating again writes the same file:
 *
 *   node --import tsx test/runtimes/vectors.ts    (writes test/runtimes/vectors.json)
 *
 * test/core/vectors.test.ts fails when the committed file is not what this makes.
 *
 * JSON has no NaN, -0 or infinities, so a value is a number or one of the strings "NaN", "-0",
 * "Infinity", "-Infinity", or "NaN:<16 hex digits>" for a NaN with other bits (any NaN is missing).
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compareEntries, type Direction, type KeyOrder, type Missing, type RunKey, type Runs, type SortKey } from '../../src/core/order.ts';
import * as reference from '../../src/core/reference.ts';
import { encode as encodeKey } from '../core/arbitraries.ts';

export const VECTORS_URL = new URL('./vectors.json', import.meta.url);

type Encoded = number | string;
interface EncodedOrder {
  order?: Direction;
  missing?: Encoded;
}
interface EncodedKey extends EncodedOrder {
  values: Encoded[];
}
interface TopKVector {
  name: string;
  keys: EncodedKey[];
  n: number;
  k: number;
  want: number[];
}
interface RunsVector {
  name: string;
  order: EncodedOrder[];
  runs: { keys: { values: Encoded[]; map?: Encoded[]; offset?: Encoded }[] }[];
  pages: { from: number; size: number; run: number[]; pos: number[] }[];
  ranks: { rank: number; want: number[] }[];
}

// ---- values ------------------------------------------------------------------------------------

/** NaNs other than the canonical one: sign bit set, a signalling payload, all payload bits. */
const ODD_NANS = [0xfff8000000000000n, 0x7ff0000000000001n, 0x7fffffffffffffffn];

/** mulberry32: a small seeded generator, so the vectors never depend on a library's sampling. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 0x5eed;
let rng = random(SEED);
const int = (n: number) => Math.floor(rng() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)];

const SPECIALS = [NaN, -0, 0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE];

/**
 * Value pools, each with NaN, ±0, ±∞ and the extremes mixed in: few distinct values (ties
 * everywhere), some, or many (integers, so the file stays small).
 */
type Pool = 'ties' | 'mixed' | 'wide';
function value(pool: Pool): number {
  if (rng() < (pool === 'wide' ? 0.05 : 0.25)) return pick(SPECIALS);
  if (pool === 'ties') return int(4) - 1;
  if (pool === 'mixed') return int(21) - 10;
  return int(100000) - 50000;
}

type Shape = 'random' | 'ascending' | 'descending' | 'equal' | 'missing' | 'zeros';

/** n values of a pool laid out in a shape; with `oddNaNs`, some NaNs carry other bit patterns. */
function column(n: number, pool: Pool, shape: Shape, oddNaNs = false): Float64Array {
  const out = Float64Array.from({ length: n }, () => value(pool));
  if (shape === 'ascending') out.sort();
  if (shape === 'descending') out.sort().reverse();
  if (shape === 'equal') out.fill(out[0] ?? 0);
  if (shape === 'missing') out.fill(NaN);
  if (shape === 'zeros') out.forEach((_, i) => (out[i] = pick([0, -0, -0, NaN])));
  if (oddNaNs) {
    const bits = new BigUint64Array(out.buffer);
    out.forEach((v, i) => {
      if (Number.isNaN(v) && rng() < 0.5) bits[i] = pick(ODD_NANS);
    });
  }
  return out;
}

/** A column as JSON values, NaN bit patterns kept (read from the array's bytes, not as numbers). */
function encode(values: Float64Array): Encoded[] {
  const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
  return Array.from(values, (v, i) => encodeValue(v, bits[i]));
}

function encodeValue(v: number, bits = 0x7ff8000000000000n): Encoded {
  if (Number.isNaN(v)) return bits === 0x7ff8000000000000n ? 'NaN' : `NaN:${bits.toString(16).padStart(16, '0')}`;
  if (Object.is(v, -0)) return '-0';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  return v;
}

const MISSING: Missing[] = ['_last', '_first', 0, -0, 1, Infinity, -Infinity, NaN];

function keyOrder(): KeyOrder {
  return { order: pick(['asc', 'desc'] as const), missing: pick(MISSING) };
}

function encodeOrder({ order, missing }: KeyOrder): EncodedOrder {
  return { order, missing: typeof missing === 'number' ? encodeValue(missing) : missing };
}

// ---- top-k -------------------------------------------------------------------------------------

function topK(name: string, keys: SortKey[], n: number, k: number): TopKVector {
  return {
    name,
    keys: keys.map((key) => ({ ...encodeOrder(key), values: encode(key.values) })),
    n,
    k,
    want: Array.from(reference.topK(keys, n, k)),
  };
}

function topKVectors(): TopKVector[] {
  const out: TopKVector[] = [];
  // One key: each direction and missing mode, k below, at and above n.
  for (const order of ['asc', 'desc'] as const) {
    for (const missing of MISSING) {
      const values = column(40, 'mixed', 'random', true);
      for (const k of [1, 12, 40, 45]) out.push(topK(`one key ${order} missing ${String(missing)} k=${k}`, [{ values, order, missing }], 40, k));
    }
  }
  // Edges of n and k.
  for (const [n, k] of [[0, 0], [0, 5], [1, 0], [1, 1], [5, 0], [7, 3], [8, 8], [9, 4], [16, 15], [17, 100]]) {
    out.push(topK(`n=${n} k=${k}`, [{ values: column(n, 'mixed', 'random'), ...keyOrder() }], n, k));
  }
  // Columns of one kind: signed zeros, all missing, all equal, sorted either way.
  for (const shape of ['zeros', 'missing', 'equal', 'ascending', 'descending'] as const) {
    for (const order of ['asc', 'desc'] as const) {
      out.push(topK(`${shape} ${order}`, [{ values: column(50, 'mixed', shape, true), order, missing: pick(MISSING) }], 50, 20));
    }
  }
  // Several keys: the first ties often, so the later ones decide.
  for (let i = 0; i < 36; i++) {
    const keys = 2 + (i % 3);
    const n = pick([3, 8, 9, 31, 64, 200]);
    const sortKeys = Array.from({ length: keys }, (_, j) => ({ values: column(n, j === 0 ? 'ties' : pick(['ties', 'mixed'] as const), pick(['random', 'random', 'zeros', 'equal'] as const), true), ...keyOrder() }));
    out.push(topK(`${keys} keys n=${n} #${i}`, sortKeys, n, pick([1, 5, Math.ceil(n / 2), n])));
  }
  // Past 8,192 entries top-k samples a limit first; from k = n/4 on it keeps every candidate.
  // Ascending values in descending order improve at every entry: the case the sample is there for.
  const large: [number, number, Shape, Pool, number, Direction][] = [
    [8192, 100, 'random', 'mixed', 1, 'asc'],
    [8192, 100, 'random', 'mixed', 1, 'desc'],
    [8192, 2048, 'random', 'wide', 1, 'asc'],
    [8193, 2048, 'random', 'wide', 1, 'desc'],
    [8192, 10, 'ascending', 'wide', 1, 'asc'],
    [8192, 10, 'ascending', 'wide', 1, 'desc'],
    [9000, 64, 'equal', 'mixed', 1, 'asc'],
    [10000, 500, 'random', 'ties', 2, 'desc'],
    [16384, 1, 'random', 'wide', 1, 'desc'],
    [16384, 4097, 'random', 'ties', 1, 'asc'],
  ];
  for (const [n, k, shape, pool, keys, order] of large) {
    const sortKeys = Array.from({ length: keys }, (_, j) => ({ values: column(n, j === 0 ? pool : 'mixed', j === 0 ? shape : 'random'), order, missing: pick(MISSING) }));
    out.push(topK(`n=${n} k=${k} ${shape} ${pool} ${keys} key(s) ${order}`, sortKeys, n, k));
  }
  return out;
}

// ---- runs: merge pages and rank selection ---------------------------------------------------------

type Encoding = 'plain' | 'map' | 'offset' | 'negative zero offset';

interface RunsSpec {
  name: string;
  lengths: number[];
  order: KeyOrder[];
  /** The comparable values of key j, entry e of run r (before sorting the run). */
  value: (r: number, j: number, e: number) => number;
  encodings?: Encoding[];
}

/**
 * Runs as the engine keeps them: each sorted by the keys (ties in position order), each key's values
 * kept plainly, as ordinals into a map, or less an offset (where that is exact).
 */
function makeRuns({ lengths, order, value, encodings }: RunsSpec): Runs {
  return {
    order,
    runs: lengths.map((length, r) => {
      const plain: SortKey[] = order.map((key, j) => ({ ...key, values: Float64Array.from({ length }, (_, e) => value(r, j, e)) }));
      const sorted = Array.from({ length }, (_, e) => e).sort((a, b) => compareEntries(plain, a, b) || a - b);
      return { length, keys: plain.map((key, j) => encodeRunKey(Float64Array.from(sorted, (e) => key.values[e]), encodings?.[j] ?? 'plain', r)) };
    }),
  };
}

function encodeRunKey(values: Float64Array, encoding: Encoding, r: number): RunKey {
  if (encoding === 'negative zero offset') return { values, offset: -0 };
  return encodeKey(values, encoding, r);
}

function runsVector(spec: RunsSpec, extraRanks: number[] = []): RunsVector {
  const runs = makeRuns(spec);
  const total = runs.runs.reduce((n, run) => n + run.length, 0);
  const froms = [...new Set([0, 1, Math.floor(total / 3), Math.floor((2 * total) / 3), Math.max(0, total - 1), total, total + 7])];
  const pages = froms.map((from, i) => ({ from, size: [0, 1, 10, 37, 64, 5, 3][i % 7] })).concat(total <= 300 ? [{ from: 0, size: total }] : []);
  const ranks = [...new Set([0, 1, Math.floor(total / 2), Math.max(0, total - 1), total, total + 1, 0xffffffff, ...extraRanks])];
  return {
    name: spec.name,
    order: runs.order.map(encodeOrder),
    runs: runs.runs.map((run) => ({
      keys: run.keys.map((key) => ({
        values: encode(key.values),
        ...(key.map ? { map: encode(key.map) } : {}),
        ...(key.offset !== undefined ? { offset: encodeValue(key.offset) } : {}),
      })),
    })),
    pages: pages.map(({ from, size }) => {
      const page = reference.mergeRuns(runs, from, size);
      return { from, size, run: Array.from(page.run), pos: Array.from(page.pos) };
    }),
    ranks: ranks.map((rank) => ({ rank, want: Array.from(reference.rankSelect(runs, rank)) })),
  };
}

function runsVectors(): RunsVector[] {
  const out: RunsVector[] = [];
  const lengths = (runs: number, max: number) => Array.from({ length: runs }, () => (rng() < 0.15 ? 0 : int(max + 1)));
  // Each run is sorted after its values are drawn, so drawing them one by one is enough.
  const from = (pool: Pool) => () => value(pool);
  const zeros = () => pick([0, -0, -0, NaN]);
  // One key: each direction and missing mode.
  for (const order of ['asc', 'desc'] as const) {
    for (const missing of MISSING.slice(0, 6)) {
      out.push(runsVector({ name: `one key ${order} missing ${String(missing)}`, lengths: lengths(5, 30), order: [{ order, missing }], value: from('mixed') }));
    }
  }
  // Edges: no runs, only empty runs, one run, runs of signed zeros or nothing but missing values.
  out.push(runsVector({ name: 'no runs', lengths: [], order: [keyOrder()], value: from('mixed') }));
  out.push(runsVector({ name: 'empty runs', lengths: [0, 0, 0], order: [keyOrder()], value: from('mixed') }));
  out.push(runsVector({ name: 'one run', lengths: [40], order: [keyOrder()], value: from('mixed') }));
  out.push(runsVector({ name: 'signed zeros', lengths: lengths(6, 20), order: [{ order: 'asc' }], value: zeros }));
  out.push(runsVector({ name: 'signed zeros desc', lengths: lengths(6, 20), order: [{ order: 'desc', missing: '_first' }], value: zeros }));
  out.push(runsVector({ name: 'all missing', lengths: lengths(4, 20), order: [{ order: 'desc', missing: -0 }, keyOrder()], value: (_r, j) => (j === 0 ? NaN : value('ties')) }));
  // Several keys, kept plainly, through maps and offsets (keyword ordinals, _doc positions).
  const encodings: Encoding[] = ['plain', 'map', 'offset', 'negative zero offset'];
  for (let i = 0; i < 16; i++) {
    const keys = 1 + (i % 4);
    const runs = pick([2, 3, 7, 12]);
    out.push(
      runsVector({
        name: `${keys} keys ${runs} runs #${i}`,
        lengths: lengths(runs, 40),
        order: Array.from({ length: keys }, keyOrder),
        value: from(i % 2 ? 'ties' : 'mixed'),
        encodings: Array.from({ length: keys }, () => pick(encodings)),
      }),
    );
  }
  // Many runs.
  out.push(runsVector({ name: '64 runs', lengths: lengths(64, 40), order: [keyOrder()], value: from('mixed') }));
  out.push(runsVector({ name: '64 runs 2 keys', lengths: lengths(64, 40), order: [keyOrder(), keyOrder()], value: from('ties'), encodings: ['map', 'offset'] }));
  out.push(runsVector({ name: '200 short runs', lengths: lengths(200, 8), order: [keyOrder()], value: from('wide') }));
  // Long runs, where rank selection takes several rounds: interleaved, disjoint, skewed, all equal.
  const ranks = (total: number) => Array.from({ length: 4 }, () => int(total));
  const long: [string, number[], (r: number, j: number, e: number) => number][] = [
    ['interleaved', [1500, 1500, 1500, 1500, 1500], from('wide')],
    ['disjoint', [1500, 1500, 1500, 1500], (r, _j, e) => r * 2000 + e],
    ['disjoint reversed', [1500, 1500, 1500, 1500], (r, _j, e) => -r * 2000 + e],
    ['skewed', [5000, 10, 300, 1, 1200], from('wide')],
    ['all equal', [2000, 2000, 2000], () => 7],
    ['heavy ties', [2000, 1500, 2500], from('ties')],
  ];
  for (const [name, runLengths, value] of long) {
    for (const order of ['asc', 'desc'] as const) {
      const total = runLengths.reduce((a, b) => a + b, 0);
      out.push(runsVector({ name: `long runs ${name} ${order}`, lengths: runLengths, order: [{ order, missing: pick(MISSING) }], value }, ranks(total)));
    }
  }
  return out;
}

// ---- the file ------------------------------------------------------------------------------------

export interface Vectors {
  about: string;
  topK: TopKVector[];
  runs: RunsVector[];
}

export function generateVectors(): Vectors {
  rng = random(SEED);
  return {
    about: 'deeppage kernel conformance vectors, answers by src/core/reference.ts; made by test/runtimes/vectors.ts, checked by test/runtimes/check.js',
    topK: topKVectors(),
    runs: runsVectors(),
  };
}

/** The file's text: one vector a line, so a change shows as the lines of the vectors it touches. */
export function vectorsText(vectors: Vectors): string {
  const list = (items: unknown[]) => (items.length ? `[\n${items.map((item) => `    ${JSON.stringify(item)}`).join(',\n')}\n  ]` : '[]');
  return `{\n  "about": ${JSON.stringify(vectors.about)},\n  "topK": ${list(vectors.topK)},\n  "runs": ${list(vectors.runs)}\n}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const vectors = generateVectors();
  writeFileSync(VECTORS_URL, vectorsText(vectors));
  const checks = vectors.topK.length + vectors.runs.reduce((n, set) => n + set.pages.length + set.ranks.length, 0);
  console.log(`wrote ${VECTORS_URL.pathname}: ${checks} vectors (${vectors.topK.length} top-k, ${vectors.runs.length} run sets)`);
}
