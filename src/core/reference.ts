/**
 * Plain TypeScript versions of the kernels: obviously right, slow. They are the oracle in the
 * tests and the peer for sorts longer than the kernels take.
 */
import { compareEntries, compareToPosition, compareValues, runValue, type MergedPage, type Position, type Runs, type SortKey } from './order.ts';

/** The entries 0..n-1 that sort first by `keys` (ties by lower entry), best first; min(k, n) of them. */
export function topK(keys: SortKey<ArrayLike<number>>[], n: number, k: number): Uint32Array {
  const entries = Array.from({ length: n }, (_, i) => i);
  entries.sort((a, b) => compareEntries(keys, a, b) || a - b);
  return Uint32Array.from(entries.slice(0, Math.max(0, Math.min(k, n))));
}

/** {@link topK} of the entries that come after `position` (`search_after`). */
export function topKAfter(keys: SortKey<ArrayLike<number>>[], n: number, k: number, position: Position): Uint32Array {
  const after = Array.from({ length: n }, (_, i) => i).filter((e) => compareToPosition(keys, e, position) > 0);
  after.sort((a, b) => compareEntries(keys, a, b) || a - b);
  return Uint32Array.from(after.slice(0, Math.max(0, Math.min(k, after.length))));
}

function mergedOrder({ order, runs }: Runs<ArrayLike<number>>): { run: number; pos: number }[] {
  const all: { run: number; pos: number }[] = [];
  runs.forEach((run, r) => {
    for (let p = 0; p < run.length; p++) all.push({ run: r, pos: p });
  });
  const compare = (a: { run: number; pos: number }, b: { run: number; pos: number }) => {
    for (let j = 0; j < order.length; j++) {
      const c = compareValues(runValue(runs[a.run], j, a.pos), runValue(runs[b.run], j, b.pos), order[j].order, order[j].missing);
      if (c !== 0) return c;
    }
    return a.run - b.run || a.pos - b.pos;
  };
  return all.sort(compare);
}

/** Merged entries [from, from+size) of the runs. */
export function mergeRuns(runs: Runs<ArrayLike<number>>, from: number, size: number): MergedPage {
  const page = mergedOrder(runs).slice(from, from + size);
  return { run: Uint32Array.from(page, (x) => x.run), pos: Uint32Array.from(page, (x) => x.pos) };
}

/** {@link WasmKernels.countBetween}: per run, entries before `low` on key 0, and the positions and values of those from `low` through `high`. */
export function countBetween({ order, runs }: Runs<ArrayLike<number>>, low: number, high: number): { before: Uint32Array; between: Uint32Array; positions: Uint32Array; values: Float64Array } {
  const before = new Uint32Array(runs.length), between = new Uint32Array(runs.length);
  const positions: number[] = [], values: number[] = [];
  const { order: direction, missing } = order[0];
  runs.forEach((run, r) => {
    for (let p = 0; p < run.length; p++) {
      const v = runValue(run, 0, p);
      if (compareValues(v, low, direction, missing) < 0) before[r]++;
      else if (compareValues(v, high, direction, missing) <= 0) {
        between[r]++;
        positions.push(p);
        values.push(v);
      }
    }
  });
  return { before, between, positions: Uint32Array.from(positions), values: Float64Array.from(values) };
}

/** For each run, how many of its entries are among the first `rank` of the merged order. */
export function rankSelect(runs: Runs<ArrayLike<number>>, rank: number): Uint32Array {
  const splits = new Uint32Array(runs.runs.length);
  for (const { run } of mergedOrder(runs).slice(0, rank)) splits[run]++;
  return splits;
}

/** {@link WasmKernels.markedEntries}: the indices of the entries whose position is marked, in order. */
export function markedEntries(positions: ArrayLike<number>, marks: ArrayLike<number>): Uint32Array {
  const out: number[] = [];
  for (let i = 0; i < positions.length; i++) if (marks[positions[i]] === 1) out.push(i);
  return Uint32Array.from(out);
}

/** {@link WasmKernels.scoreTerms}: the documents holding at least `minimum` of the terms, and their summed BM25 scores. */
export function scoreTerms(terms: readonly { docs: ArrayLike<number>; freqs: ArrayLike<number>; weight: number; inverse: ArrayLike<number> }[], norms: ArrayLike<number>, minimum: number, scored: boolean): { docs: Uint32Array; scores?: Float64Array } {
  const f = Math.fround;
  const held = new Map<number, { terms: number; sum: number }>();
  for (const { docs, freqs, weight, inverse } of terms) {
    for (let p = 0; p < docs.length; p++) {
      const doc = docs[p];
      const score = f(weight - f(weight / f(1 + f(freqs[p] * inverse[norms[doc]]))));
      const at = held.get(doc) ?? { terms: 0, sum: 0 };
      at.terms++;
      at.sum += score;
      held.set(doc, at);
    }
  }
  const kept = [...held].filter(([, { terms: n }]) => n >= Math.max(1, minimum)).sort(([a], [b]) => a - b);
  const docs = Uint32Array.from(kept, ([doc]) => doc);
  return scored ? { docs, scores: Float64Array.from(kept, ([, { sum }]) => f(sum)) } : { docs };
}

/** {@link WasmKernels.bestScored}: the matches (deleted ones left out) counted, and the best `k` by score, then document. */
export function bestScored(terms: Parameters<typeof scoreTerms>[0], norms: ArrayLike<number>, minimum: number, k: number, deleted?: ArrayLike<number>): { count: number; docs: Uint32Array; scores: Float64Array } {
  const all = scoreTerms(terms, norms, minimum, true);
  const kept = [...all.docs.keys()].filter((i) => !deleted || deleted[all.docs[i]] !== 1);
  const best = [...kept].sort((a, b) => all.scores![b] - all.scores![a] || all.docs[a] - all.docs[b]).slice(0, k);
  return { count: kept.length, docs: Uint32Array.from(best, (i) => all.docs[i]), scores: Float64Array.from(best, (i) => all.scores![i]) };
}
