/**
 * A search response's body as UTF-8 bytes, its hits written one by one so that each stored `_source`
 * goes in as the bytes it was stored as (or its text, for one made in memory): never decoded, parsed
 * or serialized again. Everything else is written
 * as `JSON.stringify` writes it, so the body is what serializing the response would give.
 *
 * Written as bytes rather than joined into one string: a page of 10,000 hits joined into a string of
 * 60,000 pieces was flattened and scanned once more for its byte length, then encoded again on the
 * socket, which took a fifth of the server's time for such a page.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';
import { JsonBytes, type Slab } from './json-bytes.ts';

/** The body's bytes, from `slab` when given (see json-bytes.ts). */
export function searchResponseBody(body: SearchResponse, slab?: Slab): Buffer {
  const list = body.hits.hits;
  let estimate = HEAD_BYTES;
  for (let i = 0; i < list.length; i++) {
    const source = list[i]._source;
    estimate += HIT_BYTES + (source instanceof RawJson ? (source.bytes?.length ?? source.text.length) : 0);
  }
  const out = new JsonBytes(estimate, slab);
  if (!writePlainHead(out, body)) {
    // Any other shape (a cursor's id first, shard failures): everything but the hits as JSON.stringify writes it.
    // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
    const shell = JSON.stringify({ ...body, hits: { ...body.hits, hits: [] } });
    if (!shell.endsWith(EMPTY_HITS)) {
      out.take(); // its region back to the slab
      return Buffer.from(JSON.stringify(body));
    }
    out.text(shell.slice(0, -EMPTY_HITS.length));
    out.ascii('"hits":[');
  }
  // Where each index's hits' beginning is in the answer (see writeHit).
  const names = new Map<string, { start: number; end: number }>();
  for (let i = 0; i < list.length; i++) writeHit(out, list[i], i > 0, names);
  out.ascii(']}}');
  return out.take();
}

const EMPTY_HITS = '"hits":[]}}';
/** About what a hit takes besides its `_source`, and the rest of the response (the answer's buffer grows if they take more). */
const HIT_BYTES = 96;
const HEAD_BYTES = 256;

/**
 * The usual response's fields up to its hits array (`took`, `timed_out`, `_shards` without failures,
 * `hits` with or without `total`), as `JSON.stringify` writes them: false, writing nothing, for any
 * other shape.
 */
function writePlainHead(out: JsonBytes, body: SearchResponse): boolean {
  if (!hasKeys(body, PLAIN_KEYS) || !hasKeys(body._shards, SHARDS_KEYS)) return false;
  const { hits } = body;
  const { total } = hits;
  if (!hasKeys(hits, total === undefined ? HITS_KEYS_UNTRACKED : HITS_KEYS)) return false;
  if (typeof total === 'object' && !hasKeys(total, TOTAL_KEYS)) return false;
  const shards = body._shards;
  out.ascii('{"took":');
  out.number(body.took);
  out.ascii(body.timed_out ? ',"timed_out":true,"_shards":{"total":' : ',"timed_out":false,"_shards":{"total":');
  out.number(shards.total);
  out.ascii(',"successful":');
  out.number(shards.successful);
  out.ascii(',"skipped":');
  out.number(shards.skipped);
  out.ascii(',"failed":');
  out.number(shards.failed);
  out.ascii('},"hits":{');
  if (typeof total === 'object') {
    out.ascii('"total":{"value":');
    out.number(total.value);
    out.ascii(total.relation === 'eq' ? ',"relation":"eq"},' : ',"relation":"gte"},');
  } else if (total !== undefined) {
    out.ascii('"total":');
    out.number(total);
    out.ascii(',');
  }
  out.ascii('"max_score":');
  scalar(out, hits.max_score);
  out.ascii(',"hits":[');
  return true;
}

const PLAIN_KEYS = ['took', 'timed_out', '_shards', 'hits'];
const SHARDS_KEYS = ['total', 'successful', 'skipped', 'failed'];
const HITS_KEYS = ['total', 'max_score', 'hits'];
const HITS_KEYS_UNTRACKED = ['max_score', 'hits'];
const TOTAL_KEYS = ['value', 'relation'];

/** Whether the object's own keys are exactly these, in this order. */
function hasKeys(object: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in object) if (key !== keys[i++]) return false;
  return i === keys.length;
}

/** The fields {@link writeHit} writes: a field added to {@link Hit} and not written here fails to compile. */
const WRITTEN = ['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_routing', '_source', 'fields', 'sort'] as const;
const everyHitField: Exclude<keyof Hit, (typeof WRITTEN)[number]> extends never ? true : never = true;
void everyHitField;

/** A hit, its fields in ES's order (those of {@link Hit}). */
function writeHit(out: JsonBytes, hit: Hit, comma: boolean, names: Map<string, { start: number; end: number }>): void {
  if (comma) out.ascii(',');
  // What every hit of an index begins with (`{"_index":…,"_id":`), written once and copied after.
  const key = hit._id === undefined ? `-${hit._index}` : hit._index;
  const written = names.get(key);
  if (written) out.again(written.start, written.end);
  else {
    const start = out.length;
    out.text(`{"_index":${JSON.stringify(hit._index)}${hit._id === undefined ? '' : ',"_id":'}`);
    names.set(key, { start, end: out.length });
  }
  if (hit._id !== undefined) out.string(hit._id);
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
  if (hit._score === null) out.ascii(',"_score":null');
  else {
    out.ascii(',"_score":');
    scalar(out, hit._score);
  }
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
    out.ascii(']}');
  } else out.ascii('}');
}

/** A hit's id, score or sort value as `JSON.stringify` writes it (non-finite numbers as null). */
function scalar(out: JsonBytes, value: unknown): void {
  if (typeof value === 'number') out.number(value);
  else if (value === null) out.ascii('null');
  else if (typeof value === 'string') out.string(value);
  else out.ascii(JSON.stringify(value) ?? 'null');
}
