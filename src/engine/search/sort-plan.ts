/**
 * Turns sort clauses into what the kernels take: for each segment, 0 to n f64 key columns. Numbers
 * (dates, booleans) sort as themselves; keywords as global ordinals, which compare across every
 * segment of the search; `_doc` as the shard ordinal; `_score` not at all, since match_all gives
 * every hit the same score of 1.0. The tie-break after the keys (shard, then ordinal) is the
 * order of runs and positions, see coordinator.ts.
 */
import type { SortKey } from '../../core/index.ts';
import { badRequest, EsError, illegalArgument } from '../errors.ts';
import { parseDate, sortFamily, type SortFamily } from '../mapping.ts';
import type { IndexSnapshot } from '../search-index.ts';
import type { Segment, KeywordColumn, NumberColumn } from '../segment.ts';
import type { LiveSegment } from '../shard.ts';
import { globalOrdinals, lowerBound, type GlobalOrdinals } from '../terms.ts';
import type { SortClause } from './request.ts';

type FieldClause = Extract<SortClause, { kind: 'field' }>;

export interface SortPlan {
  /** False when nothing reorders the hits: they come in shard order, then ordinal order. */
  keyed: boolean;
  /** Hits carry a `sort` array (ES: when sorted by anything but `_score` alone). */
  byField: boolean;
  /** A `_score` clause is present, so hits carry their score. */
  tracksScore: boolean;
  /** The kernel keys for one segment of target `t`. */
  keys(t: number, live: LiveSegment): SortKey[];
  /** The hit's `sort` array. */
  values(t: number, live: LiveSegment, local: number): unknown[];
}

/**
 * @param failures receives, per target, the error that fails all its shards (unmapped or
 *   unsortable field); such targets must be left out of the search.
 */
export function planSort(clauses: readonly SortClause[], targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortPlan {
  const fieldClauses = clauses.filter((c): c is FieldClause => c.kind === 'field');
  const families = fieldClauses.map((c) => fieldFamily(c, targets, failures));
  const ordinals = fieldClauses.map((c, i) => (families[i] === 'keyword' ? keywordOrdinals(c, targets) : undefined));
  const keyed = clauses.some((c) => c.kind !== 'score');
  const byField = keyed || (clauses.length > 0 && clauses.some((c) => c.kind === 'score' && c.order === 'asc'));

  const keyFor = (clause: SortClause, t: number, live: LiveSegment): SortKey | undefined => {
    if (clause.kind === 'score') return undefined;
    if (clause.kind === 'doc') return { values: ordinalColumn(live), order: clause.order };
    const f = fieldClauses.indexOf(clause);
    const mode = modeOf(clause);
    const column = live.segment.columns.get(clause.field);
    if (families[f] === 'keyword') {
      const ords = ordinals[f]!;
      return { values: ords.column(t, live.segment, mode), order: clause.order, missing: keywordMissing(clause.missing, ords.terms) };
    }
    const values = column?.kind === 'number' ? pick(column, mode) : new Float64Array(live.segment.count).fill(NaN);
    return { values, order: clause.order, missing: numberMissing(clause) };
  };

  return {
    keyed,
    byField,
    tracksScore: clauses.some((c) => c.kind === 'score'),
    keys: (t, live) => clauses.map((c) => keyFor(c, t, live)).filter((k): k is SortKey => k !== undefined),
    values: (t, live, local) =>
      clauses.map((clause) => {
        if (clause.kind === 'score') return 1.0;
        if (clause.kind === 'doc') return live.base + local;
        const mode = modeOf(clause);
        const column = live.segment.columns.get(clause.field);
        let value: number | string | null = null;
        if (column?.kind === 'keyword') {
          const ord = (mode === 'max' && column.max ? column.max : column.min)[local];
          if (ord >= 0) value = column.terms[ord];
        } else if (column) {
          const number = pick(column, mode)[local];
          if (!Number.isNaN(number)) value = number;
        }
        // ES shows the value that stood in for a missing one.
        if (value === null && clause.missing !== '_last' && clause.missing !== '_first') {
          value = families[fieldClauses.indexOf(clause)] === 'keyword' ? String(clause.missing) : (numberMissing(clause) as number);
        }
        return value;
      }),
  };
}

/** The field's sort family across targets; marks targets where it cannot be sorted on. */
function fieldFamily(clause: FieldClause, targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortFamily {
  let family: SortFamily | undefined;
  targets.forEach((target, t) => {
    const mapping = target.index.mappings.get(clause.field);
    let here: SortFamily;
    if (mapping) here = sortFamily(mapping.type);
    else if (clause.unmappedType) here = clause.unmappedType === 'keyword' ? 'keyword' : 'number';
    else {
      failures[t] ??= badRequest('query_shard_exception', `No mapping found for [${clause.field}] in order to sort on`, { index_uuid: target.index.uuid, index: target.index.name });
      return;
    }
    if (here === 'none') {
      failures[t] ??= illegalArgument(
        `Fielddata is disabled on [${clause.field}] in [${target.index.name}]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${clause.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      );
      return;
    }
    if (family && family !== here) {
      throw illegalArgument(`Can't sort on field [${clause.field}]; the field has incompatible sort types: [${sortTypeName(family)}] and [${sortTypeName(here)}] across shards!`);
    }
    family = here;
  });
  return family ?? 'number';
}

const sortTypeName = (family: SortFamily) => (family === 'keyword' ? 'STRING' : 'DOUBLE');

interface KeywordOrdinals {
  terms: string[];
  column(t: number, segment: Segment, mode: 'min' | 'max'): Float64Array;
}

/**
 * Global ordinals of a keyword field over every segment of the search, cached with the snapshot
 * when the search has one target (the common case), since building them reads every term.
 */
function keywordOrdinals(clause: FieldClause, targets: readonly IndexSnapshot[]): KeywordOrdinals {
  const cacheKey = `ordinals:${clause.field}`;
  if (targets.length === 1 && targets[0].cache.has(cacheKey)) return targets[0].cache.get(cacheKey) as KeywordOrdinals;
  const segments: { t: number; segment: Segment; column: KeywordColumn }[] = [];
  targets.forEach((target, t) => {
    for (const shard of target.shards) {
      for (const live of shard.segments) {
        const column = live.segment.columns.get(clause.field);
        if (column?.kind === 'keyword') segments.push({ t, segment: live.segment, column });
      }
    }
  });
  const global: GlobalOrdinals = globalOrdinals(segments.map((s) => s.column.terms));
  const columns = new Map<string, Float64Array>();
  const result: KeywordOrdinals = {
    terms: global.terms,
    column(t, segment, mode) {
      const at = segments.findIndex((s) => s.t === t && s.segment === segment);
      if (at < 0) return new Float64Array(segment.count).fill(NaN);
      const key = `${at}:${mode}`;
      let column = columns.get(key);
      if (!column) {
        const { column: local } = segments[at];
        const ords = mode === 'max' && local.max ? local.max : local.min;
        const map = global.maps[at];
        column = Float64Array.from(ords, (o) => (o < 0 ? NaN : map[o]));
        columns.set(key, column);
      }
      return column;
    },
  };
  if (targets.length === 1) targets[0].cache.set(cacheKey, result);
  return result;
}

/** A keyword stand-in for missing values sorts at its place among the terms, between ordinals if absent. */
function keywordMissing(missing: FieldClause['missing'], terms: readonly string[]): SortKey['missing'] {
  if (missing === '_last' || missing === '_first') return missing;
  const term = String(missing);
  const at = lowerBound(terms, term);
  return terms[at] === term ? at : at - 0.5;
}

function numberMissing(clause: FieldClause): SortKey['missing'] {
  const { missing } = clause;
  if (missing === '_last' || missing === '_first' || typeof missing === 'number') return missing;
  // Dates may stand in as date strings; other numbers as numeric strings.
  const n = missing.trim() === '' ? NaN : Number(missing);
  const value = Number.isNaN(n) ? parseDate(missing) : n;
  if (value === undefined) throw badRequest('number_format_exception', `For input string: "${missing}"`);
  return value;
}

/** Which value of a multi-valued field sorts the document: ES's default is the least ascending, the greatest descending. */
function modeOf(clause: FieldClause): 'min' | 'max' {
  return clause.mode ?? (clause.order === 'asc' ? 'min' : 'max');
}

function pick(column: NumberColumn, mode: 'min' | 'max'): Float64Array {
  return mode === 'max' && column.max ? column.max : column.min;
}

function ordinalColumn(live: LiveSegment): Float64Array {
  return Float64Array.from({ length: live.segment.count }, (_, i) => live.base + i);
}
