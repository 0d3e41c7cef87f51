/**
 * Sealing written documents into a segment, a slice at a time (steps.ts): each loop over the
 * documents yields every few thousand of them, and large term dictionaries sort in chunks, so a
 * refresh after a large bulk load answers requests in between (sealing 27,000 cities in one go held
 * the event loop 150 ms).
 */
import { valuesOf, type IndexFamily } from '../mapping.ts';
import { SLICE, type Steps } from '../steps.ts';
import { sortedSteps } from '../terms.ts';
import { buildIdColumn } from './ids.ts';
import { buildTextIndex, type TextIndex } from './postings.ts';
import { packSeveral, Segment, type FieldColumn, type KeywordColumn, type NumberColumn, type SegmentDoc } from './segment.ts';

/** The documents, in the order given (seq order), as a new segment. */
export function* buildSegment(docs: readonly SegmentDoc[], typeOf: (field: string) => IndexFamily | undefined): Steps<Segment> {
  const n = docs.length;
  const fields = new Map<string, IndexFamily>();
  const looked = new Set<string>();
  const look = (field: string) => {
    if (looked.has(field)) return;
    looked.add(field);
    const family = typeOf(field);
    if (family !== undefined) fields.set(field, family);
  };
  for (let i = 0; i < n; i++) {
    const { values } = docs[i];
    for (let v = 0; v < values.length; v += 2) look(values[v] as string);
    if (i % SLICE === SLICE - 1) yield;
  }
  // A yield between fields too, so that even a small segment is built in a few steps.
  yield;
  const columns = new Map<string, FieldColumn>();
  const texts = new Map<string, TextIndex>();
  for (const [field, family] of fields) {
    if (family === 'text') texts.set(field, yield* buildTextIndex((i) => valuesOf(docs[i].values, field), n));
    else columns.set(field, family === 'number' ? yield* numberColumn(docs, field) : yield* keywordColumn(docs, field));
    yield;
  }
  const routings = new Map<number, string>();
  const seqs = new Float64Array(n), versions = new Float64Array(n);
  const ids = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const doc = docs[i];
    if (doc.routing !== undefined) routings.set(i, doc.routing);
    seqs[i] = doc.seq;
    versions[i] = doc.version;
    ids[i] = doc.id;
  }
  return new Segment(yield* buildIdColumn(ids), seqs, versions, columns, routings, texts);
}

function* numberColumn(docs: readonly SegmentDoc[], field: string): Steps<NumberColumn> {
  const n = docs.length;
  const min = new Float64Array(n).fill(NaN);
  const max = new Float64Array(n).fill(NaN);
  const several: [number, number[]][] = [];
  for (let i = 0; i < n; i++) {
    const { values } = docs[i];
    let lo = NaN, hi = NaN, count = 0;
    for (let v = 0; v < values.length; v += 2) {
      if (values[v] !== field) continue;
      const value = values[v + 1] as number;
      if (count++ === 0) lo = hi = value;
      else {
        if (value < lo) lo = value;
        if (value > hi) hi = value;
      }
    }
    if (count > 0) {
      min[i] = lo;
      max[i] = hi;
      if (lo !== hi) several.push([i, valuesOf(values, field) as number[]]);
    }
    if (i % SLICE === SLICE - 1) yield;
  }
  return several.length > 0 ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
}

/**
 * One pass numbers the distinct terms as they come (one lookup per value), the sort orders them,
 * and a second pass turns each document's first-seen numbers into ordinals.
 */
function* keywordColumn(docs: readonly SegmentDoc[], field: string): Steps<KeywordColumn> {
  const n = docs.length;
  const seen = new Map<string, number>();
  /** Per document, the first-seen number of its only value, -1 when missing, -2 when it has several. */
  const single = new Int32Array(n).fill(-1);
  const several = new Map<number, number[]>();
  const numberOf = (value: string) => {
    let number = seen.get(value);
    if (number === undefined) seen.set(value, (number = seen.size));
    return number;
  };
  for (let i = 0; i < n; i++) {
    const { values } = docs[i];
    let first = -1;
    for (let v = 0; v < values.length; v += 2) {
      if (values[v] !== field) continue;
      if (first === -1) first = v;
      else {
        single[i] = -2;
        break;
      }
    }
    if (single[i] === -2) several.set(i, (valuesOf(values, field) as string[]).map(numberOf));
    else if (first >= 0) single[i] = numberOf(values[first + 1] as string);
    if (i % SLICE === SLICE - 1) yield;
  }
  const terms = yield* sortedSteps([...seen.keys()]);
  const ordinalOf = new Int32Array(seen.size);
  for (let ordinal = 0; ordinal < terms.length; ordinal++) {
    ordinalOf[seen.get(terms[ordinal])!] = ordinal;
    if (ordinal % SLICE === SLICE - 1) yield;
  }
  const min = new Int32Array(n);
  /** Documents whose greatest value differs from their least, and that value. */
  const highs: [doc: number, ordinal: number][] = [];
  for (let i = 0; i < n; i++) {
    const first = single[i];
    if (first !== -2) min[i] = first < 0 ? -1 : ordinalOf[first];
    else {
      const ordinals = several.get(i)!;
      let lo = ordinalOf[ordinals[0]], hi = lo;
      for (let v = 1; v < ordinals.length; v++) {
        const ordinal = ordinalOf[ordinals[v]];
        if (ordinal < lo) lo = ordinal;
        if (ordinal > hi) hi = ordinal;
      }
      min[i] = lo;
      if (hi !== lo) highs.push([i, hi]);
    }
    if (i % SLICE === SLICE - 1) yield;
  }
  if (highs.length === 0) return { kind: 'keyword', terms, min };
  const max = min.slice();
  for (const [i, hi] of highs) max[i] = hi;
  const lists = highs.map(([i]): [number, number[]] => [i, [...new Set(several.get(i)!.map((number) => ordinalOf[number]))].sort((a, b) => a - b)]);
  return { kind: 'keyword', terms, min, max, several: packSeveral(lists, Int32Array) };
}
