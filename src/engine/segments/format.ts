/**
 * The segment format: a sealed {@link Segment} as bytes, so a restart loads segments instead of
 * rebuilding them from every stored document.
 *
 * Layout (little-endian):
 * - header, 16 bytes: the magic `DPSG`, the format number (u32), the document count (u32), and the
 *   CRC-32 of everything after the header;
 * - then chunks, each a byte length (u32), 4 zero bytes and the payload, padded with zeros to a
 *   multiple of 8 bytes. In order: `seqs` (f64 per document), `versions` (f64), the ids' text, their
 *   offsets (u32, count + 1, in UTF-16 code units), the id hashes and their order (u32 each, see
 *   ids.ts), a JSON descriptor `{ routings: [[local, routing], …], columns: [{ field, kind, max }],
 *   texts: [{ field, postings, positions, docCount, sumTotalTermFreq }] }`, then per column: numbers
 *   `min` (f64) and, if `max`, `max` (f64); keywords the terms' text, their offsets (u32, terms + 1),
 *   `min` (i32, -1 for missing) and, if `max`, `max` (i32); either kind, if `several`, the documents
 *   holding several values (u32), their starts (u32, documents + 1) and the values (f64, or i32
 *   ordinals); then per text field (postings.ts): the
 *   terms' text and offsets as for keywords, `starts` (u32, terms + 1), `docs` and `freqs` (u32 per
 *   posting), `positionStarts` (u32, postings + 1), `positions` (u32) and `lengths` (i32 per document).
 * - Text (ids, terms) is one chunk whose first byte says how the rest is encoded: 1 for Latin-1 (every
 *   code unit below 256, one byte each), 2 for UTF-16LE; both give back the exact code units, lone
 *   surrogates included, so the UTF-16 offsets hold.
 *
 * A reader that meets another format number or a bad checksum throws {@link SegmentFormatError}; the
 * caller rebuilds the shard from its stored documents.
 */
import { crc32 } from 'node:zlib';
import { IdColumn } from './ids.ts';
import { widened } from './narrow.ts';
import type { TextIndex } from './postings.ts';
import { Segment, type FieldColumn } from './segment.ts';

/** 2: text fields' postings. */
export const SEGMENT_FORMAT = 2;
const MAGIC = 0x47535044; // 'DPSG' read as a little-endian u32
const HEADER = 16;

export class SegmentFormatError extends Error {}

/** A segment (or commit point) written in a format this node does not read. */
export function unknownFormat(format: number): SegmentFormatError {
  return new SegmentFormatError(`segment format [${format}] is not one this node reads (it reads [${SEGMENT_FORMAT}])`);
}

interface Descriptor {
  routings: [local: number, routing: string][];
  /** `several`: documents holding several values, and those values in all (absent: none). */
  columns: { field: string; kind: FieldColumn['kind']; max: boolean; several?: [docs: number, values: number] }[];
  texts: { field: string; postings: number; positions: number; docCount: number; sumTotalTermFreq: number }[];
}

export function encodeSegment(segment: Segment): Buffer {
  // Chunks are gathered as views and text, sized, then written once into one buffer: no
  // intermediate copy of a text or of the whole (fresh large buffers cost page faults here).
  const chunks: (Uint8Array | TextChunk)[] = [];
  const add = (view: ArrayBufferView) => chunks.push(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  const { ids } = segment;
  // Stored as f64 whatever width memory keeps them in (narrow.ts).
  add(widened(segment.seqs));
  add(widened(segment.versions));
  chunks.push(textChunk(ids.text));
  add(ids.offsets);
  add(ids.hashes);
  add(ids.order);
  const descriptor: Descriptor = { routings: [...segment.routings], columns: [], texts: [] };
  for (const [field, column] of segment.columns) {
    const { several } = column;
    descriptor.columns.push({ field, kind: column.kind, max: column.max !== undefined, ...(several && { several: [several.docs.length, several.values.length] }) });
  }
  for (const [field, text] of segment.texts) {
    descriptor.texts.push({ field, postings: text.docs.length, positions: text.positions.length, docCount: text.docCount, sumTotalTermFreq: text.sumTotalTermFreq });
  }
  add(Buffer.from(JSON.stringify(descriptor)));
  const addTerms = (terms: readonly string[]) => {
    const offsets = new Uint32Array(terms.length + 1);
    terms.forEach((term, i) => (offsets[i + 1] = offsets[i] + term.length));
    chunks.push(textChunk(terms.join('')));
    add(offsets);
  };
  for (const column of segment.columns.values()) {
    if (column.kind === 'keyword') addTerms(column.terms);
    add(column.min);
    if (column.max) add(column.max);
    if (column.several) for (const array of [column.several.docs, column.several.starts, column.several.values]) add(array);
  }
  for (const text of segment.texts.values()) {
    addTerms(text.terms);
    for (const array of [text.starts, text.docs, text.freqs, text.positionStarts, text.positions, text.lengths]) add(array);
  }
  const lengths = chunks.map((chunk) => (chunk instanceof Uint8Array ? chunk.byteLength : 1 + (chunk.latin1 ? 1 : 2) * chunk.text.length));
  let size = HEADER;
  for (const length of lengths) size += 8 + padded(length);
  const out = Buffer.allocUnsafe(size);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(SEGMENT_FORMAT, 4);
  out.writeUInt32LE(segment.count, 8);
  let at = HEADER;
  chunks.forEach((chunk, i) => {
    const length = lengths[i];
    out.writeUInt32LE(length, at);
    out.writeUInt32LE(0, at + 4);
    if (chunk instanceof Uint8Array) out.set(chunk, at + 8);
    else writeText(out, chunk, at + 8);
    out.fill(0, at + 8 + length, at + 8 + padded(length));
    at += 8 + padded(length);
  });
  out.writeUInt32LE(crc32(out.subarray(HEADER)), 12);
  return out;
}

export function decodeSegment(bytes: Uint8Array): Segment {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.byteLength < HEADER || data.readUInt32LE(0) !== MAGIC) throw new SegmentFormatError('not a deeppage segment');
  const format = data.readUInt32LE(4);
  if (format !== SEGMENT_FORMAT) throw unknownFormat(format);
  if (crc32(data.subarray(HEADER)) !== data.readUInt32LE(12)) throw new SegmentFormatError('segment checksum mismatch');
  const count = data.readUInt32LE(8);
  let at = HEADER;
  const next = (): Buffer => {
    if (at + 8 > data.byteLength) throw new SegmentFormatError('segment ends early');
    const length = data.readUInt32LE(at);
    const chunk = data.subarray(at + 8, at + 8 + length);
    if (chunk.byteLength !== length) throw new SegmentFormatError('segment ends early');
    at += 8 + padded(length);
    return chunk;
  };
  // Each array is copied out, so it is aligned and the segment does not hold the whole record.
  const f64 = (n: number) => copy(next(), n, Float64Array);
  const u32 = (n: number) => copy(next(), n, Uint32Array);
  const i32 = (n: number) => copy(next(), n, Int32Array);
  const seqs = f64(count);
  const versions = f64(count);
  const ids = new IdColumn(decodeText(next()), u32(count + 1), u32(count), u32(count));
  const descriptor = JSON.parse(next().toString('utf8')) as Descriptor;
  const terms = () => {
    const text = decodeText(next());
    const chunk = next();
    const offsets = copy(chunk, chunk.byteLength / 4, Uint32Array);
    return Array.from({ length: offsets.length - 1 }, (_, i) => text.slice(offsets[i], offsets[i + 1]));
  };
  const columns = new Map<string, FieldColumn>();
  for (const { field, kind, max, several } of descriptor.columns) {
    if (kind === 'number') {
      const column: FieldColumn = { kind, min: f64(count), max: max ? f64(count) : undefined };
      if (several) column.several = { docs: u32(several[0]), starts: u32(several[0] + 1), values: f64(several[1]) };
      columns.set(field, column);
    } else {
      const column: FieldColumn = { kind, terms: terms(), min: i32(count), max: max ? i32(count) : undefined };
      if (several) column.several = { docs: u32(several[0]), starts: u32(several[0] + 1), values: i32(several[1]) };
      columns.set(field, column);
    }
  }
  const texts = new Map<string, TextIndex>();
  for (const { field, postings, positions, docCount, sumTotalTermFreq } of descriptor.texts) {
    const words = terms();
    texts.set(field, {
      kind: 'text',
      terms: words,
      starts: u32(words.length + 1),
      docs: u32(postings),
      freqs: u32(postings),
      positionStarts: u32(postings + 1),
      positions: u32(positions),
      lengths: i32(count),
      docCount,
      sumTotalTermFreq,
    });
  }
  return new Segment(ids, seqs, versions, columns, new Map(descriptor.routings), texts);
}

const padded = (n: number) => (n + 7) & ~7;

function copy<T extends Float64Array | Uint32Array | Int32Array>(chunk: Buffer, n: number, Type: { new (n: number): T; BYTES_PER_ELEMENT: number }): T {
  if (chunk.byteLength !== n * Type.BYTES_PER_ELEMENT) throw new SegmentFormatError(`segment chunk of ${chunk.byteLength} bytes where ${n} values were expected`);
  const out = new Type(n);
  new Uint8Array(out.buffer).set(chunk);
  return out;
}

/** A code unit above Latin-1: the text needs UTF-16. */
const NOT_LATIN1 = /[^\u0000-\u00ff]/;

/** A text to write as a chunk: the encoding byte, then one byte per code unit (Latin-1) or two (UTF-16LE). */
interface TextChunk {
  text: string;
  latin1: boolean;
}

function textChunk(text: string): TextChunk {
  return { text, latin1: !NOT_LATIN1.test(text) };
}

/** Writes a text chunk at `at`. */
function writeText(out: Buffer, { text, latin1 }: TextChunk, at: number): void {
  out[at] = latin1 ? 1 : 2;
  out.write(text, at + 1, latin1 ? 'latin1' : 'utf16le');
}

function decodeText(chunk: Buffer): string {
  if (chunk[0] === 1) return chunk.toString('latin1', 1);
  if (chunk[0] === 2) return chunk.toString('utf16le', 1);
  throw new SegmentFormatError(`unknown text encoding [${chunk[0]}]`);
}
