// Rank selection in a union of sorted runs (Frederickson–Johnson): for a global rank k, the
// position in every run such that the first k entries of the merged order are exactly the runs'
// prefixes up to those positions.
//
// Each run keeps a window [lo, hi] known to contain its split. It starts as tight as the counts
// allow: a run gives at most k entries and at least k minus everything the other runs hold, so the
// first and the last pages start with windows of about `size` per run. A round takes the weighted
// median of the windows' middle entries as the pivot, counts by binary search how many entries of
// each window precede it, and moves every window to one side of the pivot: at least a quarter of the
// total window goes each round, so O(log n) rounds of O(R log n) work for R runs.
//
// Why clamped counts decide the pivot's side exactly: entries below a window are in the prefix and
// entries at or above it are not. If the pivot is in the prefix, every entry preceding it is too,
// so each clamped count is at most its run's split and the pivot's own run counts one fewer than
// its split: the sum is below k. If it is not, no entry from the pivot on is, each clamped count is
// at least its split, and the sum is at least k.

import { alloc, free } from "./heap";
import { setU32, u32At } from "./mem";
import { dirMask, imageOf, keyCount, loadRuns, loadSpec, missingImage, runImage, runKey0, runLength, runTailBefore } from "./keys";

/** Writes to `out` (u32 per run) each run's count of entries among the first `rank` of the merged order. */
export function rankSelect(spec: usize, keys: i32, table: usize, runs: u32, rank: u32, out: usize): void {
  loadSpec(spec, keys);
  loadRuns(table);
  splits(runs, rank, out);
}

let seed: u32 = 0x2545f491;

/** rankSelect with the spec and the run table already loaded. */
export function splits(runs: u32, rank: u32, out: usize): void {
  let total: u64 = 0;
  for (let r: u32 = 0; r < runs; r++) total += runLength(r);
  if (<u64>rank >= total) {
    for (let r: u32 = 0; r < runs; r++) setU32(out, r, runLength(r));
    return;
  }
  const lo = out;
  const hi = alloc((<usize>runs) << 2);
  const cand = alloc((<usize>runs) << 2);
  const counts = alloc((<usize>runs) << 2);
  const pasts = alloc((<usize>runs) << 2); // one key: per run, the end of the pivot's tie group
  const middles = alloc((<usize>runs) << 3); // per run: the image of its window's middle entry
  for (let r: u32 = 0; r < runs; r++) {
    const len = runLength(r);
    const others = total - len;
    setU32(lo, r, <u64>rank > others ? <u32>(<u64>rank - others) : 0);
    setU32(hi, r, min(len, rank));
  }
  let misses = 0; // guided rounds in a row that failed to halve the windows
  let lastWeight: u64 = u64.MAX_VALUE;
  let reach: u64 = 1; // how far past the estimate a guided pivot aims: doubles while pivots fall short
  while (true) {
    let sumLo: u64 = 0, sumHi: u64 = 0, weight: u64 = 0, n: u32 = 0, widest: u32 = 0, widestSize: u32 = 0;
    for (let r: u32 = 0; r < runs; r++) {
      const l = u32At(lo, r), h = u32At(hi, r);
      sumLo += l;
      sumHi += h;
      if (h > l) {
        setU32(cand, n++, r);
        weight += h - l;
        if (h - l > widestSize) {
          widest = r;
          widestSize = h - l;
        }
      }
    }
    if (sumLo == <u64>rank || n == 0) break;
    if (sumHi == <u64>rank) {
      memory.copy(lo, hi, (<usize>runs) << 2);
      break;
    }
    // A guided round guesses where rank falls in the widest window, as if the runs shared one
    // distribution (they usually nearly do), and takes the entry there as the pivot; it often
    // cuts the windows far more than a half. A pivot that falls short only lifts the windows'
    // low ends a little, so the next one aims twice as far past the estimate (galloping), and the
    // one after an overshoot closes the windows from above. After two guided rounds in a row that
    // fail to halve the windows, a round is Frederickson–Johnson's, which always takes a quarter:
    // rounds stay O(log n) on any input.
    if (weight * 2 <= lastWeight) misses = 0;
    else if (lastWeight != u64.MAX_VALUE) misses++;
    const guided = misses < 2;
    if (!guided) misses = 0;
    lastWeight = weight;
    let pRun: u32, pPos: u32;
    if (guided) {
      pRun = widest;
      const l = u32At(lo, pRun);
      const ahead = min((<u64>rank - sumLo) * reach, weight - 1);
      pPos = l + <u32>((ahead * <u64>widestSize) / weight);
      if (pPos >= u32At(hi, pRun)) pPos = u32At(hi, pRun) - 1;
    } else {
      for (let i: u32 = 0; i < n; i++) {
        const r = u32At(cand, i);
        store<i64>(middles + ((<usize>r) << 3), runImage(r, 0, middle(lo, hi, r)));
      }
      pRun = weightedMedian(cand, n, weight, lo, hi, middles);
      pPos = middle(lo, hi, pRun);
    }
    const pImg = runImage(pRun, 0, pPos);
    if (keyCount() == 1) {
      const done = tieRound(runs, rank, lo, hi, counts, pasts, pImg);
      if (done) break;
      reach = guided && u32At(lo, pRun) > pPos ? min(reach << 1, 1 << 20) : 1;
      continue;
    }
    let before: u64 = 0;
    for (let r: u32 = 0; r < runs; r++) {
      const c = r == pRun ? pPos : precedingIn(r, u32At(lo, r), u32At(hi, r), pImg, pRun, pPos);
      setU32(counts, r, c);
      before += c;
    }
    const inPrefix = before < <u64>rank;
    reach = guided && inPrefix ? min(reach << 1, 1 << 20) : 1;
    for (let r: u32 = 0; r < runs; r++) {
      const c = u32At(counts, r);
      if (inPrefix) setU32(lo, r, r == pRun ? c + 1 : c);
      else setU32(hi, r, c);
    }
  }
  free(hi);
  free(cand);
  free(counts);
  free(pasts);
  free(middles);
}

@inline function middle(lo: usize, hi: usize, r: u32): u32 {
  const l = u32At(lo, r);
  return l + ((u32At(hi, r) - l) >> 1);
}

/** Position of the first entry in window [lo, hi) of run r that does not precede the pivot; lo..hi. */
function precedingIn(r: u32, lo: u32, hi: u32, pImg: i64, pRun: u32, pPos: u32): u32 {
  // Key 0 of run r, read directly (runValue's rule, hoisted out of the loop).
  const values = runKey0(r);
  const map = <usize>load<u32>(values, 4), offset = load<f64>(values, 8), column = <usize>load<u32>(values);
  const dir = dirMask(0), miss = missingImage(0);
  while (lo < hi) {
    const mid = lo + ((hi - lo) >> 1);
    const img = slotImage(column, map, offset, dir, miss, mid);
    const before = img != pImg ? img < pImg : runTailBefore(r, mid, pRun, pPos);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A round with one key, where entries tie on it alone and a tie orders by run, then position: the
 * pivot's whole tie group G goes to one side at once, or the rank falls inside G and the splits
 * follow directly. Heavy ties (scores, keywords) then cost one round, where pivots inside G would
 * each take a slice of it. Returns whether `lo` now holds the splits.
 *
 * Per run, f and p are where G starts and ends, clamped to the window [lo, hi] that holds the split
 * s. If the prefix holds no entry of G, s ≤ f in every run; if it holds all of G, s ≥ p in every
 * run. So rank < Σf puts every split at or below its f, rank > Σp at or above its p, and a rank in
 * between (or equal to either sum) has the prefix end inside G: the runs before the one it ends in
 * give all of their part of G, the runs after it none, which is the fill below.
 */
function tieRound(runs: u32, rank: u32, lo: usize, hi: usize, fs: usize, ps: usize, pImg: i64): bool {
  let sumF: u64 = 0, sumP: u64 = 0;
  for (let r: u32 = 0; r < runs; r++) {
    const l = u32At(lo, r), h = u32At(hi, r);
    const f = searchBound(r, l, h, pImg, false);
    // Without ties G holds at most one entry of a run: one probe finds its end.
    const p = f < h && runImage(r, 0, f) == pImg ? searchBound(r, f + 1, h, pImg, true) : f;
    setU32(fs, r, f);
    setU32(ps, r, p);
    sumF += f;
    sumP += p;
  }
  if (<u64>rank < sumF) {
    memory.copy(hi, fs, (<usize>runs) << 2);
    return false;
  }
  if (<u64>rank > sumP) {
    memory.copy(lo, ps, (<usize>runs) << 2);
    return false;
  }
  let left = <u64>rank - sumF;
  for (let r: u32 = 0; r < runs; r++) {
    const f = u32At(fs, r);
    const take = <u32>min(<u64>(u32At(ps, r) - f), left);
    setU32(lo, r, f + take);
    left -= take;
  }
  return true;
}

/** Key 0's image at position p, from the run's slot read once by the caller (runValue's rule, hoisted out of a loop). */
@inline function slotImage(column: usize, map: usize, offset: f64, dir: i64, miss: i64, p: u32): i64 {
  let v = load<f64>(column + ((<usize>p) << 3));
  if (map != 0 && v == v) v = load<f64>(map + ((<usize><u32>v) << 3));
  if (offset != 0) v += offset;
  return imageOf(v, dir, miss);
}

/** The first position in [lo, hi) of run r whose image is not below `pImg` (`through`: above it); hi if none. */
function searchBound(r: u32, lo: u32, hi: u32, pImg: i64, through: bool): u32 {
  const values = runKey0(r);
  const map = <usize>load<u32>(values, 4), offset = load<f64>(values, 8), column = <usize>load<u32>(values);
  const dir = dirMask(0), miss = missingImage(0);
  while (lo < hi) {
    const mid = lo + ((hi - lo) >> 1);
    const img = slotImage(column, map, offset, dir, miss, mid);
    if (through ? img <= pImg : img < pImg) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether candidate run a's window middle sorts before candidate run b's. */
@inline function middleBefore(a: u32, b: u32, lo: usize, hi: usize, middles: usize): bool {
  const ia = load<i64>(middles + ((<usize>a) << 3)), ib = load<i64>(middles + ((<usize>b) << 3));
  if (ia != ib) return ia < ib;
  return keyCount() > 1 ? runTailBefore(a, middle(lo, hi, a), b, middle(lo, hi, b)) : a < b;
}

/**
 * The run whose window middle is the weighted median of the candidates' middles (weights: window
 * sizes): the first, in order, at which half the total weight is reached. Quickselect on weights,
 * expected O(n), so that hundreds of runs cost what a few do.
 */
function weightedMedian(cand: usize, n: u32, weight: u64, lo: usize, hi: usize, middles: usize): u32 {
  let a: u32 = 0, b: u32 = n;
  let acc: u64 = 0; // weight of the candidates known to sort before [a, b); acc * 2 < weight
  while (b - a > 1) {
    seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
    swap(cand, a + seed % (b - a), b - 1);
    const pivot = u32At(cand, b - 1);
    let i = a;
    let left: u64 = 0;
    for (let j = a; j < b - 1; j++) {
      const r = u32At(cand, j);
      if (middleBefore(r, pivot, lo, hi, middles)) {
        swap(cand, i++, j);
        left += u32At(hi, r) - u32At(lo, r);
      }
    }
    swap(cand, i, b - 1);
    const own: u64 = u32At(hi, pivot) - u32At(lo, pivot);
    if ((acc + left) * 2 >= weight) b = i;
    else if ((acc + left + own) * 2 >= weight) return pivot;
    else {
      acc += left + own;
      a = i + 1;
    }
  }
  return u32At(cand, a);
}

@inline function swap(base: usize, i: u32, j: u32): void {
  const t = u32At(base, i);
  setU32(base, i, u32At(base, j));
  setU32(base, j, t);
}
