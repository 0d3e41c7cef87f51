/**
 * JSON kept as the text it arrived in: a stored `_source` goes back to clients spliced into the
 * response unparsed (src/http/search-response.ts), as Elasticsearch returns the bytes it was given,
 * and is parsed only when something needs its values (a reindex's mappings, `filter_path`).
 */
export class RawJson {
  #value: unknown;

  /** @param text the JSON as stored. */
  constructor(readonly text: string) {}

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
