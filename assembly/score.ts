// Scoring terms over postings: the documents that hold at least `minimum` of a query's terms, and
// their BM25 scores, as src/engine/query/execute.ts needs them for a `match` query over one segment.
// Lucene scores a term's posting as w − w / (1 + freq × inverse[norm]) in float32, where `inverse`
// is the term's table of 1 / (k1 × (1 − b + b × length / avgdl)) by norm byte, and sums a
// disjunction's clause scores in double before rounding to float32 once: so does this kernel.

/** Bytes per term in the term table. */
const TERM_BYTES: usize = 24;

/**
 * The terms are `terms` entries of the table at `table`, 24 bytes each: the address of its
 * documents (u32, ascending), of their frequencies (u32), how many postings (u32), the address of
 * its inverse-length table (256 f32), its weight (f32), 4 bytes of padding. `norms` holds one norm
 * byte per document of a segment of `count` documents; `deleted`, when not 0, one byte per document,
 * 1 for a deleted one, which is left out.
 *
 * Writes to `docs` (u32) the documents holding at least `minimum` of the terms, ascending, and, when
 * `scored` is not 0, to `scores` (f64) each one's score: its terms' scores (f32 each) summed in f64
 * in term order, then rounded to f32. Returns how many. `bits` is scratch for (count + 63) / 64 u64
 * words, `sums` for `count` f64 and `hits` for `count` u16 (read only when `minimum` > 1); none
 * needs clearing first. `docs` and `scores` need room for min(count, postings over all terms).
 */
export function scoreTerms(table: usize, terms: u32, norms: usize, deleted: usize, count: u32, minimum: u32, scored: u32, bits: usize, sums: usize, hits: usize, docs: usize, scores: usize): u32 {
  const words = (count + 63) >> 6;
  memory.fill(bits, 0, (<usize>words) << 3);
  const counting = minimum > 1;
  for (let t: u32 = 0; t < terms; t++) {
    const term = table + <usize>t * TERM_BYTES;
    const postings = <usize>load<u32>(term);
    const freqs = <usize>load<u32>(term, 4);
    const n = load<u32>(term, 8);
    const inverse = <usize>load<u32>(term, 12);
    const weight = load<f32>(term, 16);
    for (let p: u32 = 0; p < n; p++) {
      const doc = load<u32>(postings + ((<usize>p) << 2));
      const word = bits + ((<usize>(doc >> 6)) << 3);
      const mask: u64 = (<u64>1) << (<u64>(doc & 63));
      const before = load<u64>(word);
      store<u64>(word, before | mask);
      // A document met for the first time starts from zero: no clearing pass, and no branch.
      const seen = (before & mask) != 0;
      if (scored) {
        const freq = <f32>load<u32>(freqs + ((<usize>p) << 2));
        const norm = <usize>load<u8>(norms + <usize>doc);
        const score = weight - weight / (<f32>1 + freq * load<f32>(inverse + (norm << 2)));
        const at = sums + ((<usize>doc) << 3);
        store<f64>(at, select<f64>(load<f64>(at), 0, seen) + <f64>score);
      }
      if (counting) {
        const at = hits + ((<usize>doc) << 1);
        store<u16>(at, select<u32>(<u32>load<u16>(at), 0, seen) + 1);
      }
    }
  }
  let w: u32 = 0;
  for (let i: u32 = 0; i < words; i++) {
    let word = load<u64>(bits + ((<usize>i) << 3));
    while (word != 0) {
      const doc = (i << 6) + <u32>ctz(word);
      word &= word - 1;
      store<u32>(docs + ((<usize>w) << 2), doc);
      if (scored) store<f64>(scores + ((<usize>w) << 3), <f64><f32>load<f64>(sums + ((<usize>doc) << 3)));
      let keep: u32 = counting ? <u32>(<u32>load<u16>(hits + ((<usize>doc) << 1)) >= minimum) : 1;
      if (deleted != 0) keep &= <u32>(load<u8>(deleted + <usize>doc) == 0);
      w += keep;
    }
  }
  return w;
}
