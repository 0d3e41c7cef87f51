/**
 * A shard's write buffer: documents written since the last refresh, in seq order, found by id or
 * by seq. Documents are appended (a shard applies writes in seq order) and removed when deleted or
 * replaced; a refresh clears the buffer once its documents are in segments.
 *
 * The buffer holds no JavaScript object per document. A refresh interval's documents (up to about
 * 100,000 during a bulk load) wait here, and every object they held was copied by each young
 * collection and then promoted: half of what an ingest's collections copied. So each document is a
 * position in columns, as Lucene's indexing chain buffers them: its seq, version and id hash in
 * typed arrays, its id's UTF-16 code units in one array, and each field's values appended to that
 * field's column (strings as codes into the field's dictionary), with the position of each value.
 * The id lookup is an open-addressing table of positions, keyed by {@link idHash}.
 *
 * @example
 * const buffer = new WriteBuffer();
 * buffer.add('a', idHash('a'), 0, 1, ['price', 5]);
 * buffer.seq(buffer.find('a')); // 0
 */
import type { DocValues } from '../mapping.ts';
import { idHash } from './ids.ts';
import { upperBound } from '../binary-search.ts';

/** A slot of the id table: empty, or a removed entry (probes go on past it). Others hold position + 1. */
const EMPTY = 0;
const REMOVED = -1;
const FIRST_CAPACITY = 64;

/**
 * One field's values: value i belongs to the document at `positions[i]` (ascending: a document's
 * values are appended when it is). Numbers are kept as they are; strings as codes into `terms`.
 */
export interface BufferedField {
  positions: Uint32Array;
  /** Numbers, or (for a field of strings) codes into `terms`. */
  values: Float64Array;
  /** The field's distinct strings by code, when its values are strings. */
  terms: string[] | undefined;
  /** Each string's code (the other way round from `terms`). */
  codes: ReadonlyMap<string, number> | undefined;
  /** How many of the entries are filled. */
  length: number;
}

/**
 * Documents taken from the buffer to be sealed (see {@link WriteBuffer.take}): the live ones with a
 * seq above some seq, as they were when taken. Document i of the slice is the one at buffer position
 * `positions[i]`. The arrays are the buffer's own, read up to what the slice covers: the buffer only
 * appends to them (or replaces them, growing or cleared), so what a slice reads does not change.
 */
export interface BufferedDocs {
  positions: Uint32Array;
  seqs: Float64Array;
  versions: Float64Array;
  /** Each position's id hash. */
  hashes: Uint32Array;
  /** Ids' code units, position p's from `idStarts[p]` to `idStarts[p + 1]`. */
  idChars: Uint16Array;
  idStarts: Uint32Array;
  /** Custom routings, by position. */
  routings: ReadonlyMap<number, string>;
  /** Each field's values, entries before `length` (as it was when taken). */
  fields: ReadonlyMap<string, Readonly<BufferedField>>;
}

export class WriteBuffer {
  /** Documents appended since the last clear: the next position. */
  #count = 0;
  #live = 0;
  #seqs = new Float64Array(FIRST_CAPACITY);
  #versions = new Float64Array(FIRST_CAPACITY);
  #hashes = new Uint32Array(FIRST_CAPACITY);
  /** 1 where the document at the position is live. */
  #alive = new Uint8Array(FIRST_CAPACITY);
  #idChars = new Uint16Array(FIRST_CAPACITY * 8);
  /** Where each position's id starts in `#idChars`; entry `#count` is where the next one starts. */
  #idStarts = new Uint32Array(FIRST_CAPACITY + 1);
  #routings = new Map<number, string>();
  #fields = new Map<string, FieldValues>();
  /** Open addressing, linear probing: position + 1 of a live document, EMPTY or REMOVED. */
  #slots = new Int32Array(FIRST_CAPACITY);
  /** Slots not EMPTY (live and REMOVED): what makes probes long. */
  #used = 0;

  /** Live documents. */
  get size(): number {
    return this.#live;
  }

  /**
   * Appends a document whose seq follows every seq the buffer has held since it was last cleared, and
   * whose id it holds no live document for; `hash` is {@link idHash} of its id.
   */
  add(id: string, hash: number, seq: number, version: number, values: DocValues, routing?: string): void {
    const at = this.#count;
    if (at > 0 && seq <= this.#seqs[at - 1]) throw new Error(`write buffer: seq ${seq} after ${this.#seqs[at - 1]}`);
    if ((this.#used + 1) * 2 > this.#slots.length) this.#rehash();
    if (at === this.#seqs.length) this.#growDocs();
    this.#seqs[at] = seq;
    this.#versions[at] = version;
    this.#hashes[at] = hash;
    this.#alive[at] = 1;
    const start = this.#idStarts[at];
    if (start + id.length > this.#idChars.length) this.#idChars = grown(this.#idChars, start + id.length);
    const chars = this.#idChars;
    for (let i = 0; i < id.length; i++) chars[start + i] = id.charCodeAt(i);
    this.#idStarts[at + 1] = start + id.length;
    if (routing !== undefined) this.#routings.set(at, routing);
    try {
      for (let v = 0; v < values.length; v += 2) this.#append(values[v] as string, at, values[v + 1]);
    } catch (e) {
      // The document is not added: no value may be left at its position for the next one to take.
      for (const field of this.#fields.values()) while (field.length > 0 && field.positions[field.length - 1] === at) field.length--;
      throw e;
    }
    this.#count = at + 1;
    this.#live++;
    this.#place(hash, at + 1);
    this.#used++;
  }

  /** The position of the live document with this id, or -1; `hash` is {@link idHash} of the id. */
  find(id: string, hash = idHash(id)): number {
    const slot = this.#find(id, hash);
    return slot < 0 ? -1 : this.#slots[slot] - 1;
  }

  /** The position of the live document with this seq, or -1. */
  findSeq(seq: number): number {
    const at = this.#firstAfter(seq - 1);
    return at < this.#count && this.#seqs[at] === seq && this.#alive[at] === 1 ? at : -1;
  }

  seq(position: number): number {
    return this.#seqs[position];
  }

  version(position: number): number {
    return this.#versions[position];
  }

  routing(position: number): string | undefined {
    return this.#routings.size > 0 ? this.#routings.get(position) : undefined;
  }

  id(position: number): string {
    return String.fromCharCode(...this.#idChars.subarray(this.#idStarts[position], this.#idStarts[position + 1]));
  }

  /** Whether the document at `position` is still live (neither removed nor cleared away since it was taken). */
  holds(position: number): boolean {
    return position < this.#count && this.#alive[position] === 1;
  }

  /** Removes the live document with this id; its position, or -1 if there was none. */
  remove(id: string): number {
    const slot = this.#find(id, idHash(id));
    if (slot < 0) return -1;
    const at = this.#slots[slot] - 1;
    this.#alive[at] = 0;
    this.#slots[slot] = REMOVED;
    this.#live--;
    return at;
  }

  /** The live documents with a seq above `seq`, in seq order, as they are now (see {@link BufferedDocs}). */
  take(seq: number): BufferedDocs {
    const from = this.#firstAfter(seq), alive = this.#alive;
    let count = 0;
    for (let at = from; at < this.#count; at++) count += alive[at];
    const positions = new Uint32Array(count);
    for (let at = from, i = 0; at < this.#count; at++) if (alive[at] === 1) positions[i++] = at;
    const fields = new Map<string, Readonly<BufferedField>>();
    for (const [name, field] of this.#fields) fields.set(name, { positions: field.positions, values: field.values, terms: field.terms, codes: field.codes, length: field.length });
    return {
      positions,
      seqs: this.#seqs,
      versions: this.#versions,
      hashes: this.#hashes,
      idChars: this.#idChars,
      idStarts: this.#idStarts,
      routings: this.#routings,
      fields,
    };
  }

  /** Empties the buffer. Arrays are replaced, not overwritten: slices taken before still read theirs. */
  clear(): void {
    this.#count = 0;
    this.#live = 0;
    this.#seqs = new Float64Array(FIRST_CAPACITY);
    this.#versions = new Float64Array(FIRST_CAPACITY);
    this.#hashes = new Uint32Array(FIRST_CAPACITY);
    this.#alive = new Uint8Array(FIRST_CAPACITY);
    this.#idChars = new Uint16Array(FIRST_CAPACITY * 8);
    this.#idStarts = new Uint32Array(FIRST_CAPACITY + 1);
    this.#routings = new Map();
    this.#fields = new Map();
    this.#slots = new Int32Array(FIRST_CAPACITY);
    this.#used = 0;
  }

  /** The id hash of every live document. */
  liveHashes(): Uint32Array {
    const out = new Uint32Array(this.#live);
    for (let at = 0, i = 0; at < this.#count; at++) if (this.#alive[at] === 1) out[i++] = this.#hashes[at];
    return out;
  }

  #append(name: string, position: number, value: string | number): void {
    let field = this.#fields.get(name);
    if (field === undefined) this.#fields.set(name, (field = new FieldValues(typeof value === 'string')));
    field.append(name, position, value);
  }

  #growDocs(): void {
    const needed = this.#count + 1;
    this.#seqs = grown(this.#seqs, needed);
    this.#versions = grown(this.#versions, needed);
    this.#hashes = grown(this.#hashes, needed);
    this.#alive = grown(this.#alive, needed);
    this.#idStarts = grown(this.#idStarts, needed + 1);
  }

  /** The slot holding the live document with this id, or -1. */
  #find(id: string, hash: number): number {
    const slots = this.#slots, mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = slots[slot];
      if (held === EMPTY) return -1;
      if (held !== REMOVED && this.#hashes[held - 1] === hash && this.#idIs(held - 1, id)) return slot;
    }
  }

  #idIs(position: number, id: string): boolean {
    const start = this.#idStarts[position];
    if (this.#idStarts[position + 1] - start !== id.length) return false;
    const chars = this.#idChars;
    for (let i = 0; i < id.length; i++) if (chars[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  /** Puts position + 1 in the first empty slot of its probe sequence. */
  #place(hash: number, positionPlusOne: number): void {
    const slots = this.#slots, mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot] = positionPlusOne;
  }

  /** A table twice the live documents' count or more (at least half empty after the next add), without the removed slots. */
  #rehash(): void {
    const old = this.#slots;
    let capacity = FIRST_CAPACITY;
    while (capacity < (this.#live + 1) * 4) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#used = 0;
    for (let slot = 0; slot < old.length; slot++) {
      if (old[slot] <= EMPTY) continue;
      this.#place(this.#hashes[old[slot] - 1], old[slot]);
      this.#used++;
    }
  }

  /** The first position whose seq is above `seq` (the count when none is). */
  #firstAfter(seq: number): number {
    return upperBound(this.#seqs, seq, 0, this.#count);
  }
}

/** A field's {@link BufferedField}, with the dictionary that gives its strings their codes. */
class FieldValues implements BufferedField {
  positions = new Uint32Array(FIRST_CAPACITY);
  values = new Float64Array(FIRST_CAPACITY);
  readonly terms: string[] | undefined;
  readonly codes: Map<string, number> | undefined;
  length = 0;

  constructor(strings: boolean) {
    if (strings) {
      this.terms = [];
      this.codes = new Map();
    }
  }

  append(name: string, position: number, value: string | number): void {
    const at = this.length;
    if (at === this.positions.length) {
      this.positions = grown(this.positions, at + 1);
      this.values = grown(this.values, at + 1);
    }
    this.positions[at] = position;
    // A field's mapping gives all its values one kind (mapping.ts parseValue).
    if (typeof value === 'number') {
      if (this.terms !== undefined) throw new Error(`write buffer: field [${name}] holds strings, given a number`);
      this.values[at] = value;
    } else {
      if (this.terms === undefined) throw new Error(`write buffer: field [${name}] holds numbers, given a string`);
      let code = this.codes!.get(value);
      if (code === undefined) {
        code = this.terms.length;
        this.codes!.set(value, code);
        this.terms.push(value);
      }
      this.values[at] = code;
    }
    this.length = at + 1;
  }
}

/** A copy of `array` with room for `needed` entries or more (doubling), its entries kept. */
function grown<T extends Float64Array | Uint32Array | Int32Array | Uint16Array | Uint8Array>(array: T, needed: number): T {
  let capacity = Math.max(array.length, 1) * 2;
  while (capacity < needed) capacity *= 2;
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}
