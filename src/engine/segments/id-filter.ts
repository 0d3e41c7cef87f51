/**
 * A shard's filter of the ids it may hold: a split-block Bloom filter (Putze et al.'s blocked
 * filter, in the layout Parquet and Impala use) over the 32-bit id hashes of {@link idHash}.
 *
 * A write looks its id up before it plans a new version, and a fresh id is in none of the shard's
 * segments: each segment's own table answers "not here" from one cache line, but a shard of eight
 * or nine segments costs as many cache misses per write (5 % of a `_bulk` load's time). Here one
 * block of 32 bytes answers for the whole shard. An id the filter may hold is looked up segment by
 * segment as before; one it does not hold is in none of them.
 *
 * Ids are added as documents enter the shard and never removed (a deleted id only costs a lookup
 * that finds nothing). When more ids have been added than the filter is sized for, the shard
 * builds a larger one from the hashes its segments keep ({@link IdFilter.of}), which also drops
 * the ids deleted since.
 *
 * @example
 * const filter = new IdFilter(1000);
 * filter.add(idHash('a'));
 * filter.mayHold(idHash('a')); // true
 * filter.mayHold(idHash('b')); // false, but for one id in a thousand or so
 */

/** Eight words of 32 bits a block: a hash sets one bit in each. */
const WORDS = 8;
/** The odd constants that pick a hash's bit in each word (Parquet's SBBF salts). */
const SALTS = new Int32Array([0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31]);
/** Bits of filter per id it is sized for: 0.1–0.3 % false positives at that load. */
const BITS_PER_ID = 16;
const FIRST_CAPACITY = 1024;

export class IdFilter {
  readonly #words: Int32Array;
  /** 32 - log2(blocks): a block is picked by the top bits of a multiplicative hash (its best mixed). */
  readonly #shift: number;
  readonly #capacity: number;
  #count = 0;

  /** A filter sized for `capacity` ids (at least a thousand). */
  constructor(capacity: number) {
    let blocks = 2, bits = 1;
    for (; blocks * WORDS * 32 < Math.max(capacity, FIRST_CAPACITY) * BITS_PER_ID; bits++) blocks *= 2;
    this.#words = new Int32Array(blocks * WORDS);
    this.#shift = 32 - bits;
    this.#capacity = (blocks * WORDS * 32) / BITS_PER_ID;
  }

  /** A filter of these hash lists, sized for twice as many ids (room to grow before the next rebuild). */
  static of(lists: Iterable<ArrayLike<number>>, count: number): IdFilter {
    const filter = new IdFilter(2 * count);
    for (const hashes of lists) for (let i = 0; i < hashes.length; i++) filter.add(hashes[i]);
    return filter;
  }

  /** More ids were added than the filter is sized for: its false positives climb from here. */
  get full(): boolean {
    return this.#count > this.#capacity;
  }

  add(hash: number): void {
    const words = this.#words;
    const at = this.#block(hash);
    for (let w = 0; w < WORDS; w++) words[at + w] |= 1 << (Math.imul(hash, SALTS[w]) >>> 27);
    this.#count++;
  }

  /** False when no id with this hash was added; true when one was, or (rarely) by chance. */
  mayHold(hash: number): boolean {
    const words = this.#words;
    const at = this.#block(hash);
    for (let w = 0; w < WORDS; w++) {
      if ((words[at + w] & (1 << (Math.imul(hash, SALTS[w]) >>> 27))) === 0) return false;
    }
    return true;
  }

  /** The first word of the hash's block: chosen by a multiplicative hash of it, apart from the bits within. */
  #block(hash: number): number {
    return (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> this.#shift) * WORDS;
  }
}
