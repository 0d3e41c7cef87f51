/**
 * JSON kept as the text it arrived in: a stored `_source` goes back to clients spliced into the
 * response unparsed (src/http/search-response.ts), as Elasticsearch returns the bytes it was given,
 * and is parsed only when something needs its values (a reindex's mappings, `filter_path`).
 */
export class RawJson {
  #value: unknown;
  #text: string | undefined;

  /** @param raw the JSON as stored: UTF-8 bytes, or text. */
  constructor(readonly raw: Uint8Array | string) {
    if (typeof raw === 'string') this.#text = raw;
  }

  /** The JSON text (decoded once, on first use, from the bytes where they are: no copy first). */
  get text(): string {
    if (this.#text === undefined) {
      const bytes = this.raw as Uint8Array;
      this.#text = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('utf8');
    }
    return this.#text;
  }

  /** The parsed value (parsed once, on first use). */
  get value(): unknown {
    if (this.#value === undefined) this.#value = JSON.parse(this.text);
    return this.#value;
  }

  /** What `JSON.stringify` writes where nothing splices the text: the same JSON, re-serialized. */
  toJSON(): unknown {
    return this.value;
  }
}
