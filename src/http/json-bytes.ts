/**
 * JSON written straight into bytes, for answers made of many small repeated parts (a large
 * `_bulk`'s items): building each part as a string, joining them and encoding the result cost more
 * than a microsecond per item, where writing the bytes costs a fraction of that. Writers given a
 * {@link Slab} take their bytes from it; the app keeps one for all its answers.
 *
 * @example
 * const out = new JsonBytes(4096, new Slab());
 * out.ascii('{"id":'); out.string('a"b'); out.ascii(',"n":'); out.number(12); out.ascii('}');
 * out.take().toString(); // '{"id":"a\"b","n":12}'
 */
export class JsonBytes {
  readonly #slab: Slab | undefined;
  #bytes: Buffer;
  #at = 0;

  constructor(capacity = 4096, slab?: Slab) {
    // A region of the slab, its unused part given back when done; or a buffer of its own.
    this.#slab = slab;
    this.#bytes = slab?.take(capacity) ?? Buffer.allocUnsafe(capacity);
  }

  /** How many bytes are written: where {@link again} can find them. */
  get length(): number {
    return this.#at;
  }

  /** The bytes written at [start, end) written again (a part that repeats, encoded once). */
  again(start: number, end: number): void {
    const n = end - start;
    this.#room(n);
    const bytes = this.#bytes;
    let at = this.#at;
    for (let i = start; i < end; i++) bytes[at++] = bytes[i];
    this.#at = at;
  }

  /** Text known to be ASCII (JSON punctuation, field names, pre-escaped tokens), as is. */
  ascii(text: string): void {
    const n = text.length;
    this.#room(n);
    const bytes = this.#bytes;
    let at = this.#at;
    for (let i = 0; i < n; i++) bytes[at++] = text.charCodeAt(i);
    this.#at = at;
  }

  /** Any text (JSON already serialized), as UTF-8. */
  text(text: string): void {
    // Room for the most it can take, or if that is more than is left, for what it takes.
    if (this.#at + text.length * 3 > this.#bytes.length) this.#room(Buffer.byteLength(text));
    this.#at += this.#bytes.write(text, this.#at, 'utf8');
  }

  /** Bytes written as they are (encoded JSON kept from an earlier answer). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.#room(n);
    if (n > SHORT_COPY) {
      this.#bytes.set(bytes, this.#at);
      this.#at += n;
      return;
    }
    const out = this.#bytes;
    let at = this.#at;
    for (let i = 0; i < n; i++) out[at++] = bytes[i];
    this.#at = at;
  }

  /** A JSON string: printable ASCII copied byte by byte, anything else through `JSON.stringify`'s escaping. */
  string(text: string): void {
    const n = text.length;
    this.#room(n + 2);
    const bytes = this.#bytes;
    let at = this.#at;
    bytes[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code >= 0x7f || code === QUOTE || code === BACKSLASH) {
        this.text(JSON.stringify(text));
        return;
      }
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    this.#at = at;
  }

  /** A number as `JSON.stringify` writes it; non-negative safe integers digit by digit. */
  number(value: number): void {
    if (!(value >= 0 && value <= MAX_DIGITS_VALUE && Number.isInteger(value))) {
      this.ascii(JSON.stringify(value));
      return;
    }
    let digits = 1;
    for (let bound = 10; bound <= value; bound *= 10) digits++;
    this.#room(digits);
    const bytes = this.#bytes;
    let at = this.#at + digits;
    this.#at = at;
    if (value <= INT32_MAX) {
      // Small integers (counts, most sort values) in 32-bit arithmetic, which divides by 10 without floating point.
      let rest = value | 0;
      do {
        const next = (rest / 10) | 0;
        bytes[--at] = ZERO + rest - next * 10;
        rest = next;
      } while (rest > 0);
      return;
    }
    let rest = value;
    do {
      const next = Math.floor(rest / 10);
      bytes[--at] = ZERO + (rest - next * 10);
      rest = next;
    } while (rest > 0);
  }

  /** The bytes written (a view of the buffer): the writer is done with it and must not be used again. */
  take(): Buffer {
    const taken = this.#bytes.subarray(0, this.#at);
    this.#slab?.giveBack(this.#bytes, this.#at);
    return taken;
  }

  #room(more: number): void {
    const needed = this.#at + more;
    if (needed <= this.#bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
    this.#bytes.copy(grown, 0, 0, this.#at);
    this.#slab?.giveBack(this.#bytes, 0);
    this.#bytes = grown;
  }
}

/**
 * Where answers' bytes come from: regions of large slabs, handed out in order, each writer giving
 * back what it did not use. A buffer of its own per answer cost a native allocation a request (and
 * Node's pool of 8 KiB holds two pages of ten hits). A slab is left to the collector once it is
 * full; the answers still being sent keep it alive, and no region is handed out twice.
 */
export class Slab {
  #slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  #used = 0;

  /** A region of `capacity` bytes, or undefined for one too large to share a slab. */
  take(capacity: number): Buffer | undefined {
    if (capacity > SLAB_BYTES / 8) return undefined;
    const size = aligned(capacity);
    if (this.#used + size > SLAB_BYTES) {
      this.#slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.#used = 0;
    }
    const region = this.#slab.subarray(this.#used, this.#used + size);
    this.#used += size;
    return region;
  }

  /** The region's bytes past `kept` are free again, if it is the slab's last region (any other buffer is left as it is). */
  giveBack(region: Buffer, kept: number): void {
    if (region.buffer !== this.#slab.buffer || region.byteOffset + region.length !== this.#used) return;
    this.#used = region.byteOffset + aligned(kept);
  }
}

const SLAB_BYTES = 256 * 1024;
const aligned = (n: number) => (n + 7) & ~7;

/** Up to this many bytes are copied in a loop: a typed array's `set` costs more than that to call. */
const SHORT_COPY = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
/** Integers up to here are written digit by digit; larger ones (and fractions, negatives) as JSON.stringify writes them. */
const MAX_DIGITS_VALUE = Number.MAX_SAFE_INTEGER;
const INT32_MAX = 0x7fffffff;
