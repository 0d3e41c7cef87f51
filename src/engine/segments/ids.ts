/**
 * A segment's `_id`s, kept compactly and searchable without a JavaScript object per document: the
 * ids joined into one string with the offset of each (UTF-16 code units), and a lookup table of
 * 32-bit id hashes sorted together with the local ordinal each belongs to. Finding an id is a
 * binary search for its hash, then a comparison of the text at each candidate (hashes collide).
 *
 * A segment holds each id at most once (a new version of a document replaces the old one in the
 * write buffer, and merges keep only live documents), so {@link IdColumn.find} has one answer.
 *
 * @example
 * const ids = IdColumn.build(['b', 'a']);
 * ids.find('a'); // 1
 * ids.id(0); // 'b'
 */
import { finish, SLICE, type Steps } from '../steps.ts';

export class IdColumn {
  constructor(
    /** Every id, joined in local order. */
    readonly text: string,
    /** Where id i starts in `text`; `offsets[count]` is the text's length. */
    readonly offsets: Uint32Array,
    /** The ids' hashes, ascending. */
    readonly hashes: Uint32Array,
    /** The local ordinal of the id whose hash is `hashes[i]`. */
    readonly order: Uint32Array,
  ) {
    this.#shift = 32 - bucketBits(hashes.length);
    this.#buckets = bucketTable(hashes, this.#shift);
  }

  /**
   * Per bucket of hashes (their top `32 - #shift` bits), two words: where the bucket starts in
   * `hashes`, and a 32-bit filter with bit `hash & 31` set for each hash in it; then the end. An id
   * whose bit is not set is not in the segment, read from the one cache line that holds the bucket's
   * start and end: a write looks a fresh id up in every segment of its shard, and finds it in none.
   */
  readonly #buckets: Uint32Array;
  readonly #shift: number;

  static build(ids: readonly string[]): IdColumn {
    return finish(buildIdColumn(ids));
  }

  get count(): number {
    return this.hashes.length;
  }

  /** The id at a local ordinal. */
  id(local: number): string {
    return this.text.slice(this.offsets[local], this.offsets[local + 1]);
  }

  /** The local ordinal holding `id`, or -1; `hash` is {@link idHash} of it (given when looking in several segments). */
  find(id: string, hash = idHash(id)): number {
    const { hashes, order, offsets, text } = this;
    // The bucket's few hashes, in one or two cache lines, rather than a binary search over them all:
    // a write looks its id up in every segment of the shard, and most are not there.
    const at = (hash >>> this.#shift) * 2;
    const buckets = this.#buckets;
    if ((buckets[at + 1] & (1 << (hash & 31))) === 0) return -1;
    let lo = buckets[at];
    const end = buckets[at + 2];
    while (lo < end && hashes[lo] < hash) lo++;
    for (; lo < end && hashes[lo] === hash; lo++) {
      const local = order[lo], start = offsets[local];
      if (offsets[local + 1] - start === id.length && text.startsWith(id, start)) return local;
    }
    return -1;
  }
}

/** Hashes per bucket of {@link IdColumn}'s lookup table, on average: 4 to 8 (a bucket's start and filter take one to two bytes per id). */
const BUCKET_FILL = 4;

/**
 * The bits of a hash that name its bucket: about count / BUCKET_FILL buckets, at least 2 (so a shift
 * is below 32, which JavaScript would take as 0) and at most 2^24.
 */
function bucketBits(count: number): number {
  return Math.min(24, Math.max(1, Math.floor(Math.log2(Math.max(1, count / BUCKET_FILL)))));
}

/** For sorted `hashes`: each bucket's start and filter (see IdColumn's `#buckets`), then the end. */
function bucketTable(hashes: Uint32Array, shift: number): Uint32Array {
  const buckets = 2 ** (32 - shift);
  const table = new Uint32Array(2 * buckets + 1);
  let at = 0;
  for (let b = 0; b < buckets; b++) {
    table[2 * b] = at;
    let filter = 0;
    for (; at < hashes.length && hashes[at] >>> shift === b; at++) filter |= 1 << (hashes[at] & 31);
    table[2 * b + 1] = filter;
  }
  table[2 * buckets] = hashes.length;
  return table;
}

/** How many characters a segment's ids may take together (V8 strings stop short of 2^29). */
export const MAX_TEXT = 2 ** 28;

/** A segment's ids must fit one string ({@link MAX_TEXT}). */
function checkTextLength(count: number, length: number): void {
  if (length > MAX_TEXT) throw new RangeError(`ids of ${count} documents take ${length} characters, more than a segment holds (${MAX_TEXT})`);
}

/** FNV-1a over the id's UTF-16 code units: cheap, and spreads short similar ids well. */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** {@link IdColumn.build} a slice at a time (steps.ts). */
export function* buildIdColumn(ids: readonly string[]): Steps<IdColumn> {
  const n = ids.length;
  const offsets = new Uint32Array(n + 1);
  const hashes = new Uint32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = at;
    at += ids[i].length;
    hashes[i] = idHash(ids[i]);
    if (i % SLICE === SLICE - 1) yield;
  }
  offsets[n] = at;
  checkTextLength(n, at);
  return yield* idColumnOf(ids.join(''), offsets, hashes);
}

/** The column of ids joined in `text`, id i at `offsets[i]` with {@link idHash} `hashes[i]` (sorted here, not in place). */
export function* idColumnOf(text: string, offsets: Uint32Array, hashes: Uint32Array): Steps<IdColumn> {
  checkTextLength(hashes.length, text.length);
  const { keys, order } = yield* sortByHash(hashes);
  return new IdColumn(text, offsets, keys, order);
}

/**
 * The ids at `locals` (ascending) of each part, parts in order, as one column, without hashing or
 * sorting again: each part's hashes are already sorted, so the merged table is their merge, kept
 * entries only, with ordinals renumbered; the text is the kept ids' text, copied a run of
 * consecutive kept ids at a time (all of a part at once when it keeps every document).
 */
export function* mergeIdColumns(parts: readonly { ids: IdColumn; locals: ArrayLike<number> }[]): Steps<IdColumn> {
  const n = parts.reduce((sum, part) => sum + part.locals.length, 0);
  const offsets = new Uint32Array(n + 1);
  const pieces: string[] = [];
  /** Per part, each local's ordinal in the merged column, or -1 for a document it drops. */
  const renumbered: Int32Array[] = [];
  let at = 0, length = 0, sinceYield = 0;
  for (const { ids, locals } of parts) {
    const to = new Int32Array(ids.count).fill(-1);
    for (let i = 0; i < locals.length; ) {
      // A run of consecutive locals is one piece of text.
      const first = locals[i];
      let last = first;
      while (i + 1 < locals.length && locals[i + 1] === last + 1) last = locals[++i];
      i++;
      const start = ids.offsets[first];
      pieces.push(ids.text.slice(start, ids.offsets[last + 1]));
      for (let local = first; local <= last; local++, at++) {
        to[local] = at;
        offsets[at] = length + ids.offsets[local] - start;
      }
      length += ids.offsets[last + 1] - start;
      sinceYield += last - first + 1;
      if (sinceYield >= SLICE) {
        sinceYield = 0;
        yield;
      }
    }
    renumbered.push(to);
  }
  offsets[n] = length;
  checkTextLength(n, length);
  yield;
  // A k-way merge of the parts' sorted hashes (k is 2 for the shard's merges): the smallest head each time.
  const hashes = new Uint32Array(n), order = new Uint32Array(n);
  const heads = parts.map(() => 0);
  for (let out = 0; out < n; ) {
    let best = -1, bestHash = 0;
    for (let p = 0; p < parts.length; p++) {
      const { hashes: partHashes, order: partOrder } = parts[p].ids;
      const to = renumbered[p];
      // Past the entries of documents the part drops.
      while (heads[p] < partHashes.length && to[partOrder[heads[p]]] < 0) heads[p]++;
      if (heads[p] < partHashes.length && (best < 0 || partHashes[heads[p]] < bestHash)) {
        best = p;
        bestHash = partHashes[heads[p]];
      }
    }
    hashes[out] = bestHash;
    order[out] = renumbered[best][parts[best].ids.order[heads[best]++]];
    if (++out % HASH_SLICE === 0) yield;
  }
  return new IdColumn(pieces.join(''), offsets, hashes, order);
}

/** Hashes per yield of the radix sort (a few typed-array operations each). */
const HASH_SLICE = 16 * SLICE;

/** The hashes in ascending order with the index each came from: two 16-bit passes of a radix sort. */
function* sortByHash(hashes: Uint32Array): Steps<{ keys: Uint32Array; order: Uint32Array }> {
  const n = hashes.length;
  let keys = hashes.slice(), order = new Uint32Array(n);
  // A loop, not `Uint32Array.from` with a mapping function (several times slower, in merges of large segments).
  for (let i = 0; i < n; i++) order[i] = i;
  let nextKeys = new Uint32Array(n), nextOrder = new Uint32Array(n);
  const counts = new Uint32Array(1 << 16);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(keys[i] >>> shift) & 0xffff]++;
    for (let b = 0, sum = 0; b < counts.length; b++) {
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    yield;
    for (let i = 0; i < n; i++) {
      const at = counts[(keys[i] >>> shift) & 0xffff]++;
      nextKeys[at] = keys[i];
      nextOrder[at] = order[i];
      if (i % HASH_SLICE === HASH_SLICE - 1) yield;
    }
    [keys, nextKeys] = [nextKeys, keys];
    [order, nextOrder] = [nextOrder, order];
  }
  return { keys, order };
}
