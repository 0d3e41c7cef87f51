/**
 * A search response's body, its hits written one by one so that each stored `_source` goes in as
 * it was stored (UTF-8 bytes, or their text): never parsed or serialized again. Everything else is
 * written by `JSON.stringify`, so the body is what serializing the response would give. Text when
 * every source came as text, bytes otherwise.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';

export function searchResponseBody(body: SearchResponse): string | Uint8Array<ArrayBuffer> {
  const { hits } = body;
  // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
  const shell = JSON.stringify({ ...body, hits: { ...hits, hits: [] } });
  if (!shell.endsWith(EMPTY_HITS)) return JSON.stringify(body);
  const pieces = new Pieces(`${shell.slice(0, -EMPTY_HITS.length)}"hits":[`);
  // The JSON of each index name, written once.
  const names = new Map<string, string>();
  for (let i = 0; i < hits.hits.length; i++) writeHit(pieces, hits.hits[i], i > 0, names);
  pieces.text(']}}');
  return pieces.joined();
}

const EMPTY_HITS = '"hits":[]}}';

/** The fields {@link writeHit} writes: a field added to {@link Hit} and not written here fails to compile. */
const WRITTEN = ['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_routing', '_source', 'fields', 'sort'] as const;
const everyHitField: Exclude<keyof Hit, (typeof WRITTEN)[number]> extends never ? true : never = true;
void everyHitField;

/** A hit, its fields in ES's order (those of {@link Hit}). */
function writeHit(pieces: Pieces, hit: Hit, comma: boolean, names: Map<string, string>): void {
  let index = names.get(hit._index);
  if (index === undefined) names.set(hit._index, (index = JSON.stringify(hit._index)));
  let text = `${comma ? ',' : ''}{"_index":${index}`;
  if (hit._id !== undefined) text += `,"_id":${scalar(hit._id)}`;
  if (hit._version !== undefined) text += `,"_version":${hit._version}`;
  if (hit._seq_no !== undefined) text += `,"_seq_no":${hit._seq_no},"_primary_term":${hit._primary_term}`;
  text += `,"_score":${scalar(hit._score)}`;
  if (hit._routing !== undefined) text += `,"_routing":${JSON.stringify(hit._routing)}`;
  if (hit._source instanceof RawJson) {
    pieces.text(`${text},"_source":`);
    pieces.raw(hit._source.raw);
    text = '';
  } else if (hit._source !== undefined) {
    text += `,"_source":${JSON.stringify(hit._source)}`;
  }
  if (hit.fields !== undefined) text += `,"fields":${JSON.stringify(hit.fields)}`;
  if (hit.sort !== undefined) text += `,"sort":${sortValues(hit.sort)}`;
  pieces.text(`${text}}`);
}

/**
 * A hit's id, score or sort value as `JSON.stringify` writes it, without calling it for the common
 * cases (a page of ten hits called it thirty times): finite numbers, and strings with nothing to escape.
 */
function scalar(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return JSON.stringify(value) ?? 'null';
}

function sortValues(values: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += i === 0 ? scalar(values[i]) : `,${scalar(values[i])}`;
  return `${text}]`;
}

// Quotes, backslashes, control characters and lone surrogates (which JSON.stringify writes as escapes).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Text and byte pieces, adjacent texts joined: one text if no bytes came, else copied once into one buffer. */
class Pieces {
  readonly #pieces: (string | Uint8Array)[] = [];
  #pending: string;

  constructor(start: string) {
    this.#pending = start;
  }

  text(text: string): void {
    this.#pending += text;
  }

  raw(raw: Uint8Array | string): void {
    if (typeof raw === 'string') return this.text(raw);
    this.#pieces.push(this.#pending, raw);
    this.#pending = '';
  }

  joined(): string | Uint8Array<ArrayBuffer> {
    if (this.#pieces.length === 0) return this.#pending;
    this.#pieces.push(this.#pending);
    // Room for the worst case (three UTF-8 bytes per UTF-16 unit), so no text is measured first.
    let room = 0;
    for (const piece of this.#pieces) room += typeof piece === 'string' ? piece.length * 3 : piece.length;
    const out = Buffer.allocUnsafeSlow(room) as Buffer<ArrayBuffer>;
    let at = 0;
    for (const piece of this.#pieces) {
      if (typeof piece === 'string') at += out.write(piece, at);
      else {
        out.set(piece, at);
        at += piece.length;
      }
    }
    return out.subarray(0, at);
  }
}
