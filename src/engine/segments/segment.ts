/**
 * A segment: an immutable batch of documents with one column per sortable field and an inverted
 * index per text field (postings.ts). Entry i of every column is the segment's i-th document; documents keep the order they were written in, so a
 * shard's ordinal for a document is its segment's base plus i.
 */
import type { DocValues, IndexFamily } from '../mapping.ts';
import { globalOrdinals, sortedDistinct } from '../terms.ts';
import { IdColumn } from './ids.ts';
import { buildTextIndex, concatTextIndexes, type TextIndex } from './postings.ts';

/** A numeric column (dates and booleans too): f64 per document, NaN where the field is missing. */
export interface NumberColumn {
  kind: 'number';
  min: Float64Array;
  /** Only when some document holds several values; otherwise `min` serves both modes. */
  max?: Float64Array;
  /** Every value of the documents holding several (queries match any of them). */
  several?: Several<Float64Array>;
}

/** A keyword column: the segment's sorted terms and, per document, the ordinal of its term (-1: missing). */
export interface KeywordColumn {
  kind: 'keyword';
  terms: string[];
  min: Int32Array;
  max?: Int32Array;
  /** Every distinct ordinal of the documents holding several. */
  several?: Several<Int32Array>;
}

/** The values of the documents that hold more than one: document `docs[i]` has `values[starts[i] … starts[i + 1])`. */
export interface Several<T extends Float64Array | Int32Array> {
  docs: Uint32Array;
  starts: Uint32Array;
  values: T;
}

/** Calls `each` with every value of document `doc` in the column (none when it is missing). */
export function forEachValue(column: FieldColumn, doc: number, each: (value: number) => void): void {
  const several = column.several;
  // A missing number is NaN in both `min` and `max`, which differ by `!==`: the lookup decides.
  if (several !== undefined && column.max !== undefined && column.max[doc] !== column.min[doc]) {
    const i = lowerBoundU32(several.docs, doc);
    if (several.docs[i] === doc) {
      for (let v = several.starts[i]; v < several.starts[i + 1]; v++) each(several.values[v]);
      return;
    }
  }
  const value = column.min[doc];
  if (column.kind === 'number' ? !Number.isNaN(value) : value >= 0) each(value);
}

function lowerBoundU32(values: Uint32Array, value: number): number {
  let lo = 0, hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Packs per-document value lists (documents ascending) as {@link Several}. */
function packSeveral<T extends Float64Array | Int32Array>(lists: readonly [doc: number, values: readonly number[]][], Type: { new (n: number): T }): Several<T> | undefined {
  if (lists.length === 0) return undefined;
  const docs = new Uint32Array(lists.length), starts = new Uint32Array(lists.length + 1);
  let total = 0;
  lists.forEach(([doc, values], i) => {
    docs[i] = doc;
    starts[i + 1] = total += values.length;
  });
  const values = new Type(total);
  lists.forEach(([, list], i) => values.set(list, starts[i]));
  return { docs, starts, values };
}

export type FieldColumn = NumberColumn | KeywordColumn;

/** What a segment keeps of each document: its id, version, sort values and where its source is stored. */
export interface SegmentDoc {
  id: string;
  seq: number;
  version: number;
  values: DocValues;
  /** A custom `_routing`, if the document was written with one. */
  routing?: string;
}

/** A keyword field's counts over a segment (deleted documents included, as Lucene's statistics count them). */
export interface KeywordCounts {
  /** Documents with a value. */
  docCount: number;
  /** Values over all documents. */
  valueCount: number;
  /** `docFreq[ordinal]`: documents holding the term. */
  docFreq: Uint32Array;
}

export class Segment {
  /** Lazily built sort columns (f64 views of keyword ordinals, positions), kept for the segment's life. */
  #sortColumns = new Map<string, Float64Array>();
  /** Lazily counted keyword statistics, by field, kept for the segment's life. */
  #keywordCounts = new Map<string, KeywordCounts>();

  constructor(
    readonly ids: IdColumn,
    /** The storage sequence number of each document: the key of its `_source`. Ascending. */
    readonly seqs: Float64Array,
    /** Each document's `_version`. */
    readonly versions: Float64Array,
    readonly columns: Map<string, FieldColumn>,
    /**
     * The custom `_routing` of the documents written with one, by local ordinal (usually empty),
     * so that a hit carries its `_routing` without reading the stored document.
     */
    readonly routings: ReadonlyMap<number, string>,
    /** Text fields' inverted indexes, by field. */
    readonly texts: ReadonlyMap<string, TextIndex> = new Map(),
  ) {}

  get count(): number {
    return this.seqs.length;
  }

  /** The local ordinal of the document with this sequence number, or -1 (seqs ascend, so a binary search). */
  localOfSeq(seq: number): number {
    const seqs = this.seqs;
    let lo = 0, hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seqs[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo < seqs.length && seqs[lo] === seq ? lo : -1;
  }

  /** Positions 0..count-1 as f64: the `_doc` sort column within the segment. */
  positions(): Float64Array {
    return this.#memo('#positions', () => {
      const positions = new Float64Array(this.count);
      for (let i = 0; i < positions.length; i++) positions[i] = i;
      return positions;
    });
  }

  /** A keyword field's segment-local ordinals as f64 (NaN where missing), for the sort kernels. */
  keywordOrdinals(field: string, mode: 'min' | 'max'): Float64Array {
    return this.#memo(`${mode}:${field}`, () => {
      const column = this.columns.get(field);
      if (column?.kind !== 'keyword') return new Float64Array(this.count).fill(NaN);
      const ords = mode === 'max' && column.max ? column.max : column.min;
      // A plain loop: `Float64Array.from` with a mapping function took 200 ms over 1M documents.
      const keys = new Float64Array(ords.length);
      for (let i = 0; i < ords.length; i++) keys[i] = ords[i] < 0 ? NaN : ords[i];
      return keys;
    });
  }

  /**
   * A keyword field's counts, one pass over the segment the first time: a term query's statistics
   * then cost a lookup per segment, where counting them per query took up to 78 ms over the cities.
   */
  keywordCounts(field: string): KeywordCounts | undefined {
    const column = this.columns.get(field);
    if (column?.kind !== 'keyword') return undefined;
    let counts = this.#keywordCounts.get(field);
    if (!counts) {
      const docFreq = new Uint32Array(column.terms.length);
      let docCount = 0, valueCount = 0;
      for (let doc = 0; doc < this.count; doc++) {
        const before = valueCount;
        // A document's values are distinct ordinals.
        forEachValue(column, doc, (ord) => {
          valueCount++;
          docFreq[ord]++;
        });
        if (valueCount > before) docCount++;
      }
      this.#keywordCounts.set(field, (counts = { docCount, valueCount, docFreq }));
    }
    return counts;
  }

  #memo(key: string, build: () => Float64Array): Float64Array {
    let column = this.#sortColumns.get(key);
    if (!column) this.#sortColumns.set(key, (column = build()));
    return column;
  }

  static build(docs: readonly SegmentDoc[], typeOf: (field: string) => IndexFamily | undefined): Segment {
    const fields = new Map<string, IndexFamily>();
    for (const doc of docs) {
      for (const field of doc.values.keys()) {
        if (fields.has(field)) continue;
        const family = typeOf(field);
        if (family !== undefined) fields.set(field, family);
      }
    }
    const columns = new Map<string, FieldColumn>();
    const texts = new Map<string, TextIndex>();
    for (const [field, family] of fields) {
      if (family === 'text') texts.set(field, buildTextIndex((i) => docs[i].values.get(field), docs.length));
      else columns.set(field, family === 'number' ? numberColumn(docs, field) : keywordColumn(docs, field));
    }
    const routings = new Map<number, string>();
    const seqs = new Float64Array(docs.length), versions = new Float64Array(docs.length);
    docs.forEach((d, i) => {
      if (d.routing !== undefined) routings.set(i, d.routing);
      seqs[i] = d.seq;
      versions[i] = d.version;
    });
    return new Segment(
      IdColumn.build(docs.map((d) => d.id)),
      seqs,
      versions,
      columns,
      routings,
      texts,
    );
  }

  /** The documents at `locals`, in that order, as one new segment (how merges drop deleted documents). */
  static concat(parts: readonly { segment: Segment; locals: ArrayLike<number> }[]): Segment {
    const ids: string[] = [];
    const seqs: number[] = [];
    const versions: number[] = [];
    const routings = new Map<number, string>();
    const fields = new Map<string, FieldColumn['kind']>();
    for (const { segment, locals } of parts) {
      for (let i = 0; i < locals.length; i++) {
        const routing = segment.routings.size > 0 ? segment.routings.get(locals[i]) : undefined;
        if (routing !== undefined) routings.set(ids.length, routing);
        ids.push(segment.ids.id(locals[i]));
        seqs.push(segment.seqs[locals[i]]);
        versions.push(segment.versions[locals[i]]);
      }
      for (const [field, column] of segment.columns) fields.set(field, column.kind);
    }
    const columns = new Map<string, FieldColumn>();
    for (const [field, kind] of fields) {
      columns.set(field, kind === 'number' ? concatNumbers(parts, field, ids.length) : concatKeywords(parts, field, ids.length));
    }
    const texts = new Map<string, TextIndex>();
    for (const field of new Set(parts.flatMap(({ segment }) => [...segment.texts.keys()]))) {
      texts.set(field, concatTextIndexes(parts.map(({ segment, locals }) => ({ index: segment.texts.get(field), locals })), ids.length));
    }
    return new Segment(IdColumn.build(ids), Float64Array.from(seqs), Float64Array.from(versions), columns, routings, texts);
  }
}

function numberColumn(docs: readonly SegmentDoc[], field: string): NumberColumn {
  const min = new Float64Array(docs.length).fill(NaN);
  const max = new Float64Array(docs.length).fill(NaN);
  const several: [number, number[]][] = [];
  docs.forEach((doc, i) => {
    const values = doc.values.get(field) as number[] | undefined;
    if (!values) return;
    [min[i], max[i]] = extremes(values);
    if (min[i] !== max[i]) several.push([i, values]);
  });
  return several.length > 0 ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
}

/**
 * One pass numbers the distinct terms as they come (one lookup per value), the sort orders them,
 * and a second pass turns each document's first-seen numbers into ordinals.
 */
function keywordColumn(docs: readonly SegmentDoc[], field: string): KeywordColumn {
  const n = docs.length;
  const seen = new Map<string, number>();
  /** Per document, the first-seen number of its only value, -1 when missing, -2 when it has several. */
  const single = new Int32Array(n).fill(-1);
  const several = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const values = docs[i].values.get(field) as string[] | undefined;
    if (!values) continue;
    for (const value of values) if (!seen.has(value)) seen.set(value, seen.size);
    if (values.length === 1) single[i] = seen.get(values[0])!;
    else {
      single[i] = -2;
      several.set(i, values.map((value) => seen.get(value)!));
    }
  }
  const terms = sortedDistinct(seen.keys());
  const ordinalOf = new Int32Array(seen.size);
  terms.forEach((term, ordinal) => (ordinalOf[seen.get(term)!] = ordinal));
  const min = new Int32Array(n);
  /** Documents whose greatest value differs from their least, and that value. */
  const highs: [doc: number, ordinal: number][] = [];
  for (let i = 0; i < n; i++) {
    const first = single[i];
    if (first !== -2) {
      min[i] = first < 0 ? -1 : ordinalOf[first];
      continue;
    }
    const [lo, hi] = extremes(several.get(i)!.map((number) => ordinalOf[number]));
    min[i] = lo;
    if (hi !== lo) highs.push([i, hi]);
  }
  if (highs.length === 0) return { kind: 'keyword', terms, min };
  const max = min.slice();
  for (const [i, hi] of highs) max[i] = hi;
  const lists = highs.map(([i]): [number, number[]] => [i, [...new Set(several.get(i)!.map((number) => ordinalOf[number]))].sort((a, b) => a - b)]);
  return { kind: 'keyword', terms, min, max, several: packSeveral(lists, Int32Array) };
}

/** Least and greatest of a non-empty list (a loop: spreading a long list into Math.min overflows the stack). */
function extremes(values: readonly number[]): [number, number] {
  let lo = values[0], hi = values[0];
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

function concatNumbers(parts: readonly { segment: Segment; locals: ArrayLike<number> }[], field: string, n: number): NumberColumn {
  const min = new Float64Array(n).fill(NaN);
  const anyMax = parts.some((p) => (p.segment.columns.get(field) as NumberColumn | undefined)?.max);
  const max = anyMax ? new Float64Array(n).fill(NaN) : undefined;
  const several: [number, number[]][] = [];
  let at = 0;
  for (const { segment, locals } of parts) {
    const column = segment.columns.get(field) as NumberColumn | undefined;
    for (let i = 0; i < locals.length; i++, at++) {
      if (!column) continue;
      min[at] = column.min[locals[i]];
      if (max) max[at] = (column.max ?? column.min)[locals[i]];
      if (max && max[at] !== min[at]) {
        const values: number[] = [];
        forEachValue(column, locals[i], (v) => values.push(v));
        several.push([at, values]);
      }
    }
  }
  return max ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
}

/**
 * The parts' keyword columns as one: the terms the kept documents use, merged from the parts'
 * sorted dictionaries (no sort, no string hashing per document), and each document's ordinals
 * remapped through one integer table per part.
 */
function concatKeywords(parts: readonly { segment: Segment; locals: ArrayLike<number> }[], field: string, n: number): KeywordColumn {
  const columns = parts.map((p) => p.segment.columns.get(field) as KeywordColumn | undefined);
  // Which of each part's terms a kept document uses.
  const used = columns.map((column) => new Uint8Array(column?.terms.length ?? 0));
  parts.forEach(({ locals }, p) => {
    const column = columns[p];
    if (!column) return;
    const marks = used[p], max = column.max ?? column.min;
    for (let i = 0; i < locals.length; i++) {
      const lo = column.min[locals[i]], hi = max[locals[i]];
      if (lo >= 0) marks[lo] = 1;
      if (hi >= 0) marks[hi] = 1;
    }
  });
  const kept = columns.map((column, p) => (column ? column.terms.filter((_, ord) => used[p][ord] === 1) : []));
  const { terms, maps } = globalOrdinals(kept);
  // Old ordinal → new ordinal, per part (-1 for terms no kept document uses).
  const remaps = columns.map((column, p) => {
    const remap = new Int32Array(column?.terms.length ?? 0).fill(-1);
    for (let ord = 0, k = 0; ord < remap.length; ord++) if (used[p][ord] === 1) remap[ord] = maps[p][k++];
    return remap;
  });
  const min = new Int32Array(n).fill(-1);
  const max = columns.some((c) => c?.max) ? new Int32Array(n).fill(-1) : undefined;
  const several: [number, number[]][] = [];
  let at = 0;
  parts.forEach(({ locals }, p) => {
    const column = columns[p];
    if (!column) {
      at += locals.length;
      return;
    }
    const remap = remaps[p], hiOrds = column.max ?? column.min;
    for (let i = 0; i < locals.length; i++, at++) {
      const lo = column.min[locals[i]], hi = hiOrds[locals[i]];
      if (lo >= 0) min[at] = remap[lo];
      if (max && hi >= 0) max[at] = remap[hi];
      if (hi !== lo) {
        // Every value a kept document holds is among the kept terms, so each remaps.
        const ords: number[] = [];
        forEachValue(column, locals[i], (ord) => ords.push(remap[ord]));
        several.push([at, ords]);
      }
    }
  });
  return max ? { kind: 'keyword', terms, min, max, several: packSeveral(several, Int32Array) } : { kind: 'keyword', terms, min };
}
