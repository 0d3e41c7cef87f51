/**
 * Turns sort clauses into what the phases use (a {@link SortPlan}): kernel keys, one
 * {@link SortKeySource} per clause that orders anything (numbers, keywords, `_doc`, `_shard_doc`;
 * `_score` orders nothing under match_all), the run key that names their order, and each hit's
 * `sort` array. The tie-break after the keys is in tie-break.ts.
 */
import type { KeyOrder } from '../../../core/index.ts';
import { badRequest, EsError, illegalArgument, notSupported } from '../../errors.ts';
import { sortFamily, type SortFamily } from '../../field-types.ts';
import { fielddataRefusal, isMetadataField } from '../../query/metadata-fields.ts';
import type { IndexSnapshot } from '../../search-index/index-snapshot.ts';
import { orderName, type OrderKey } from '../order-key.ts';
import type { FieldClause, SortClause } from '../request.ts';
import { docKey, shardDocKey } from './doc-key.ts';
import type { SortKeySource, SortPlan } from './key.ts';
import { keywordKey, type OrdinalsMemo } from './keyword-key.ts';
import { numberKey } from './number-key.ts';
import { isScore, MATCH_ALL_SCORE } from './score-key.ts';
import { shardPlaces } from './tie-break.ts';

/**
 * @param failures receives, per target, the error that fails all its shards (unmapped or
 *   unsortable field); such targets must be left out of the search.
 */
export function planSort(key: OrderKey, targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortPlan {
  // A search of one index keeps its plan with the snapshot: the same sort is planned once per
  // refresh. Only a plan that failed nothing is kept (a field mapped later must stop failing).
  if (targets.length !== 1 || failures[0] !== undefined) return plan(key.clauses, targets, failures);
  const { plans } = targets[0].cache;
  const kept = plans.get(key.sort);
  if (kept) return kept;
  const planned = plan(key.clauses, targets, failures);
  if (failures[0] === undefined) plans.set(key.sort, planned);
  return planned;
}

function plan(clauses: readonly SortClause[], targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortPlan {
  const ordinals: OrdinalsMemo = new Map();
  let shardIndex: ((t: number, shard: number) => number) | undefined;
  const planned = clauses.map((clause) => {
    if (isScore(clause)) return { clause };
    if (clause.kind === 'doc') return { clause, source: docKey(clause.order) };
    if (clause.kind === 'shard_doc') return { clause, source: shardDocKey(clause.order, (shardIndex ??= shardPlaces(targets))) };
    return { clause, source: fieldFamily(clause, targets, failures) === 'keyword' ? keywordKey(clause, targets, ordinals) : numberKey(clause) };
  });
  const keys = planned.flatMap(({ source }) => (source ? [source] : []));
  const last = clauses[clauses.length - 1];
  // `_shard_doc` ascending after nothing that orders is the layout order itself: no runs needed.
  const positional = keys.length === 1 && last?.kind === 'shard_doc' && last.order === 'asc';
  return {
    keyed: keys.length > 0 && !positional,
    byField: keys.length > 0 || clauses.some((c) => isScore(c) && c.order === 'asc'),
    tracksScore: clauses.some(isScore),
    clauses: planned,
    keys,
    runKey: orderName(keys.map((k) => k.id)),
    asStored: keys.every((key) => key.asStored === true),
    order: () => keys.map((k) => k.order),
    values: (segment, local, score) => {
      const values = new Array<unknown>(planned.length);
      for (let i = 0; i < planned.length; i++) {
        const { source } = planned[i];
        values[i] = source ? source.sortValue(segment, local) : score;
      }
      return values;
    },
  };
}

/** The field's sort family across targets; marks targets where it cannot be sorted on. */
function fieldFamily(clause: FieldClause, targets: readonly IndexSnapshot[], failures: (EsError | undefined)[]): SortFamily {
  let family: SortFamily | undefined;
  targets.forEach((target, t) => {
    const mapping = target.index.mappings.get(clause.field);
    let here: SortFamily;
    if (isMetadataField(clause.field)) {
      failures[t] ??= fielddataRefusal(clause.field) ?? notSupported(`sorting on the metadata field [${clause.field}]`);
      return;
    }
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
