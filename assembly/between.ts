// Splitting unsorted runs at two values of the first key: what comes before the first value, and
// where the entries from the first value through the second are. A deep page of a sort no run
// exists for yet is found this way (src/engine/search/pivot-page.ts): pivots taken from a sample
// split every segment's column in one pass, and only the entries between them are sorted.

import { dirMask, imageOf, imagesOf, loadRuns, loadSpec, missingImage, runKey0, runLength, runValue } from "./keys";

/**
 * For each of `runs` runs of the table at `table` (their values in any order; each read by the run
 * rule of keys.ts, map then offset), counts the entries whose key-0 image sorts before `low`'s and
 * writes the positions of those from `low`'s image through `high`'s, in position order, one run
 * after another, to `out` (u32, room for every entry), and their values as read to `values` (f64,
 * room for every entry). `counts` gets two u32 per run: the entries before, then the entries
 * between. Returns the entries between, over every run.
 */
export function countBetween(spec: usize, keys: i32, table: usize, runs: u32, low: f64, high: f64, out: usize, values: usize, counts: usize): u32 {
  loadSpec(spec, keys);
  loadRuns(table);
  const dir = dirMask(0), miss = missingImage(0);
  const lo = imageOf(low, dir, miss), hi = imageOf(high, dir, miss);
  let w: u32 = 0;
  for (let r: u32 = 0; r < runs; r++) {
    const slot = runKey0(r);
    const n = runLength(r);
    const column = <usize>load<u32>(slot);
    const plain = load<u32>(slot, 4) == 0 && load<f64>(slot, 8) == 0;
    const start = w;
    let before: u32 = 0;
    // No branch on the values: a page halfway down splits them at random.
    if (plain) {
      // Two at a time: a lane's compare is all ones (-1) where it holds, so subtracting counts it.
      const loV = i64x2.splat(lo), hiV = i64x2.splat(hi), dirV = i64x2.splat(dir), missV = i64x2.splat(miss);
      let counted = i64x2.splat(0);
      const n2 = n & ~1;
      let p: u32 = 0;
      for (; p < n2; p += 2) {
        const bits = v128.load(column + ((<usize>p) << 3));
        const img = imagesOf(bits, dirV, missV);
        const below = i64x2.lt_s(img, loV);
        counted = i64x2.sub(counted, below);
        const inside = v128.andnot(i64x2.le_s(img, hiV), below);
        // Both lanes written, each kept only when between: no branch on the values.
        store<u32>(out + ((<usize>w) << 2), p);
        store<f64>(values + ((<usize>w) << 3), f64x2.extract_lane(bits, 0));
        w += <u32>i64x2.extract_lane(inside, 0) & 1;
        store<u32>(out + ((<usize>w) << 2), p + 1);
        store<f64>(values + ((<usize>w) << 3), f64x2.extract_lane(bits, 1));
        w += <u32>i64x2.extract_lane(inside, 1) & 1;
      }
      before = <u32>(i64x2.extract_lane(counted, 0) + i64x2.extract_lane(counted, 1));
      for (; p < n; p++) {
        const v = load<f64>(column + ((<usize>p) << 3));
        const img = imageOf(v, dir, miss);
        before += <u32>(img < lo);
        store<u32>(out + ((<usize>w) << 2), p);
        store<f64>(values + ((<usize>w) << 3), v);
        w += <u32>(img >= lo) & <u32>(img <= hi);
      }
    } else {
      for (let p: u32 = 0; p < n; p++) {
        const v = runValue(r, 0, p);
        const img = imageOf(v, dir, miss);
        before += <u32>(img < lo);
        store<u32>(out + ((<usize>w) << 2), p);
        store<f64>(values + ((<usize>w) << 3), v);
        w += <u32>(img >= lo) & <u32>(img <= hi);
      }
    }
    store<u32>(counts + (<usize>r) * 8, before);
    store<u32>(counts + (<usize>r) * 8 + 4, w - start);
  }
  return w;
}
