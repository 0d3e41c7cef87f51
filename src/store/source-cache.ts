/**
 * The `_source` bytes of recently fetched hits, kept in memory so that a page asked for again (a
 * first page, a page a user goes back to) reads no storage. A lookup in LMDB is a walk down its
 * B-tree from the native side, about 0.8 µs a document here; a kept source is one map lookup.
 *
 * A stored document's key, (index uuid, shard, seq), names the same bytes for as long as they are
 * stored: a write takes a new seq, and seqs are never handed out twice. So nothing kept is ever
 * stale, and nothing needs telling of writes; an index that goes is forgotten (its uuid is never
 * reused either, but its memory should go).
 *
 * Sources are kept in two generations, in slabs of their own: new ones go in the young one, and
 * one found in the old one is copied into the young one. When the young generation has taken half
 * the budget, it becomes the old one and the old one is let go, with everything still held only by
 * it (approximately least recently used, with no per-entry bookkeeping on a hit). A view handed out
 * is never written again.
 *
 * @example
 * const cache = new SourceCache(1 << 20);
 * const view = cache.keep(uuid, 0, 41, storedBytes, sourceStart);
 * cache.get(uuid, 0, 41); // the same bytes as view
 */

/** Bytes of each slab kept sources are copied into. */
const SLAB_BYTES = 64 * 1024;

/** Sources up to this long are copied byte by byte (cheaper than a subarray and a `set` for them). */
const SHORT_COPY = 64;

/** What a node keeps unless told otherwise: a few thousand pages of small documents. */
export const SOURCE_CACHE_BYTES = 16 * 1024 * 1024;

export class SourceCache {
  #young = new Generation();
  #old = new Generation();

  /** `budget`: bytes both generations hold together at most (a source over a sixteenth of it is not kept). */
  constructor(private readonly budget = SOURCE_CACHE_BYTES) {}

  /** The kept source of the document stored at (uuid, shard, seq), if it is kept. */
  get(uuid: string, shard: number, seq: number): Uint8Array | undefined {
    const young = this.#young.find(uuid, shard, seq);
    if (young !== undefined) return young;
    const old = this.#old.find(uuid, shard, seq);
    return old === undefined ? undefined : this.keep(uuid, shard, seq, old, 0);
  }

  /**
   * Keeps `bytes` from `start` on as the source of the document stored at (uuid, shard, seq), and
   * returns the kept copy: a view that is never written again (a copy of its own when the source is
   * too large to keep).
   */
  keep(uuid: string, shard: number, seq: number, bytes: Uint8Array, start: number): Uint8Array {
    const length = bytes.length - start;
    if (length * 16 > this.budget) return new Uint8Array(bytes.subarray(start));
    if (this.#young.bytes + length > this.budget / 2) {
      this.#old = this.#young;
      this.#young = new Generation();
    }
    return this.#young.keep(uuid, shard, seq, bytes, start);
  }

  /** Lets go of an index's sources (it was deleted). */
  forget(uuid: string): void {
    this.#young.forget(uuid);
    this.#old.forget(uuid);
  }

  /** Bytes of sources kept, both generations. */
  get bytes(): number {
    return this.#young.bytes + this.#old.bytes;
  }
}

class Generation {
  /** By index uuid, then by shard: each document's kept source by seq. */
  readonly #byIndex = new Map<string, Map<number, Uint8Array>[]>();
  #slab = new Uint8Array(0);
  #slabAt = 0;
  /** Bytes of sources kept (slabs hold these, and what is left at the end of each full one). */
  bytes = 0;

  find(uuid: string, shard: number, seq: number): Uint8Array | undefined {
    return this.#byIndex.get(uuid)?.[shard]?.get(seq);
  }

  keep(uuid: string, shard: number, seq: number, bytes: Uint8Array, start: number): Uint8Array {
    const length = bytes.length - start;
    if (this.#slabAt + length > this.#slab.length) {
      this.#slab = new Uint8Array(Math.max(SLAB_BYTES, length));
      this.#slabAt = 0;
    }
    const at = this.#slabAt, slab = this.#slab;
    if (length > SHORT_COPY) slab.set(bytes.subarray(start), at);
    else for (let i = 0; i < length; i++) slab[at + i] = bytes[start + i];
    this.#slabAt = at + length;
    this.bytes += length;
    const view = new Uint8Array(slab.buffer, at, length);
    let shards = this.#byIndex.get(uuid);
    if (shards === undefined) this.#byIndex.set(uuid, (shards = []));
    (shards[shard] ??= new Map()).set(seq, view);
    return view;
  }

  forget(uuid: string): void {
    this.#byIndex.delete(uuid);
  }
}
