// Sorting and selection over (image, entry) pairs held in two parallel arrays:
// `img` (i64 per pair) and `ent` (u32 per pair), in the order of keys.ts (pairBefore), and the
// stable radix sort that orders top-k's survivors (sortEntries).

import { alloc, free } from "./heap";
import { imageAt, pairBefore } from "./keys";

@inline function imgAt(img: usize, i: u32): i64 {
  return load<i64>(img + ((<usize>i) << 3));
}
@inline function entAt(ent: usize, i: u32): u32 {
  return load<u32>(ent + ((<usize>i) << 2));
}
@inline function put(img: usize, ent: usize, i: u32, v: i64, e: u32): void {
  store<i64>(img + ((<usize>i) << 3), v);
  store<u32>(ent + ((<usize>i) << 2), e);
}
@inline function swap(img: usize, ent: usize, i: u32, j: u32): void {
  const vi = imgAt(img, i), ei = entAt(ent, i);
  put(img, ent, i, imgAt(img, j), entAt(ent, j));
  put(img, ent, j, vi, ei);
}

/** Stable insertion sort of pairs [0, n); for short inputs. */
export function insertionSort(img: usize, ent: usize, n: u32): void {
  for (let i: u32 = 1; i < n; i++) {
    const v = imgAt(img, i), e = entAt(ent, i);
    let j = i;
    while (j > 0 && pairBefore(v, e, imgAt(img, j - 1), entAt(ent, j - 1))) {
      put(img, ent, j, imgAt(img, j - 1), entAt(ent, j - 1));
      j--;
    }
    put(img, ent, j, v, e);
  }
}

let seed: u32 = 0x9e3779b9;
@inline function nextRandom(): u32 {
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

/**
 * Rearranges pairs [0, n) so that position `nth` holds the pair that a full sort would put there,
 * with every pair before it sorting before it. Quickselect with a median-of-three of random
 * positions: expected O(n) on any input, since no input order is favoured.
 */
export function select(img: usize, ent: usize, n: u32, nth: u32): void {
  let lo: u32 = 0, hi: u32 = n - 1;
  while (hi > lo) {
    if (hi - lo < 16) {
      insertionSortRange(img, ent, lo, hi + 1);
      return;
    }
    const span = hi - lo + 1;
    const a = lo + nextRandom() % span, b = lo + nextRandom() % span, c = lo + nextRandom() % span;
    const p = median3(img, ent, a, b, c);
    swap(img, ent, p, hi);
    const pv = imgAt(img, hi), pe = entAt(ent, hi);
    let store_: u32 = lo;
    for (let i = lo; i < hi; i++) {
      if (pairBefore(imgAt(img, i), entAt(ent, i), pv, pe)) {
        swap(img, ent, i, store_);
        store_++;
      }
    }
    swap(img, ent, store_, hi);
    if (store_ == nth) return;
    if (nth < store_) hi = store_ - 1;
    else lo = store_ + 1;
  }
}

function insertionSortRange(img: usize, ent: usize, lo: u32, hi: u32): void {
  insertionSort(img + ((<usize>lo) << 3), ent + ((<usize>lo) << 2), hi - lo);
}

function median3(img: usize, ent: usize, a: u32, b: u32, c: u32): u32 {
  const ab = pairBefore(imgAt(img, a), entAt(ent, a), imgAt(img, b), entAt(ent, b));
  const bc = pairBefore(imgAt(img, b), entAt(ent, b), imgAt(img, c), entAt(ent, c));
  const ac = pairBefore(imgAt(img, a), entAt(ent, a), imgAt(img, c), entAt(ent, c));
  if (ab == bc) return b;
  return ab == ac ? c : a;
}

/**
 * Keeps, in their current order, the `k` pairs of [0, n) that sort first; returns k.
 * Finds the k-th pair on a copy, so the kept pairs stay in their input order (which the
 * stable radix sort relies on for its tie-break).
 */
export function keepFirst(img: usize, ent: usize, n: u32, k: u32): u32 {
  if (k >= n) return n;
  const cImg = alloc((<usize>n) << 3), cEnt = alloc((<usize>n) << 2);
  memory.copy(cImg, img, (<usize>n) << 3);
  memory.copy(cEnt, ent, (<usize>n) << 2);
  select(cImg, cEnt, n, k - 1);
  const tv = imgAt(cImg, k - 1), te = entAt(cEnt, k - 1);
  free(cImg);
  free(cEnt);
  let kept: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const v = imgAt(img, i), e = entAt(ent, i);
    if (!pairBefore(tv, te, v, e)) {
      put(img, ent, kept, v, e);
      kept++;
    }
  }
  return kept;
}

/**
 * Whether pairs [0, n) are already in order by image (nothing to do), after reversing them when
 * they strictly decrease (so no equal images change order). One pass; pays off on sorted input.
 */
function presorted(img: usize, ent: usize, n: u32): bool {
  let up = true, down = true;
  let prev = imgAt(img, 0);
  for (let i: u32 = 1; i < n && (up || down); i++) {
    const v = imgAt(img, i);
    up = up && prev <= v;
    down = down && prev > v;
    prev = v;
  }
  if (up) return true;
  if (!down) return false;
  for (let i: u32 = 0, j = n - 1; i < j; i++, j--) swap(img, ent, i, j);
  return true;
}

// The radix sort packs each pair into one u64: its key (the image less the least image, shifted down
// past the low bits every image shares: integers stored as doubles end in zeros) above its entry.
// At most KEPT_BITS of the key are kept (three passes): when it has more, its lowest bits are
// dropped, so pairs whose kept bits tie may be out of order, and a last pass puts each such run in
// order by full image: by insertion when short, else by sorting the run again, where the key spans
// at most the dropped bits. On spread values the runs are rare and short (a column of 1,000,000
// random doubles spans about 58 bits: runs of the same top 33 are one in 10^8). An LSD pass per
// digit of up to DIGIT_BITS bits sorts the words by their key bits alone, stably, so ties keep
// their input order, and the entries are read straight out of the sorted words.
const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = (<usize>1) << DIGIT_BITS;
const KEPT_BITS: u32 = 3 * DIGIT_BITS;
const MAX_PASSES: u32 = 3;
const SHORT_RUN: u32 = 16;

/** Stable insertion sort of packed words [0, n) by the full image of key `key` at each one's entry. */
function insertionByImage(words: usize, n: u32, mask: u64, key: i32): void {
  for (let i: u32 = 1; i < n; i++) {
    const w = load<u64>(words + ((<usize>i) << 3));
    const v = imageAt(key, <u32>(w & mask));
    let j = i;
    while (j > 0) {
      const before = load<u64>(words + ((<usize>(j - 1)) << 3));
      if (!(v < imageAt(key, <u32>(before & mask)))) break;
      store<u64>(words + ((<usize>j) << 3), before);
      j--;
    }
    store<u64>(words + ((<usize>j) << 3), w);
  }
}

/** Sorts a run of packed words [0, n) (whose kept key bits tie) by the full image at each one's entry; only their entry bits are kept. */
function sortRun(words: usize, n: u32, mask: u64, key: i32): void {
  const img = alloc((<usize>n) << 3), ent = alloc((<usize>n) << 2);
  for (let i: u32 = 0; i < n; i++) {
    const e = <u32>(load<u64>(words + ((<usize>i) << 3)) & mask);
    store<i64>(img + ((<usize>i) << 3), imageAt(key, e));
    store<u32>(ent + ((<usize>i) << 2), e);
  }
  sortEntries(img, ent, n, key);
  for (let i: u32 = 0; i < n; i++) store<u64>(words + ((<usize>i) << 3), <u64>entAt(ent, i));
  free(img);
  free(ent);
}

/**
 * Orders the entries `ent` [0, n) by their images `img` (those of key `key` of the loaded spec),
 * stably: equal images keep their input order. `img` is left unspecified. A radix sort on the bits
 * where the images differ, so narrow ranges (dates, prices, ordinals) take few passes.
 */
export function sortEntries(img: usize, ent: usize, n: u32, key: i32): void {
  if (n < 2 || presorted(img, ent, n)) return;
  const first = imgAt(img, 0);
  let least = first, most = first;
  let differ: u64 = 0;
  let top: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const v = imgAt(img, i);
    least = min(least, v);
    most = max(most, v);
    differ |= <u64>(v ^ first);
    top = max(top, entAt(ent, i));
  }
  if (differ == 0) return;
  // Every image agrees with the first below its lowest differing bit, so every difference is a multiple of it.
  const low = <u32>ctz(differ);
  const keyBits: u32 = 64 - <u32>clz(<u64>(most - least)) - low;
  const entBits: u32 = max<u32>(1, 32 - <u32>clz(top));
  const kept: u32 = min(keyBits, min(KEPT_BITS, 64 - entBits));
  const drop = <u64>(low + keyBits - kept);
  const mask: u64 = ((<u64>1) << entBits) - 1;
  const passes: u32 = (kept + DIGIT_BITS - 1) / DIGIT_BITS;
  const digit: u32 = (kept + passes - 1) / passes;
  const digitMask: u64 = ((<u64>1) << digit) - 1;

  const words = alloc((<usize>n) << 3), other = alloc((<usize>n) << 3);
  const hist = alloc(<usize>MAX_PASSES * BUCKETS * 4);
  memory.fill(hist, 0, <usize>passes * BUCKETS * 4);
  const sh = <u64>entBits;
  for (let i: u32 = 0; i < n; i++) {
    const k = <u64>(imgAt(img, i) - least) >> drop;
    store<u64>(words + ((<usize>i) << 3), (k << sh) | <u64>entAt(ent, i));
    let rest = k;
    for (let p: u32 = 0; p < passes; p++) {
      const at = hist + ((<usize>p) * BUCKETS + <usize>(rest & digitMask)) * 4;
      store<u32>(at, load<u32>(at) + 1);
      rest >>= digit;
    }
  }
  let src = words, dst = other;
  for (let p: u32 = 0; p < passes; p++) {
    const h = hist + (<usize>p) * BUCKETS * 4;
    // A digit every word shares moves nothing.
    if (load<u32>(h + <usize>((load<u64>(src) >> (sh + <u64>(p * digit))) & digitMask) * 4) == n) continue;
    const shift = sh + <u64>(p * digit);
    let sum: u32 = 0;
    for (let b: usize = 0; b <= <usize>digitMask; b++) {
      const c = load<u32>(h + b * 4);
      store<u32>(h + b * 4, sum);
      sum += c;
    }
    for (let i: u32 = 0; i < n; i++) {
      const w = load<u64>(src + ((<usize>i) << 3));
      const at = h + <usize>((w >> shift) & digitMask) * 4;
      const to = load<u32>(at);
      store<u32>(at, to + 1);
      store<u64>(dst + ((<usize>to) << 3), w);
    }
    const t = src;
    src = dst;
    dst = t;
  }
  free(hist);
  // Runs whose kept bits tie while their images may differ, when bits were dropped.
  if (kept < keyBits) {
    let start: u32 = 0;
    let head = load<u64>(src) >> sh;
    for (let i: u32 = 1; i <= n; i++) {
      const k = i < n ? load<u64>(src + ((<usize>i) << 3)) >> sh : ~head;
      if (k == head) continue;
      if (i - start > SHORT_RUN) sortRun(src + ((<usize>start) << 3), i - start, mask, key);
      else if (i - start > 1) insertionByImage(src + ((<usize>start) << 3), i - start, mask, key);
      start = i;
      head = k;
    }
  }
  for (let i: u32 = 0; i < n; i++) store<u32>(ent + ((<usize>i) << 2), <u32>(load<u64>(src + ((<usize>i) << 3)) & mask));
  free(words);
  free(other);
}
