// The memory-scan floor the benchmarks compare against: one scalar pass over a key column,
// the same loop shape as the top-k filter without its work.

/** Sum of `n` f64 at `keys`, one accumulator. */
export function sumKeys(keys: usize, n: u32): f64 {
  let sum: f64 = 0;
  for (let i: u32 = 0; i < n; i++) sum += load<f64>(keys + ((<usize>i) << 3));
  return sum;
}
