// Per-shard top-k: the best k of n entries of a key column, in order.
//
// One pass keeps a buffer of candidates in entry order and a limit on the primary image: an entry
// whose image is above the limit cannot be among the best k and costs one SIMD compare. When the
// buffer fills, it is cut to the best k and the limit tightens to the k-th image (tantivy's
// TopNComputer, DuckDB's boundary). Before the pass, a stratified sample of the column sets the
// first limit near the k-th image, so sorted and reverse-sorted input cost what random input does:
// without it, every element of an improving sequence would enter the buffer. If the sample's limit
// turns out too tight (fewer than k entries at or below it), a second pass runs without it.
// The survivors are cut to exactly k and sorted by a stable radix sort of their images.
//
// Invariant: entries are pushed in ascending entry order and cuts keep order, so equal images
// leave the radix sort in entry order, which is the tie-break.

import { alloc, free } from "./heap";
import { column, dirMask, imageAt, imageOf, imagesOf, keyCount, loadSpec, missingImage, tailBefore } from "./keys";
import { insertionSort, keepFirst, select, sortEntries } from "./pairs";

const SAMPLE: u32 = 1024;
const SMALL_SORT: u32 = 32;

let bufImg: usize = 0;
let bufEnt: usize = 0;
let size: u32 = 0;
let cap: u32 = 0;
let want: u32 = 0;
let limit: i64 = 0;
let exhausted = false;
// With several keys, once the buffer has been cut: the worst kept entry, whose primary image is the
// limit. An entry whose image equals the limit enters only if it sorts before this one on the later
// keys; without the check every tie with the limit would enter the buffer (a keyword with few
// values holds thousands of them) and force cut after cut.
let limitEntry: u32 = 0;
let hasLimitEntry = false;

// A position the entries must come after (topKAfter): entries whose primary image is below `floor`
// never enter; those equal to it enter when their later keys (then `afterTie`) put them after it.
// Without a position, `floor` is i64.MIN_VALUE and `hasFloor` false.
let hasFloor = false;
let floor: i64 = i64.MIN_VALUE;
let afterKeys: i32 = 0;
let afterTie: i32 = 0;
const AFTER: usize = memory.data(<i32>(8 * 4));

/**
 * Writes to `out` (u32 per entry) the entries 0..n-1 of the key columns in `spec` (`keyCount`
 * descriptors, see keys.ts) that sort first, best first; returns how many: min(k, n).
 */
export function topK(spec: usize, keys: i32, n: u32, k: u32, out: usize): u32 {
  loadSpec(spec, keys);
  hasFloor = false;
  floor = i64.MIN_VALUE;
  return collect(n, k, out);
}

/**
 * {@link topK} of the entries that come after a position: `after` holds `count` f64 values (1 ≤
 * count ≤ keys), the position's values of keys 0..count-1 in the columns' own space; an entry that
 * sorts after them comes after it, and one equal to them on those keys comes after it when `tie` > 0
 * (Elasticsearch's `search_after`: with tie 0, an entry equal to the position is skipped). Entries
 * before the position cost one SIMD compare, as entries past the limit do. Returns how many were
 * written: min(k, the entries after the position).
 */
export function topKAfter(spec: usize, keys: i32, n: u32, k: u32, out: usize, after: usize, count: i32, tie: i32): u32 {
  loadSpec(spec, keys);
  if (count < 1 || count > keys) unreachable();
  afterKeys = count;
  afterTie = tie;
  for (let j = 0; j < count; j++) store<i64>(AFTER + ((<usize>j) << 3), imageOf(load<f64>(after + ((<usize>j) << 3)), dirMask(j), missingImage(j)));
  hasFloor = true;
  floor = load<i64>(AFTER);
  return collect(n, k, out);
}

/** Whether entry e, whose primary image equals the position's, comes after it. */
function pastPosition(e: u32): bool {
  for (let j = 1; j < afterKeys; j++) {
    const a = imageAt(j, e);
    const b = load<i64>(AFTER + ((<usize>j) << 3));
    if (a != b) return a > b;
  }
  return afterTie > 0;
}

function collect(n: u32, k: u32, out: usize): u32 {
  want = min(k, n);
  if (want == 0) return 0;
  // A buffer of 2k when k is a small share of n (cuts keep it O(n) on any input); the sample that
  // sets a first limit pays off on columns long enough to dwarf it.
  const bounded = (<u64>k) * 4 < <u64>n;
  const sampled = bounded && n >= SAMPLE * 8;
  cap = bounded ? min(n, max(want * 2, 256)) : n;
  bufImg = alloc((<usize>cap) << 3);
  bufEnt = alloc((<usize>cap) << 2);
  const start = sampled ? sampleLimit(n) : i64.MAX_VALUE;
  scan(n, start);
  // A sampled limit that let fewer than k through is dropped; without one, every entry (after the
  // position) has been offered already: fewer than k come after it, and a second pass finds no more.
  if (size < want && start != i64.MAX_VALUE) scan(n, i64.MAX_VALUE);
  size = keepFirst(bufImg, bufEnt, size, want);
  sortBuffer();
  // After a position, fewer than k entries may come after it.
  const got = min(size, want);
  memory.copy(out, bufEnt, (<usize>got) << 2);
  free(bufImg);
  free(bufEnt);
  return got;
}

function scan(n: u32, start: i64): void {
  size = 0;
  limit = start;
  exhausted = false;
  hasLimitEntry = false;
  if (start == i64.MAX_VALUE && cap == n && !hasFloor) {
    takeAll(n);
    return;
  }
  const n8 = n & ~7;
  let i: u32 = 0;
  while (i < n8 && !exhausted) i = valueLimit() ? scanValues(i, n8) : scanImages(i, n8);
  for (; i < n && !exhausted; i++) offer(imageAt(0, i), i);
}

/** Every entry is a candidate (k is a large share of n): their images, two at a time. */
function takeAll(n: u32): void {
  const keys = column(0);
  const dir = i64x2.splat(dirMask(0));
  const miss = i64x2.splat(missingImage(0));
  const n2 = n & ~1;
  let i: u32 = 0;
  for (; i < n2; i += 2) {
    v128.store(bufImg + ((<usize>i) << 3), imagesOf(v128.load(keys + ((<usize>i) << 3)), dir, miss));
    store<u64>(bufEnt + ((<usize>i) << 2), (<u64>(i + 1) << 32) | <u64>i);
  }
  for (; i < n; i++) {
    store<i64>(bufImg + ((<usize>i) << 3), imageAt(0, i));
    store<u32>(bufEnt + ((<usize>i) << 2), i);
  }
  size = n;
}

// The value whose image is the limit, when a plain f64 compare can stand in for the image compare:
// missing sorts last (NaN fails every compare, as it should) and the limit maps to a number. The
// compare may let through the other zero (−0 vs +0); offer() checks every entry exactly.
let bound: f64 = 0;
// The value whose image is the floor (after a position; else the least value in the order).
let floorBound: f64 = 0;

function valueLimit(): bool {
  if (missingImage(0) != i64.MAX_VALUE || limit == i64.MAX_VALUE) return false;
  bound = valueOf(limit);
  if (bound != bound) return false;
  // Missing last, so a floor below MAX is a value's image; at MAX only missing entries could come after it.
  if (!hasFloor) floorBound = dirMask(0) != 0 ? Infinity : -Infinity;
  else if (floor == i64.MAX_VALUE) return false;
  else floorBound = valueOf(floor);
  return floorBound == floorBound;
}

/** The value whose image (for key 0) is `image`. */
function valueOf(image: i64): f64 {
  const sortable = image ^ dirMask(0);
  return reinterpret<f64>(sortable ^ <i64>(<u64>(sortable >> 63) >> 1));
}

/**
 * Filters 8 entries a step with f64 compares against `bound`; returns where it stopped. Blocks never
 * reach past `to`: `from` may sit 4 past a multiple of 8 (where scanImages stopped), and the entries
 * from `to` on are the caller's tail, offered one by one; a short last block is offered that way too.
 */
function scanValues(from: u32, to: u32): u32 {
  const keys = column(0);
  const t = f64x2.splat(bound);
  const fl = f64x2.splat(floorBound);
  const desc = dirMask(0) != 0;
  const at0 = limit;
  let i = from;
  for (; i + 8 <= to; i += 8) {
    const p = keys + ((<usize>i) << 3);
    const a = v128.load(p), b = v128.load(p, 16), c = v128.load(p, 32), d = v128.load(p, 48);
    // Between the floor and the limit (both inclusive: −0 and +0 compare equal here, offer() decides).
    const ma = desc ? v128.and(f64x2.ge(a, t), f64x2.le(a, fl)) : v128.and(f64x2.le(a, t), f64x2.ge(a, fl));
    const mb = desc ? v128.and(f64x2.ge(b, t), f64x2.le(b, fl)) : v128.and(f64x2.le(b, t), f64x2.ge(b, fl));
    const mc = desc ? v128.and(f64x2.ge(c, t), f64x2.le(c, fl)) : v128.and(f64x2.le(c, t), f64x2.ge(c, fl));
    const md = desc ? v128.and(f64x2.ge(d, t), f64x2.le(d, fl)) : v128.and(f64x2.le(d, t), f64x2.ge(d, fl));
    if (v128.any_true(v128.or(v128.or(ma, mb), v128.or(mc, md)))) {
      let hits = i64x2.bitmask(ma) | (i64x2.bitmask(mb) << 2) | (i64x2.bitmask(mc) << 4) | (i64x2.bitmask(md) << 6);
      while (hits != 0) {
        const e = i + ctz(hits);
        offer(imageAt(0, e), e);
        hits &= hits - 1;
      }
      if (limit != at0 || exhausted) return i + 8;
    }
  }
  for (; i < to && !exhausted; i++) offer(imageAt(0, i), i);
  return to;
}

/** Filters 4 entries a step on their images; for any missing policy and limit. */
function scanImages(from: u32, to: u32): u32 {
  const keys = column(0);
  const dir = i64x2.splat(dirMask(0));
  const miss = i64x2.splat(missingImage(0));
  const lim = i64x2.splat(limit);
  const fl = i64x2.splat(floor);
  const at0 = limit;
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const p = keys + ((<usize>i) << 3);
    const a = imagesOf(v128.load(p), dir, miss);
    const b = imagesOf(v128.load(p, 16), dir, miss);
    const ma = v128.and(i64x2.le_s(a, lim), i64x2.ge_s(a, fl));
    const mb = v128.and(i64x2.le_s(b, lim), i64x2.ge_s(b, fl));
    if (v128.any_true(v128.or(ma, mb))) {
      offer(i64x2.extract_lane(a, 0), i);
      offer(i64x2.extract_lane(a, 1), i + 1);
      offer(i64x2.extract_lane(b, 0), i + 2);
      offer(i64x2.extract_lane(b, 1), i + 3);
      if (limit != at0 || exhausted) return i + 4;
    }
  }
  for (; i < to && !exhausted; i++) offer(imageAt(0, i), i);
  return to;
}

@inline function offer(v: i64, e: u32): void {
  if (v > limit || exhausted) return;
  if (hasFloor && v <= floor && (v < floor || !pastPosition(e))) return;
  if (v == limit && hasLimitEntry && !tailBefore(e, limitEntry)) return;
  store<i64>(bufImg + ((<usize>size) << 3), v);
  store<u32>(bufEnt + ((<usize>size) << 2), e);
  if (++size == cap) cut();
}

/** Cuts the full buffer to the best `want` and tightens the limit to what can still enter. */
function cut(): void {
  size = keepFirst(bufImg, bufEnt, size, want);
  let kth = i64.MIN_VALUE;
  for (let i: u32 = 0; i < size; i++) kth = max(kth, load<i64>(bufImg + ((<usize>i) << 3)));
  if (keyCount() > 1) {
    limit = kth; // an equal primary image may still win on a later key, if it beats the worst kept
    let worst: u32 = 0;
    let found = false;
    for (let i: u32 = 0; i < size; i++) {
      if (load<i64>(bufImg + ((<usize>i) << 3)) != kth) continue;
      const e = load<u32>(bufEnt + ((<usize>i) << 2));
      if (!found || tailBefore(worst, e)) worst = e;
      found = true;
    }
    limitEntry = worst;
    hasLimitEntry = found;
  } else if (kth == i64.MIN_VALUE) {
    exhausted = true; // nothing sorts before the k-th, and later entries lose ties
  } else {
    limit = kth - 1; // later entries lose ties, so only strictly smaller images enter
  }
}

function sortBuffer(): void {
  if (size <= SMALL_SORT) {
    insertionSort(bufImg, bufEnt, size);
    return;
  }
  // Stable passes from the last key to the first give the lexicographic order, ties in entry order.
  for (let j = keyCount() - 1; j >= 0; j--) {
    if (j > 0 || keyCount() > 1) {
      for (let i: u32 = 0; i < size; i++) {
        store<i64>(bufImg + ((<usize>i) << 3), imageAt(j, load<u32>(bufEnt + ((<usize>i) << 2))));
      }
    }
    sortEntries(bufImg, bufEnt, size, j);
  }
}

/**
 * A primary-image limit that about k·(1+ε) entries pass: the image at a safe rank of a stratified
 * sample (one random entry in each of SAMPLE equal strata), a few standard deviations above k's
 * expected rank so that fewer than k pass only rarely.
 */
function sampleLimit(n: u32): i64 {
  const img = alloc((<usize>SAMPLE) << 3), ent = alloc((<usize>SAMPLE) << 2);
  const stride = n / SAMPLE;
  const dir = dirMask(0), miss = missingImage(0), keys = column(0);
  let rnd: u32 = 0x2545f491;
  for (let s: u32 = 0; s < SAMPLE; s++) {
    rnd ^= rnd << 13; rnd ^= rnd >> 17; rnd ^= rnd << 5;
    const e = s * stride + rnd % stride;
    store<i64>(img + ((<usize>s) << 3), imageOf(load<f64>(keys + ((<usize>e) << 3)), dir, miss));
    store<u32>(ent + ((<usize>s) << 2), e);
  }
  // After a position, only the sample's entries at or past the floor stand for entries that may enter.
  let m: u32 = SAMPLE;
  if (hasFloor) {
    m = 0;
    for (let s: u32 = 0; s < SAMPLE; s++) {
      const v = load<i64>(img + ((<usize>s) << 3));
      if (v >= floor) {
        store<i64>(img + ((<usize>m) << 3), v);
        m++;
      }
    }
  }
  const expected = <f64>want * <f64>SAMPLE / <f64>n;
  const rank = <u32>(expected + 3.0 * Math.sqrt(expected) + 3.0);
  let result = i64.MAX_VALUE;
  if (rank < m) {
    select(img, ent, m, rank);
    result = load<i64>(img + ((<usize>rank) << 3));
  }
  free(img);
  free(ent);
  return result;
}
