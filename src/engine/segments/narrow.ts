/**
 * Per-document whole numbers kept in the narrowest typed array that holds them all exactly: a
 * segment's versions are nearly always 1 (one byte each, not eight), and its sequence numbers fit in
 * 32 bits until a shard has taken four billion writes. On a million small documents the two columns
 * went from 16 to 5 bytes a document. Reading an entry is the same indexing whatever the width.
 *
 * @example
 * narrowest(Float64Array.of(1, 1, 2)); // Uint8Array [1, 1, 2]
 * narrowest(Float64Array.of(1, 2 ** 40)); // the Float64Array itself
 */
export type WholeNumbers = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** `values` in the narrowest array that holds each exactly (themselves when only f64 does: fractions, negatives, ≥ 2^32). */
export function narrowest(values: Float64Array): WholeNumbers {
  let max = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // NaN, negatives and fractions fail the first two tests; -0 reads back as 0, which equals it.
    if (!(value >= 0) || value !== Math.floor(value)) return values;
    if (value > max) max = value;
  }
  if (max <= 0xff) return Uint8Array.from(values);
  if (max <= 0xffff) return Uint16Array.from(values);
  if (max <= 0xffffffff) return Uint32Array.from(values);
  return values;
}

/** The values as f64, as the segment format stores them. */
export function widened(values: WholeNumbers): Float64Array {
  return values instanceof Float64Array ? values : Float64Array.from(values);
}
