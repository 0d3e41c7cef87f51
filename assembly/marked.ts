// Picking a run's entries by their documents: a query's run taken from the segment's run for the
// sort (src/engine/search/runs/sorted-run.ts `selected`), in the run's order, so nothing is sorted.

/**
 * Writes to `out` (u32, room for `n`) the indices of the entries among `n` whose position (u32 at
 * `positions`) is marked with a 1 in `marks` (one byte per position), in entry order; returns how
 * many. No branch on the marks: every index is written, and the cursor moves past the marked ones.
 */
export function markedEntries(positions: usize, n: u32, marks: usize, out: usize): u32 {
  let w: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const p = load<u32>(positions + ((<usize>i) << 2));
    store<u32>(out + ((<usize>w) << 2), i);
    w += <u32>load<u8>(marks + <usize>p) & 1;
  }
  return w;
}
