// Rank selection in a union of sorted runs (Frederickson–Johnson): for a global rank r, the offset
// in every run such that the first r entries of the merged order are exactly the runs' prefixes.
//
// Runs are given as `starts` (S+1 u32 entry offsets into the key columns; run s is entries
// [starts[s], starts[s+1])), each sorted in the order of keys.ts; equal keys order by run, then
// position. Each run keeps a window [lo, hi] known to contain its split. A round takes the
// weighted median of the windows' middle entries as a pivot, counts by binary search how many
// entries of each window precede it, and shrinks every window to one side of the pivot: at least a
// quarter of the total window goes each round, so O(log n) rounds of O(S log n) work.

import { alloc, mark, release } from "./arena";
import { setU32, u32At } from "./mem";
import { entryBefore, imageAt, loadSpec } from "./keys";

/** Writes S u32 split offsets (positions within each run) to `out` for the global `rank`. */
export function rankSelect(spec: usize, keys: i32, starts: usize, runs: u32, rank: u32, out: usize): void {
  loadSpec(spec, keys);
  splits(starts, runs, rank, out);
}

/** rankSelect with the spec already loaded. */
export function splits(starts: usize, runs: u32, rank: u32, out: usize): void {
  const total = u32At(starts, runs) - u32At(starts, 0);
  if (rank >= total) {
    for (let s: u32 = 0; s < runs; s++) setU32(out, s, u32At(starts, s + 1) - u32At(starts, s));
    return;
  }
  const m = mark();
  const lo = out;
  const hi = alloc((<usize>runs) << 2);
  const cand = alloc((<usize>runs) << 2);
  const candImg = alloc((<usize>runs) << 3);
  for (let s: u32 = 0; s < runs; s++) {
    setU32(lo, s, 0);
    setU32(hi, s, u32At(starts, s + 1) - u32At(starts, s));
  }
  while (true) {
    let sumLo: u64 = 0, sumHi: u64 = 0, weight: u64 = 0, n: u32 = 0;
    for (let s: u32 = 0; s < runs; s++) {
      const l = u32At(lo, s), h = u32At(hi, s);
      sumLo += l;
      sumHi += h;
      if (h > l) {
        setU32(cand, n, s);
        store<i64>(candImg + ((<usize>n) << 3), imageAt(0, u32At(starts, s) + l + ((h - l) >> 1)));
        n++;
        weight += h - l;
      }
    }
    if (sumLo == rank || n == 0) break;
    if (sumHi == rank) {
      memory.copy(lo, hi, (<usize>runs) << 2);
      break;
    }
    sortCandidates(cand, candImg, n, starts, lo, hi);
    // Weighted median: the first middle entry at which half the window weight is reached.
    let acc: u64 = 0, pick: u32 = 0;
    for (; pick < n - 1; pick++) {
      const s = u32At(cand, pick);
      acc += u32At(hi, s) - u32At(lo, s);
      if (acc * 2 >= weight) break;
    }
    const pRun = u32At(cand, pick);
    const pPos = u32At(lo, pRun) + ((u32At(hi, pRun) - u32At(lo, pRun)) >> 1);
    const pEntry = u32At(starts, pRun) + pPos;
    // Counts clamped to the windows decide the pivot's side exactly (see the module note).
    let before: u64 = 0;
    for (let s: u32 = 0; s < runs; s++) {
      const c = s == pRun ? pPos : precedingIn(starts, s, u32At(lo, s), u32At(hi, s), pEntry, pRun);
      setU32(cand, s, c); // cand is free again: reuse it for the counts
      before += c;
    }
    const inPrefix = before < <u64>rank;
    for (let s: u32 = 0; s < runs; s++) {
      const c = u32At(cand, s);
      if (inPrefix) setU32(lo, s, s == pRun ? c + 1 : c);
      else setU32(hi, s, c);
    }
  }
  release(m);
}

/** Position of the first entry in window [lo, hi) of run s that does not precede the pivot; lo..hi. */
function precedingIn(starts: usize, s: u32, lo: u32, hi: u32, pEntry: u32, pRun: u32): u32 {
  const base = u32At(starts, s);
  while (lo < hi) {
    const mid = lo + ((hi - lo) >> 1);
    if (entryBefore(base + mid, s, pEntry, pRun)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sorts the candidate runs by their middle entries (insertion sort: S is small, a few hundred at most). */
function sortCandidates(cand: usize, candImg: usize, n: u32, starts: usize, lo: usize, hi: usize): void {
  for (let i: u32 = 1; i < n; i++) {
    const s = u32At(cand, i), v = load<i64>(candImg + ((<usize>i) << 3));
    const e = middle(starts, lo, hi, s);
    let j = i;
    while (j > 0) {
      const t = u32At(cand, j - 1), tv = load<i64>(candImg + ((<usize>j - 1) << 3));
      const before = v != tv ? v < tv : entryBefore(e, s, middle(starts, lo, hi, t), t);
      if (!before) break;
      setU32(cand, j, t);
      store<i64>(candImg + ((<usize>j) << 3), tv);
      j--;
    }
    setU32(cand, j, s);
    store<i64>(candImg + ((<usize>j) << 3), v);
  }
}

@inline function middle(starts: usize, lo: usize, hi: usize, s: u32): u32 {
  const l = u32At(lo, s);
  return u32At(starts, s) + l + ((u32At(hi, s) - l) >> 1);
}
