/**
 * Kernel suite: wasm top-k, k-way merge, rank selection and the scan floor against JS peers.
 *
 * Before timing a configuration, every implementation's output is checked against the others
 * (and, on small inputs, against src/core/reference.ts); any disagreement aborts the run.
 */
import { reference, wasmKernels, type Column, type Runs, type WasmArray } from '../../src/core/index.ts';
import { ascending, descendingRuns, mulberry32, randomKeys } from '../lib/data.ts';
import { FULL, QUICK, SMOKE, measure, type Budget, type Timing } from '../lib/measure.ts';
import type { Params, Row } from '../lib/results.ts';
import { WrongAnswer, type Mode, type Suite, type SuiteContext } from '../lib/suite.ts';
import { heapMerge, heapRank, heapTopK, quickselectTopK, sortKeys } from './peers.ts';
import { kernelsMarkdown, topkChart, type Group, type Impl, type Input } from './report.ts';

interface Profile {
  n: number;
  ks: number[];
  runSets: { runs: number; runLength: number }[];
  budget: Budget;
}

const PROFILES: Record<Mode, Profile> = {
  full: {
    n: 1_000_000,
    ks: [10, 1_000, 10_000, 100_000, 1_000_000],
    runSets: [
      { runs: 5, runLength: 10_000 },
      { runs: 5, runLength: 100_000 },
      { runs: 32, runLength: 10_000 },
      { runs: 32, runLength: 100_000 },
    ],
    budget: FULL,
  },
  quick: {
    n: 1_000_000,
    ks: [10, 1_000, 100_000, 1_000_000],
    runSets: [{ runs: 5, runLength: 10_000 }, { runs: 32, runLength: 10_000 }],
    budget: { ...QUICK, time: 150 },
  },
  smoke: { n: 5_000, ks: [10, 5_000], runSets: [{ runs: 3, runLength: 100 }], budget: SMOKE },
};

const INPUTS: Input[] = ['random', 'ascending'];

let N = 0, KS: number[] = [], RUN_SETS: Profile['runSets'] = [], budget: Budget = SMOKE, quick = false;
let kernels: ReturnType<typeof wasmKernels>;
let rows: Row[] = [];
let log: (line: string) => void = () => {};

function record(group: Group, impl: Impl, params: Params, timing: Timing): void {
  rows.push({ group, strategy: impl, params, unit: 'ms', ...timing });
  const p = Object.entries(params).map(([key, v]) => `${key}=${v}`).join(' ');
  log(`  ${group.padEnd(5)} ${impl.padEnd(14)} ${p.padEnd(44)} median ${timing.median.toFixed(3)} ms  (min ${timing.min.toFixed(3)}, max ${timing.max.toFixed(3)})`);
}

function assertSame(what: string, got: ArrayLike<number>, want: ArrayLike<number>): void {
  if (got.length !== want.length) throw new WrongAnswer(`${what}: ${got.length} entries, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) throw new WrongAnswer(`${what}: differs at ${i}: ${got[i]} vs ${want[i]}`);
  }
}

function placed(keys: Float64Array): WasmArray {
  const column = kernels.f64(keys.length);
  column.view.set(keys);
  return column;
}

/** Runs given as one key column and run offsets, as the kernels take them: views of the column. */
function runsOf(keys: Float64Array, starts: Uint32Array): Runs {
  return { order: [{ order: 'desc' }], runs: Array.from({ length: starts.length - 1 }, (_, s) => ({ length: starts[s + 1] - starts[s], keys: [{ values: keys.subarray(starts[s], starts[s + 1]) }] })) };
}

/** The same runs, each copied into its own array in wasm memory (read in place by the kernels); free them after. */
function placedRuns(keys: Float64Array, starts: Uint32Array): { runs: Runs<Column>; free(): void } {
  const arrays = Array.from({ length: starts.length - 1 }, (_, s) => placed(keys.subarray(starts[s], starts[s + 1])));
  return {
    runs: { order: [{ order: 'desc' }], runs: arrays.map((values) => ({ length: values.length, keys: [{ values }] })) },
    free: () => arrays.forEach((a) => a.free()),
  };
}

/** The peers against the project's oracle on small inputs with many ties, to trust them as the reference at scale. */
function checkPeersAgainstReference(): void {
  const next = mulberry32(7);
  const n = 3000;
  const keys = Float64Array.from({ length: n }, () => next() % 50); // ~60 ties per value
  for (const k of [0, 1, 10, 999, n, n + 5]) {
    const want = reference.topK([{ values: keys, order: 'desc' }], n, k);
    assertSame(`small topk js-heap k=${k}`, heapTopK(keys, n, k), want);
    assertSame(`small topk js-quickselect k=${k}`, quickselectTopK(keys, n, k, Uint32Array.from({ length: n }, (_, i) => i)), want);
    assertSame(`small topk wasm k=${k}`, kernels.topK([{ values: keys, order: 'desc' }], n, k), want);
  }
  const lengths = [400, 0, 1000, 7, 600];
  const starts = Uint32Array.from([0, ...lengths.map((_, s) => lengths.slice(0, s + 1).reduce((a, b) => a + b, 0))]);
  const runKeys = new Float64Array(starts[starts.length - 1]);
  for (let s = 0; s < lengths.length; s++) {
    const run = runKeys.subarray(starts[s], starts[s + 1]);
    for (let i = 0; i < run.length; i++) run[i] = next() % 40;
    run.sort().reverse();
  }
  const runs = runsOf(runKeys, starts);
  const total = runKeys.length;
  const want = reference.mergeRuns(runs, 0, total);
  const js = heapMerge(runKeys, starts, total), wasm = kernels.mergeRuns(runs, 0, total);
  assertSame('small merge js-heap run', js.run, want.run);
  assertSame('small merge js-heap pos', js.pos, want.pos);
  assertSame('small merge wasm run', wasm.run, want.run);
  assertSame('small merge wasm pos', wasm.pos, want.pos);
  for (const rank of [0, 1, 500, total - 10, total]) {
    const wantSplits = reference.rankSelect(runs, rank);
    assertSame(`small rank js-heap rank=${rank}`, heapRank(runKeys, starts, rank), wantSplits);
    assertSame(`small rank wasm rank=${rank}`, kernels.rankSelect(runs, rank), wantSplits);
  }
  log('checked: js peers and wasm agree with src/core/reference.ts on small inputs with ties');
}

function scanSuite(column: WasmArray): void {
  log('suite scan');
  const keys = column.view;
  let sum = 0;
  for (let i = 0; i < N; i++) sum += keys[i];
  const got = kernels.sumKeys(column, N);
  if (got !== sum) throw new WrongAnswer(`scan: wasm sum ${got} differs from JS sum ${sum}`);
  record('scan', 'wasm', { n: N }, measure(budget, () => kernels.sumKeys(column, N)));
}

function topkSuite(columns: Record<Input, WasmArray>, inputs: Record<Input, Float64Array>): void {
  log('suite topk');
  const ids = new Uint32Array(N);
  const identity = Uint32Array.from({ length: N }, (_, i) => i);
  const copy = new Float64Array(N);
  for (const input of INPUTS) {
    const keys = inputs[input];
    const spec = [{ values: columns[input], order: 'desc' as const }];
    const sorted = sortKeys(keys.slice());
    for (const k of KS) {
      // Correctness first: all three id-returning impls must agree exactly, and match the sorted keys.
      const wasm = kernels.topK(spec, N, k);
      const heap = heapTopK(keys, N, k);
      ids.set(identity);
      const qs = quickselectTopK(keys, N, k, ids);
      assertSame(`topk k=${k} ${input}: js-heap vs wasm`, heap, wasm);
      assertSame(`topk k=${k} ${input}: js-quickselect vs wasm`, qs, wasm);
      const best = Float64Array.from(wasm, (e) => keys[e]);
      assertSame(`topk k=${k} ${input}: wasm keys vs js-sort`, best, sorted.slice(N - k).reverse());

      const params: Params = { n: N, k, input };
      record('topk', 'wasm', params, measure(budget, () => kernels.topK(spec, N, k)));
      // The slow JS peers at k = n get the minimum sample count in quick mode.
      const peerBudget = quick && k >= N ? { ...budget, iterations: 3, time: 0 } : budget;
      record('topk', 'js-heap', params, measure(peerBudget, () => heapTopK(keys, N, k)));
      record('topk', 'js-quickselect', params, measure(peerBudget, () => quickselectTopK(keys, N, k, ids), () => ids.set(identity)));
      record('topk', 'js-sort', params, measure(budget, () => sortKeys(copy), () => copy.set(keys)));
    }
  }
}

const runData = new Map<string, { keys: Float64Array; starts: Uint32Array }>();
function runSet(runs: number, runLength: number): { keys: Float64Array; starts: Uint32Array } {
  const id = `${runs}x${runLength}`;
  let data = runData.get(id);
  if (!data) runData.set(id, (data = descendingRuns(runs, runLength, 1000 + runs * 7 + runLength)));
  return data;
}

function mergeSuite(): void {
  log('suite merge');
  for (const { runs, runLength } of RUN_SETS) {
    const { keys, starts } = runSet(runs, runLength);
    const placedSet = placedRuns(keys, starts);
    const wasmRuns = placedSet.runs;
    const total = runs * runLength;
    const wasm = kernels.mergeRuns(wasmRuns, 0, total);
    const js = heapMerge(keys, starts, total);
    assertSame(`merge ${runs}x${runLength}: js-heap vs wasm run`, js.run, wasm.run);
    assertSame(`merge ${runs}x${runLength}: js-heap vs wasm pos`, js.pos, wasm.pos);

    const params: Params = { runs, runLength };
    record('merge', 'wasm', params, measure(budget, () => kernels.mergeRuns(wasmRuns, 0, total).run));
    record('merge', 'js-heap', params, measure(budget, () => heapMerge(keys, starts, total).run));
    placedSet.free();
  }
}

function rankSuite(): void {
  log('suite rank');
  for (const { runs, runLength } of RUN_SETS) {
    const { keys, starts } = runSet(runs, runLength);
    const placedSet = placedRuns(keys, starts);
    const wasmRuns = placedSet.runs;
    const total = runs * runLength;
    for (const rank of [total / 2, total - 10]) {
      const wasm = kernels.rankSelect(wasmRuns, rank);
      assertSame(`rank ${runs}x${runLength} rank=${rank}: js-heap vs wasm`, heapRank(keys, starts, rank), wasm);
      const params: Params = { runs, runLength, rank };
      record('rank', 'wasm', params, measure(budget, () => kernels.rankSelect(wasmRuns, rank)));
      record('rank', 'js-heap', params, measure(budget, () => heapRank(keys, starts, rank)));
    }
    placedSet.free();
  }
}

export const kernelsSuite: Suite = {
  name: 'kernels',
  summary: 'wasm top-k, k-way merge and rank selection against plain JS peers (1M f64 keys)',
  async run(ctx: SuiteContext) {
    const profile = PROFILES[ctx.mode];
    ({ n: N, ks: KS, runSets: RUN_SETS, budget } = profile);
    quick = ctx.mode !== 'full';
    log = ctx.log;
    rows = [];
    kernels = wasmKernels();
    checkPeersAgainstReference();
    const random = randomKeys(N, 42);
    const inputs: Record<Input, Float64Array> = { random, ascending: ascending(random) };
    const columns: Record<Input, WasmArray> = { random: placed(inputs.random), ascending: placed(inputs.ascending) };
    scanSuite(columns.random);
    topkSuite(columns, inputs);
    mergeSuite();
    rankSuite();
    columns.random.free();
    columns.ascending.free();
    runData.clear();
    return {
      rows,
      markdown: kernelsMarkdown(rows),
      charts: [topkChart(rows)],
      notes: { keys: 'seeded mulberry32 f64 in [0, 1) with 53 random bits (seed 42); runs: seed 1000 + 7·runs + runLength', order: 'descending' },
    };
  },
};
