/**
 * A segment: an immutable batch of documents with one column per sortable field and an inverted
 * index per text field (postings.ts). Entry i of every column is the segment's i-th document; documents keep the order they were written in, so a
 * shard's ordinal for a document is its segment's base plus i.
 */
import type { IdColumn } from './ids.ts';
import { narrowest, type WholeNumbers } from './narrow.ts';
import type { TextIndex } from './postings.ts';
import { lowerBound } from '../binary-search.ts';

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
    const i = lowerBound(several.docs, doc);
    if (several.docs[i] === doc) {
      for (let v = several.starts[i]; v < several.starts[i + 1]; v++) each(several.values[v]);
      return;
    }
  }
  const value = column.min[doc];
  if (column.kind === 'number' ? !Number.isNaN(value) : value >= 0) each(value);
}

/** Packs per-document value lists (documents ascending) as {@link Several}. */
export function packSeveral<T extends Float64Array | Int32Array>(lists: readonly [doc: number, values: ArrayLike<number>][], Type: { new (n: number): T }): Several<T> | undefined {
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
  /** Lazily counted documents with a value, by column, kept for the segment's life. */
  #valued = new Map<string, number>();

  /** The storage sequence number of each document: the key of its `_source`. Ascending. */
  readonly seqs: WholeNumbers;
  /** Each document's `_version`. */
  readonly versions: WholeNumbers;

  constructor(
    readonly ids: IdColumn,
    /** Kept in the narrowest array that holds them (narrow.ts), as are `versions`. */
    seqs: Float64Array,
    versions: Float64Array,
    readonly columns: Map<string, FieldColumn>,
    /**
     * The custom `_routing` of the documents written with one, by local ordinal (usually empty),
     * so that a hit carries its `_routing` without reading the stored document.
     */
    readonly routings: ReadonlyMap<number, string>,
    /** Text fields' inverted indexes, by field. */
    readonly texts: ReadonlyMap<string, TextIndex> = new Map(),
  ) {
    this.seqs = narrowest(seqs);
    this.versions = narrowest(versions);
  }

  get count(): number {
    return this.seqs.length;
  }

  /** The local ordinal of the document with this sequence number, or -1 (seqs ascend, so a binary search). */
  localOfSeq(seq: number): number {
    const seqs = this.seqs;
    const at = lowerBound(seqs, seq);
    return at < seqs.length && seqs[at] === seq ? at : -1;
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

  /** How many documents hold a value of the column's field (0 without the column): one pass the first time. */
  valuedCount(field: string): number {
    const column = this.columns.get(field);
    if (!column) return 0;
    let count = this.#valued.get(field);
    if (count === undefined) {
      count = 0;
      const { min, kind } = column;
      // A document's least value is in min: NaN (numbers) or ordinal -1 (keywords) where it has none.
      if (kind === 'number') for (let doc = 0; doc < min.length; doc++) count += +(min[doc] === min[doc]);
      else for (let doc = 0; doc < min.length; doc++) count += +(min[doc] >= 0);
      this.#valued.set(field, count);
    }
    return count;
  }

  #memo(key: string, build: () => Float64Array): Float64Array {
    let column = this.#sortColumns.get(key);
    if (!column) this.#sortColumns.set(key, (column = build()));
    return column;
  }
}
