/**
 * Merging segments: the live documents of several, in order, as one new segment, a slice at a time
 * (steps.ts). Keyword dictionaries and id tables merge already sorted (no sort, no string hashing
 * per document), postings are renumbered, and every loop yields every few thousand documents or terms.
 */
import { SLICE, type Steps } from '../steps.ts';
import { MERGE_STEP, ordinalsMerge, subsetSteps } from '../terms.ts';
import { mergeIdColumns } from './ids.ts';
import { concatTextIndexes, type TextIndex } from './postings.ts';
import { forEachValue, packSeveral, Segment, type FieldColumn, type KeywordColumn, type NumberColumn } from './segment.ts';

/** A segment and the local ordinals of its documents that the merged segment keeps, ascending. */
export interface MergePart {
  segment: Segment;
  locals: ArrayLike<number>;
}

/**
 * Where a merged keyword column's terms came from: per part that had the column, its dictionary and
 * each of its ordinals' ordinal in the merged one (-1 for a term no kept document uses). Whoever
 * numbered the parts' terms can number the merged ones from it without comparing a string
 * (sort-ordinals.ts).
 */
export interface TermsLineage {
  terms: readonly string[];
  parts: readonly (readonly string[])[];
  remaps: readonly Int32Array[];
}

/** A merged segment, and the lineage of each of its keyword columns, by field. */
export interface MergedSegment {
  segment: Segment;
  lineage: ReadonlyMap<string, TermsLineage>;
}

/** The documents at `locals` of each part, parts in order, as one new segment. */
export function* mergeSegments(parts: readonly MergePart[]): Steps<MergedSegment> {
  const n = parts.reduce((sum, part) => sum + part.locals.length, 0);
  const seqs = new Float64Array(n), versions = new Float64Array(n);
  const routings = new Map<number, string>();
  const fields = new Map<string, FieldColumn['kind']>();
  let at = 0;
  for (const { segment, locals } of parts) {
    for (let i = 0; i < locals.length; i++, at++) {
      const local = locals[i];
      const routing = segment.routings.size > 0 ? segment.routings.get(local) : undefined;
      if (routing !== undefined) routings.set(at, routing);
      seqs[at] = segment.seqs[local];
      versions[at] = segment.versions[local];
      if (i % SLICE === SLICE - 1) yield;
    }
    for (const [field, column] of segment.columns) fields.set(field, column.kind);
  }
  // A yield between fields too, so that even a small merge goes in a few steps.
  yield;
  const columns = new Map<string, FieldColumn>();
  const lineage = new Map<string, TermsLineage>();
  for (const [field, kind] of fields) {
    if (kind === 'number') columns.set(field, yield* mergeNumbers(parts, field, n));
    else {
      const merged = yield* mergeKeywords(parts, field, n);
      columns.set(field, merged.column);
      lineage.set(field, merged.lineage);
    }
    yield;
  }
  const texts = new Map<string, TextIndex>();
  for (const field of new Set(parts.flatMap(({ segment }) => [...segment.texts.keys()]))) {
    texts.set(field, yield* concatTextIndexes(parts.map(({ segment, locals }) => ({ index: segment.texts.get(field), locals })), n));
    yield;
  }
  const ids = yield* mergeIdColumns(parts.map(({ segment, locals }) => ({ ids: segment.ids, locals })));
  return { segment: new Segment(ids, seqs, versions, columns, routings, texts), lineage };
}

function* mergeNumbers(parts: readonly MergePart[], field: string, n: number): Steps<NumberColumn> {
  const min = new Float64Array(n).fill(NaN);
  const anyMax = parts.some((p) => (p.segment.columns.get(field) as NumberColumn | undefined)?.max);
  const max = anyMax ? new Float64Array(n).fill(NaN) : undefined;
  const several: [number, number[]][] = [];
  let at = 0;
  for (const { segment, locals } of parts) {
    const column = segment.columns.get(field) as NumberColumn | undefined;
    if (!column) {
      at += locals.length;
      continue;
    }
    for (let i = 0; i < locals.length; i++, at++) {
      min[at] = column.min[locals[i]];
      if (max) {
        max[at] = (column.max ?? column.min)[locals[i]];
        if (max[at] !== min[at]) {
          const values: number[] = [];
          forEachValue(column, locals[i], (v) => values.push(v));
          several.push([at, values]);
        }
      }
      if (i % SLICE === SLICE - 1) yield;
    }
  }
  return max ? { kind: 'number', min, max, several: packSeveral(several, Float64Array) } : { kind: 'number', min };
}

/**
 * The parts' keyword columns as one: the terms the kept documents use, merged from the parts'
 * sorted dictionaries, and each document's ordinals remapped through one integer table per part.
 */
function* mergeKeywords(parts: readonly MergePart[], field: string, n: number): Steps<{ column: KeywordColumn; lineage: TermsLineage }> {
  const columns = parts.map((p) => p.segment.columns.get(field) as KeywordColumn | undefined);
  // Which of each part's terms a kept document uses.
  const used = columns.map((column) => new Uint8Array(column?.terms.length ?? 0));
  for (let p = 0; p < parts.length; p++) {
    const column = columns[p], locals = parts[p].locals;
    if (!column) continue;
    const marks = used[p], max = column.max ?? column.min;
    for (let i = 0; i < locals.length; i++) {
      const lo = column.min[locals[i]], hi = max[locals[i]];
      if (lo >= 0) marks[lo] = 1;
      if (hi >= 0) marks[hi] = 1;
      if (i % SLICE === SLICE - 1) yield;
    }
  }
  const kept: string[][] = [];
  for (let p = 0; p < parts.length; p++) {
    kept.push(yield* subsetSteps(columns[p]?.terms ?? [], used[p]));
    yield;
  }
  const merge = ordinalsMerge(kept);
  let merged;
  while (!(merged = merge.advance(MERGE_STEP))) yield;
  const { terms, maps } = merged;
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
  for (let p = 0; p < parts.length; p++) {
    const column = columns[p], locals = parts[p].locals;
    if (!column) {
      at += locals.length;
      continue;
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
      if (i % SLICE === SLICE - 1) yield;
    }
  }
  const column: KeywordColumn = max ? { kind: 'keyword', terms, min, max, several: packSeveral(several, Int32Array) } : { kind: 'keyword', terms, min };
  const had = columns.flatMap((c, p) => (c ? [p] : []));
  return { column, lineage: { terms, parts: had.map((p) => columns[p]!.terms), remaps: had.map((p) => remaps[p]) } };
}
