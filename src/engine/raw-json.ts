/**
 * JSON kept as it arrived, as text or as its UTF-8 bytes: a stored `_source` goes back to clients
 * spliced into the response unparsed (src/http/search-response.ts), as Elasticsearch returns the
 * bytes it was given, and is decoded only when something needs its text, and parsed only when
 * something needs its values (a reindex's mappings, `filter_path`).
 */
export class RawJson {
  #text: string | undefined;
  #value: unknown;

  /** @param json the JSON as stored: its text, or the UTF-8 bytes of that text. */
  constructor(json: string | Uint8Array) {
    if (typeof json === 'string') this.#text = json;
    else this.bytes = json;
  }

  /** The UTF-8 bytes it was made from, if it was made from bytes. */
  readonly bytes: Uint8Array | undefined;

  /** The JSON text (decoded once, on first use, when made from bytes). */
  get text(): string {
    if (this.#text === undefined) {
      const bytes = this.bytes!;
      this.#text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
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
