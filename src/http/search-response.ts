/**
 * A search response's body as UTF-8 bytes, its hits written one by one so that each stored `_source`
 * goes in as the text it was stored as: never parsed or serialized again. Everything else is written
 * as `JSON.stringify` writes it, so the body is what serializing the response would give.
 *
 * Written as bytes rather than joined into one string: a page of 10,000 hits joined into a string of
 * 60,000 pieces was flattened and scanned once more for its byte length, then encoded again on the
 * socket, which took a fifth of the server's time for such a page.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';
import { JsonBytes } from './json-bytes.ts';

export function searchResponseBody(body: SearchResponse): Buffer {
  const { hits } = body;
  // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
  const shell = JSON.stringify({ ...body, hits: { ...hits, hits: [] } });
  if (!shell.endsWith(EMPTY_HITS)) return Buffer.from(JSON.stringify(body));
  const list = hits.hits;
  let estimate = shell.length + 8;
  for (let i = 0; i < list.length; i++) {
    const source = list[i]._source;
    estimate += HIT_BYTES + (source instanceof RawJson ? (source.bytes?.length ?? source.text.length) : 0);
  }
  const out = new JsonBytes(estimate);
  out.text(shell.slice(0, -EMPTY_HITS.length));
  out.ascii('"hits":[');
  // The JSON of each index name, written once.
  const names = new Map<string, string>();
  for (let i = 0; i < list.length; i++) writeHit(out, list[i], i > 0, names);
  out.ascii(']}}');
  return out.take();
}

const EMPTY_HITS = '"hits":[]}}';
/** About what a hit takes besides its `_source` (the answer's buffer grows if it takes more). */
const HIT_BYTES = 96;

/** The fields {@link writeHit} writes: a field added to {@link Hit} and not written here fails to compile. */
const WRITTEN = ['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_routing', '_source', 'fields', 'sort'] as const;
const everyHitField: Exclude<keyof Hit, (typeof WRITTEN)[number]> extends never ? true : never = true;
void everyHitField;

/** A hit, its fields in ES's order (those of {@link Hit}). */
function writeHit(out: JsonBytes, hit: Hit, comma: boolean, names: Map<string, string>): void {
  let index = names.get(hit._index);
  if (index === undefined) names.set(hit._index, (index = `{"_index":${JSON.stringify(hit._index)}`));
  if (comma) out.ascii(',');
  out.text(index);
  if (hit._id !== undefined) {
    out.ascii(',"_id":');
    out.string(hit._id);
  }
  if (hit._version !== undefined) {
    out.ascii(',"_version":');
    out.number(hit._version);
  }
  if (hit._seq_no !== undefined) {
    out.ascii(',"_seq_no":');
    out.number(hit._seq_no);
    out.ascii(',"_primary_term":');
    out.number(hit._primary_term!);
  }
  out.ascii(',"_score":');
  scalar(out, hit._score);
  if (hit._routing !== undefined) {
    out.ascii(',"_routing":');
    out.string(hit._routing);
  }
  if (hit._source instanceof RawJson) {
    out.ascii(',"_source":');
    const { bytes } = hit._source;
    if (bytes) out.raw(bytes);
    else out.text(hit._source.text);
  } else if (hit._source !== undefined) {
    out.ascii(',"_source":');
    out.text(JSON.stringify(hit._source));
  }
  if (hit.fields !== undefined) {
    out.ascii(',"fields":');
    out.text(JSON.stringify(hit.fields));
  }
  if (hit.sort !== undefined) {
    out.ascii(',"sort":[');
    const values = hit.sort;
    for (let i = 0; i < values.length; i++) {
      if (i > 0) out.ascii(',');
      scalar(out, values[i]);
    }
    out.ascii(']');
  }
  out.ascii('}');
}

/** A hit's id, score or sort value as `JSON.stringify` writes it (non-finite numbers as null). */
function scalar(out: JsonBytes, value: unknown): void {
  if (typeof value === 'number') out.number(value);
  else if (typeof value === 'string') out.string(value);
  else out.ascii(JSON.stringify(value) ?? 'null');
}
