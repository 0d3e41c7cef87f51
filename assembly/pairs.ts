// Sorting and selection over (image, entry) pairs held in two parallel arrays:
// `img` (i64 per pair) and `ent` (u32 per pair), in the order of keys.ts (pairBefore).

import { alloc, free } from "./heap";
import { pairBefore } from "./keys";

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

const SIGN: u64 = 0x8000000000000000;

@inline function count(hist: usize, d: u32, u: u64): void {
  const at = hist + (((<usize>d) << 8) + <usize>((u >> ((<u64>d) << 3)) & 255)) * 4;
  store<u32>(at, load<u32>(at) + 1);
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

/**
 * Stable LSD radix sort of pairs [0, n) by image alone (8-bit digits, all eight histograms in one
 * pass, digits that every pair shares skipped). Equal images keep their input order.
 */
export function radixSort(img: usize, ent: usize, n: u32): void {
  if (n < 2 || presorted(img, ent, n)) return;
  const hist = alloc(8 * 256 * 4);
  memory.fill(hist, 0, 8 * 256 * 4);
  for (let i: u32 = 0; i < n; i++) {
    const u = <u64>imgAt(img, i) ^ SIGN;
    count(hist, 0, u);
    count(hist, 1, u);
    count(hist, 2, u);
    count(hist, 3, u);
    count(hist, 4, u);
    count(hist, 5, u);
    count(hist, 6, u);
    count(hist, 7, u);
  }
  let srcImg = img, srcEnt = ent;
  const tmpImg = alloc((<usize>n) << 3), tmpEnt = alloc((<usize>n) << 2);
  let dstImg = tmpImg, dstEnt = tmpEnt;
  const first = <u64>imgAt(img, 0) ^ SIGN;
  for (let d: u32 = 0; d < 8; d++) {
    const h = hist + ((<usize>d) << 10);
    const shift = <u64>(d << 3);
    if (load<u32>(h + <usize>((first >> shift) & 255) * 4) == n) continue;
    let sum: u32 = 0;
    for (let b: usize = 0; b < 256; b++) {
      const c = load<u32>(h + b * 4);
      store<u32>(h + b * 4, sum);
      sum += c;
    }
    for (let i: u32 = 0; i < n; i++) {
      const v = imgAt(srcImg, i);
      const at = h + <usize>(((<u64>v ^ SIGN) >> shift) & 255) * 4;
      const to = load<u32>(at);
      store<u32>(at, to + 1);
      put(dstImg, dstEnt, to, v, entAt(srcEnt, i));
    }
    const tImg = srcImg, tEnt = srcEnt;
    srcImg = dstImg; srcEnt = dstEnt;
    dstImg = tImg; dstEnt = tEnt;
  }
  if (srcImg != img) {
    memory.copy(img, srcImg, (<usize>n) << 3);
    memory.copy(ent, srcEnt, (<usize>n) << 2);
  }
  free(hist);
  free(tmpImg);
  free(tmpEnt);
}
