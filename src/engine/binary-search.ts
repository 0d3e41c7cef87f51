/**
 * The engine's one binary search, over anything ordered held in JavaScript (typed arrays of
 * positions, seqs and values; term dictionaries; sorted runs read through a comparison). Data that
 * lives in wasm memory is searched by the kernels instead (`rankSelect`).
 *
 * Every form answers the same question: the first index in `[lo, hi)` where an ordered range stops
 * being "before" (`hi` when it never does), given that once an index is not before, no later one is.
 *
 * @example
 * lowerBound(Uint32Array.of(1, 3, 3, 7), 3); // 1: the first value not below 3
 * upperBound(Uint32Array.of(1, 3, 3, 7), 3); // 3: the first value above 3
 * firstNotBefore(0, run.length, (i) => compare(run, i, key) <= 0); // the entries at or before a key
 */

/** `a < b`: the order of numbers (NaN is below nothing, so it counts as not below any value). */
export const lessThan = (a: number, b: number): boolean => a < b;

/** The first index in `[lo, hi)` for which `before(index)` is false; `before` must hold on a prefix only. */
export function firstNotBefore(lo: number, hi: number, before: (index: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in `[lo, hi)` of the ascending `values` whose value is not `below` `value`. */
export function lowerBound<T = number>(values: ArrayLike<T>, value: T, lo = 0, hi = values.length, below: (a: T, b: T) => boolean = lessThan as never): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(values[mid], value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in `[lo, hi)` of the ascending `values` whose value is above `value` (NaN counts as above). */
export function upperBound(values: ArrayLike<number>, value: number, lo = 0, hi = values.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * {@link lowerBound} from `from` on, for an answer expected near `from`: steps that double until one
 * is not below, then a binary search of the last step. Walking forward through sorted lists
 * (intersections, unions of dictionaries) costs O(log distance) a call, not O(log n).
 */
export function gallop<T = number>(values: ArrayLike<T>, value: T, from: number, below: (a: T, b: T) => boolean = lessThan as never): number {
  let lo = from, hi = from, step = 1;
  while (hi < values.length && below(values[hi], value)) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  return lowerBound(values, value, lo, Math.min(hi, values.length), below);
}
