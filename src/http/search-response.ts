/**
 * A search response as bytes, its hits written one by one so that each stored `_source` goes in as
 * the UTF-8 bytes it was stored as: never decoded, parsed or serialized again. Everything else is
 * written by `JSON.stringify`, so the body is what serializing the response would give.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';

export function searchResponseBody(body: SearchResponse): Uint8Array<ArrayBuffer> {
  const { hits } = body;
  // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
  const shell = JSON.stringify({ ...body, hits: { ...hits, hits: [] } });
  if (!shell.endsWith(EMPTY_HITS)) return new TextEncoder().encode(JSON.stringify(body));
  const pieces = new Pieces(`${shell.slice(0, -EMPTY_HITS.length)}"hits":[`);
  hits.hits.forEach((hit, i) => writeHit(pieces, hit, i > 0));
  pieces.text(']}}');
  return pieces.bytes();
}

const EMPTY_HITS = '"hits":[]}}';

function writeHit(pieces: Pieces, hit: Hit, comma: boolean): void {
  let first = true;
  pieces.text(comma ? ',{' : '{');
  for (const key in hit) {
    const value = hit[key as keyof Hit];
    if (value === undefined) continue;
    // Hit keys are plain names (`_index`, `_source`, …): they need no escaping.
    pieces.text(`${first ? '' : ','}"${key}":`);
    first = false;
    if (value instanceof RawJson) pieces.raw(value.raw);
    else pieces.text(JSON.stringify(value));
  }
  pieces.text('}');
}

/** Text and byte pieces, adjacent texts joined, copied once into one buffer. */
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

  bytes(): Uint8Array<ArrayBuffer> {
    this.#pieces.push(this.#pending);
    let total = 0;
    for (const piece of this.#pieces) total += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
    const out = Buffer.alloc(total);
    let at = 0;
    for (const piece of this.#pieces) {
      if (typeof piece === 'string') at += out.write(piece, at);
      else {
        out.set(piece, at);
        at += piece.length;
      }
    }
    return out;
  }
}
