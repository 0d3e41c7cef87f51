// Sort keys and the one order every kernel follows.
//
// A sort key is a column of f64 values. Each value maps to an i64 "image" whose signed order is the
// sort order: ascending keys map by Lucene's doubleToSortableLong (so -Infinity < … < -0 < +0 < … <
// +Infinity), descending keys by its bitwise complement. NaN means "missing" and maps to the key's
// missing image: i64.MAX_VALUE (missing last, the default in either direction), i64.MIN_VALUE
// (missing first) or the image of a stand-in value (Elasticsearch's `missing: <value>`). Real values
// never map to MIN or MAX, so missing-last/first entries sort strictly after/before every value.
//
// Top-k reads one column per key, entries compare by key 0, key 1, … then by entry (lower first).
// The run kernels (rank.ts, merge.ts) read a table of sorted runs: entries compare by key 0, key 1,
// … then by run index, then by position in the run (Lucene's TopDocs.merge tie-break).

/** Bytes per key in a spec: u32 column address (top-k only), u32 flags, f64 missing stand-in. */
export const SPEC_BYTES: usize = 16;
export const MAX_KEYS: i32 = 4;
export const FLAG_DESC: u32 = 1;
export const MISSING_LAST: u32 = 0;
export const MISSING_FIRST: u32 = 2;
export const MISSING_VALUE: u32 = 4;

// The loaded spec: per key the column address, the direction mask (0 or -1) and the missing image.
const STATE: usize = memory.data(<i32>(MAX_KEYS * 24));
let count: i32 = 0;

@inline export function keyCount(): i32 {
  return count;
}

@inline export function column(j: i32): usize {
  return load<usize>(STATE + (<usize>j) * 24);
}

@inline export function dirMask(j: i32): i64 {
  return load<i64>(STATE + (<usize>j) * 24, 8);
}

@inline export function missingImage(j: i32): i64 {
  return load<i64>(STATE + (<usize>j) * 24, 16);
}

@inline export function imageOf(x: f64, dir: i64, missing: i64): i64 {
  const bits = reinterpret<i64>(x);
  const sortable = bits ^ <i64>(<u64>(bits >> 63) >> 1);
  return select<i64>(missing, sortable ^ dir, x != x);
}

/** {@link imageOf} of two values at once: `dir` and `miss` splat to both lanes. */
@inline export function imagesOf(bits: v128, dir: v128, miss: v128): v128 {
  const sortable = v128.xor(v128.xor(bits, i64x2.shr_u(i64x2.shr_s(bits, 63), 1)), dir);
  return v128.bitselect(miss, sortable, f64x2.ne(bits, bits));
}

/** Image of key `j` at entry `e` of the spec's columns (top-k). */
@inline export function imageAt(j: i32, e: u32): i64 {
  return imageOf(load<f64>(column(j) + ((<usize>e) << 3)), dirMask(j), missingImage(j));
}

/** Reads `n` (1..4) key descriptors at `spec` and makes them the order of the kernels that follow. */
export function loadSpec(spec: usize, n: i32): void {
  if (n < 1 || n > MAX_KEYS) unreachable();
  count = n;
  for (let j = 0; j < n; j++) {
    const at = spec + (<usize>j) * SPEC_BYTES;
    const flags = load<u32>(at, 4);
    const dir: i64 = (flags & FLAG_DESC) ? -1 : 0;
    const mode = flags & 6;
    let missing: i64 = i64.MAX_VALUE;
    if (mode == MISSING_FIRST) missing = i64.MIN_VALUE;
    else if (mode == MISSING_VALUE) missing = imageOf(load<f64>(at, 8), dir, i64.MAX_VALUE);
    const slot = STATE + (<usize>j) * 24;
    store<usize>(slot, <usize>load<u32>(at));
    store<i64>(slot, dir, 8);
    store<i64>(slot, missing, 16);
  }
}

/** Whether entry `ea` sorts before `eb` on keys 1.. (key 0 already compared equal), then on entry index. */
export function tailBefore(ea: u32, eb: u32): bool {
  for (let j = 1; j < count; j++) {
    const a = imageAt(j, ea);
    const b = imageAt(j, eb);
    if (a != b) return a < b;
  }
  return ea < eb;
}

/** The order of (primary image, entry) pairs, with the rest of the keys as the tie-break. */
@inline export function pairBefore(ia: i64, ea: u32, ib: i64, eb: u32): bool {
  if (ia != ib) return ia < ib;
  return count == 1 ? ea < eb : tailBefore(ea, eb);
}

// ---- Run tables ----------------------------------------------------------------------------
// A run table holds, per run, RUN_BYTES: u32 length, u32 reserved, then per key (up to MAX_KEYS)
// a 16-byte slot: u32 address of the run's values (f64, in run order), u32 address of a map (0:
// none) and f64 offset. A present value v reads as map[v] (when there is a map) plus the offset
// (when not 0): keyword runs keep segment-local ordinals and map them to global ones, `_doc` runs
// keep positions and add the segment's base. NaN (missing) passes through both unchanged.

export const RUN_BYTES: usize = 8 + 16 * <usize>MAX_KEYS;

let table: usize = 0;

/** Makes the run table at `at` the one the run kernels read. */
export function loadRuns(at: usize): void {
  table = at;
}

@inline export function runLength(r: u32): u32 {
  return load<u32>(table + (<usize>r) * RUN_BYTES);
}

/** The slot of run r's key 0 (values address, map address, offset): for loops that hoist runValue. */
@inline export function runKey0(r: u32): usize {
  return table + (<usize>r) * RUN_BYTES + 8;
}

@inline function keySlot(r: u32, j: i32): usize {
  return table + (<usize>r) * RUN_BYTES + 8 + ((<usize>j) << 4);
}

/** The comparable value of key `j` at position `p` of run `r`. */
@inline export function runValue(r: u32, j: i32, p: u32): f64 {
  const slot = keySlot(r, j);
  let v = load<f64>((<usize>load<u32>(slot)) + ((<usize>p) << 3));
  const map = <usize>load<u32>(slot, 4);
  if (map != 0 && v == v) v = load<f64>(map + ((<usize><u32>v) << 3));
  const offset = load<f64>(slot, 8);
  // Adding 0 would turn -0 into +0, which sorts differently.
  return offset != 0 ? v + offset : v;
}

@inline export function runImage(r: u32, j: i32, p: u32): i64 {
  return imageOf(runValue(r, j, p), dirMask(j), missingImage(j));
}

/** The order on keys 1.. (key 0 compared equal), then run, then position. */
export function runTailBefore(ra: u32, pa: u32, rb: u32, pb: u32): bool {
  for (let j = 1; j < count; j++) {
    const a = runImage(ra, j, pa);
    const b = runImage(rb, j, pb);
    if (a != b) return a < b;
  }
  if (ra != rb) return ra < rb;
  return pa < pb;
}
