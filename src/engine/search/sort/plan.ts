/**
 * Turns sort clauses into what the phases use: kernel keys, one {@link SortKeySource} per clause that
 * orders anything (numbers, keywords, `_doc`; `_score` orders nothing under match_all), the run key
 * that names their order, and each hit's `sort` array. The tie-break after the keys is in
 * tie-break.ts.
 */
import type { KeyOrder } from '../../../core/index.ts';
import { badRequest, EsError, illegalArgument } from '../../errors.ts';
import { sortFamily, type SortFamily } from '../../mapping.ts';
import type { IndexSnapshot } from '../../search-index.ts';
import type { LiveSegment } from '../../shard.ts';
import type { FieldClause, SortClause } from '../request.ts';
import { docKey } from './doc-key.ts';
import type { SortKeySource } from './key.ts';
import { keywordKey, type OrdinalsMemo } from './keyword-key.ts';
import { numberKey } from './number-key.ts';
import { isScore, MATCH_ALL_SCORE } from './score-key.ts';

export interface SortPlan {
  /** False when nothing reorders the hits: they come in shard order, then ordinal order. */
  keyed: boolean;
  /** Hits carry a `sort` array (ES: when sorted by anything but `_score` alone). */
  byField: boolean;
  /** A `_score` clause is present, so hits carry their score. */
  tracksScore: boolean;
  /** The kernel keys, in clause order. */
  keys: SortKeySource[];
  /** Names the order of the keys: segments keep their sorted runs under it. */
  runKey: string;
  /** Every key compares across segments as stored (no keyword map, no `_doc` offset). */
  asStored: boolean;
  /** How the keys compare across segments. */
  order(): KeyOrder[];
  /** The hit's `sort` array. */
  values(t: number, live: LiveSegment, local: number): unknown[];
}

/**
 * @param failures receives, per target, the error that fails all its shards (unmapped or
 *   unsortable field); such targets must be left out of the search.
 */
export function planSort(clauses: readonly SortClause[], targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortPlan {
  const ordinals: OrdinalsMemo = new Map();
  const sources = clauses.map((clause): SortKeySource | undefined => {
    if (isScore(clause)) return undefined;
    if (clause.kind === 'doc') return docKey(clause.order);
    return fieldFamily(clause, targets, failures) === 'keyword' ? keywordKey(clause, targets, ordinals) : numberKey(clause);
  });
  const keys = sources.filter((s): s is SortKeySource => s !== undefined);
  return {
    keyed: keys.length > 0,
    byField: keys.length > 0 || clauses.some((c) => isScore(c) && c.order === 'asc'),
    tracksScore: clauses.some(isScore),
    keys,
    runKey: keyOf(keys),
    asStored: keys.every((key) => key.asStored === true),
    order: () => keys.map((k) => k.order),
    values: (t, live, local) => sources.map((source) => (source ? source.sortValue(t, live, local) : MATCH_ALL_SCORE)),
  };
}

/** The run key of an order given by its key sources. */
export function keyOf(keys: readonly SortKeySource[]): string {
  return `[${keys.map((k) => k.id).join(',')}]`;
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
