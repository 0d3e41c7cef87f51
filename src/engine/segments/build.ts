/**
 * Sealing buffered documents into a segment, a slice at a time (steps.ts): each loop yields every
 * few thousand documents or values, and large term dictionaries sort in chunks, so a refresh after
 * a large bulk load answers requests in between (sealing 27,000 cities in one go held the event
 * loop 150 ms).
 *
 * The write buffer keeps each field's values as a column already (write-buffer.ts); a seal renumbers
 * the documents it takes (buffer positions, some since removed) as the segment's locals, and turns
 * each field's values into the segment's column for its family.
 */
import type { IndexFamily } from '../field-types.ts';
import { SLICE, type Steps } from '../steps.ts';
import { sortedSteps } from '../terms.ts';
import { idColumnOf, type IdColumn } from './ids.ts';
import { buildTextIndex, type TextIndex } from './postings.ts';
import { packSeveral, Segment, type FieldColumn, type KeywordColumn, type NumberColumn } from './segment.ts';
import type { BufferedDocs, BufferedField } from './write-buffer.ts';
import { lowerBound } from '../binary-search.ts';

/** A field's values in the segment: value i is document `docs[i]`'s (ascending), as the buffer held it (a number, or a code into the buffer's dictionary). */
interface LocalValues {
  docs: Uint32Array;
  values: Float64Array;
}

/** The documents, in the order given (seq order), as a new segment. */
export function* buildSegment(docs: BufferedDocs, typeOf: (field: string) => IndexFamily | undefined): Steps<Segment> {
  const { positions } = docs;
  const n = positions.length;
  const first = n > 0 ? positions[0] : 0;
  /** Each buffer position's local ordinal in the segment, from the first one taken; -1 for a document not taken. */
  const localOf = new Int32Array(n > 0 ? positions[n - 1] - first + 1 : 0).fill(-1);
  for (let i = 0; i < n; i++) localOf[positions[i] - first] = i;
  yield;
  const columns = new Map<string, FieldColumn>();
  const texts = new Map<string, TextIndex>();
  for (const [field, buffered] of docs.fields) {
    const family = typeOf(field);
    if (family === undefined) continue;
    const local = yield* localValues(buffered, first, localOf);
    // Only the fields some document of the segment has.
    if (local.docs.length === 0) continue;
    if (family === 'text') texts.set(field, yield* textIndex(local, buffered.terms!, n));
    else columns.set(field, family === 'number' ? yield* numberColumn(local, n) : yield* keywordColumn(local, buffered, n));
    yield;
  }
  const routings = new Map<number, string>();
  for (const [position, routing] of docs.routings) {
    const local = position >= first ? localOf[position - first] : -1;
    if (local >= 0) routings.set(local, routing);
  }
  const seqs = new Float64Array(n), versions = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    seqs[i] = docs.seqs[positions[i]];
    versions[i] = docs.versions[positions[i]];
  }
  return new Segment(yield* idColumn(docs), seqs, versions, columns, routings, texts);
}

/** The field's values of the documents taken, renumbered as locals. */
function* localValues(field: Readonly<BufferedField>, first: number, localOf: Int32Array): Steps<LocalValues> {
  const { positions, values, length } = field;
  // The first value at or after the first position taken (values follow positions).
  const lo = lowerBound(positions, first, 0, length);
  const docs = new Uint32Array(length - lo), kept = new Float64Array(length - lo);
  let count = 0;
  for (let at = lo; at < length; at++) {
    const offset = positions[at] - first;
    if (offset >= localOf.length) break;
    const local = localOf[offset];
    if (local < 0) continue;
    docs[count] = local;
    kept[count++] = values[at];
    if (count % SLICE === 0) yield;
  }
  return { docs: docs.subarray(0, count), values: kept.subarray(0, count) };
}

function* numberColumn({ docs, values }: LocalValues, n: number): Steps<NumberColumn> {
  const min = new Float64Array(n).fill(NaN);
  const max = new Float64Array(n).fill(NaN);
  const several: [number, Float64Array][] = [];
  let sinceYield = 0;
  for (let start = 0, end = 0; start < docs.length; start = end) {
    const doc = docs[start];
    let lo = values[start], hi = lo;
    for (end = start + 1; end < docs.length && docs[end] === doc; end++) {
      const value = values[end];
      if (value < lo) lo = value;
      if (value > hi) hi = value;
    }
    min[doc] = lo;
    max[doc] = hi;
    if (lo !== hi) several.push([doc, values.slice(start, end)]);
    if ((sinceYield += end - start) >= SLICE) {
      sinceYield = 0;
      yield;
    }
  }
  return several.length > 0 ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
}

/** The terms the segment's documents hold, sorted, and each document's ordinals: the least, the greatest, and all (distinct, ascending) where they differ. */
function* keywordColumn({ docs, values }: LocalValues, field: Readonly<BufferedField>, n: number): Steps<KeywordColumn> {
  const dictionary = field.terms!;
  const used = new Uint8Array(dictionary.length);
  for (let i = 0; i < values.length; i++) used[values[i]] = 1;
  const distinct: string[] = [];
  for (let code = 0; code < used.length; code++) if (used[code] === 1) distinct.push(dictionary[code]);
  yield;
  const terms = yield* sortedSteps(distinct);
  const ordinalOf = new Int32Array(dictionary.length);
  for (let ordinal = 0; ordinal < terms.length; ordinal++) {
    ordinalOf[field.codes!.get(terms[ordinal])!] = ordinal;
    if (ordinal % SLICE === SLICE - 1) yield;
  }
  const min = new Int32Array(n).fill(-1);
  /** Documents whose greatest value differs from their least, and all their ordinals. */
  const highs: [doc: number, hi: number, ordinals: number[]][] = [];
  let sinceYield = 0;
  for (let start = 0, end = 0; start < docs.length; start = end) {
    const doc = docs[start];
    let lo = ordinalOf[values[start]], hi = lo;
    for (end = start + 1; end < docs.length && docs[end] === doc; end++) {
      const ordinal = ordinalOf[values[end]];
      if (ordinal < lo) lo = ordinal;
      if (ordinal > hi) hi = ordinal;
    }
    min[doc] = lo;
    if (hi !== lo) {
      const ordinals: number[] = [];
      for (let v = start; v < end; v++) ordinals.push(ordinalOf[values[v]]);
      highs.push([doc, hi, [...new Set(ordinals)].sort((a, b) => a - b)]);
    }
    if ((sinceYield += end - start) >= SLICE) {
      sinceYield = 0;
      yield;
    }
  }
  if (highs.length === 0) return { kind: 'keyword', terms, min };
  const max = min.slice();
  for (const [doc, hi] of highs) max[doc] = hi;
  return { kind: 'keyword', terms, min, max, several: packSeveral(highs.map(([doc, , ordinals]) => [doc, ordinals]), Int32Array) };
}

function textIndex({ docs, values }: LocalValues, dictionary: readonly string[], n: number): Steps<TextIndex> {
  /** Document i's values are `values[starts[i]]` up to `values[starts[i + 1]]`. */
  const starts = new Uint32Array(n + 1);
  for (let i = 0; i < docs.length; i++) starts[docs[i] + 1]++;
  for (let doc = 0; doc < n; doc++) starts[doc + 1] += starts[doc];
  return buildTextIndex((doc) => {
    if (starts[doc] === starts[doc + 1]) return undefined;
    const strings: string[] = [];
    for (let v = starts[doc]; v < starts[doc + 1]; v++) strings.push(dictionary[values[v]]);
    return strings;
  }, n);
}

/** The documents' ids as a column: their code units copied out of the buffer, a run of consecutive positions at a time. */
function* idColumn({ positions, idChars, idStarts, hashes }: BufferedDocs): Steps<IdColumn> {
  const n = positions.length;
  const offsets = new Uint32Array(n + 1), idHashes = new Uint32Array(n);
  let length = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = length;
    length += idStarts[positions[i] + 1] - idStarts[positions[i]];
    idHashes[i] = hashes[positions[i]];
  }
  offsets[n] = length;
  const chars = new Uint16Array(length);
  for (let i = 0; i < n; ) {
    let last = i;
    while (last + 1 < n && positions[last + 1] === positions[last] + 1) last++;
    chars.set(idChars.subarray(idStarts[positions[i]], idStarts[positions[last] + 1]), offsets[i]);
    i = last + 1;
  }
  yield;
  const pieces: string[] = [];
  for (let at = 0; at < length; at += TEXT_PIECE) {
    pieces.push(String.fromCharCode.apply(null, chars.subarray(at, Math.min(length, at + TEXT_PIECE)) as unknown as number[]));
    if ((at / TEXT_PIECE) % 16 === 15) yield;
  }
  return yield* idColumnOf(pieces.join(''), offsets, idHashes);
}

/** Code units made into a string per call (an argument list: kept well below the engine's limit). */
const TEXT_PIECE = 8192;
