/**
 * Keywords sort by term, in code point order (terms.ts). A segment keeps sorted terms and ordinals,
 * so within a segment a keyword sorts by its local ordinal. Local ordinals map monotonically to the
 * global ordinals of every segment in the search, so a run sorted by local ordinals is sorted by
 * global ones too: runs keep local ordinals, and a per-segment map (kept in wasm memory, rebuilt
 * when the global ordinals change) turns them into global ones as the kernels read them.
 */
import type { KeyOrder } from '../../../core/index.ts';
import { SnapshotCache, type IndexSnapshot } from '../../search-index/index-snapshot.ts';
import type { TermsLineage } from '../../segments/merge.ts';
import type { KeywordColumn, Segment } from '../../segments/segment.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import { keyName } from '../order-key.ts';
import type { FieldClause } from '../request.ts';
import type { SortKeySource } from './key.ts';
import { afterTerm } from './after-value.ts';
import { lowerBound } from '../../terms.ts';
import { modeOf } from './mode.ts';
import { carriedThroughMerge, carryOf, coversMost, OrdinalsWarmup, sortOrdinals, type KeywordOrdinals, type OrdinalsCarry } from './sort-ordinals.ts';

/** Global ordinals built during one search, by field, so that every key on a field shares one (and one map). */
export type OrdinalsMemo = Map<string, KeywordOrdinals>;

export function keywordKey(clause: FieldClause, targets: readonly IndexSnapshot[], memo: OrdinalsMemo): SortKeySource {
  const mode = modeOf(clause);
  const global = () => {
    let ordinals = memo.get(clause.field);
    if (!ordinals) memo.set(clause.field, (ordinals = keywordOrdinals(clause.field, targets)));
    return ordinals;
  };
  const local = (live: LiveSegment) => {
    const column = live.segment.columns.get(clause.field);
    return column?.kind === 'keyword' ? column : undefined;
  };
  return {
    id: keyName('keyword', clause.field, clause.order, clause.missing, mode),
    get order(): KeyOrder {
      return { order: clause.order, missing: standIn(clause.missing, global().ordinals.ordinalOf) };
    },
    column: (live) => live.segment.keywordOrdinals(clause.field, mode),
    columnId: `keyword:${clause.field}:${mode}`,
    localOrder: (live) => ({ order: clause.order, missing: standIn(clause.missing, (term) => localOrdinal(local(live)?.terms ?? [], term)) }),
    readAs({ target, live }, maps) {
      const { ordinals: ords, at } = global();
      const d = at(target, live.segment);
      if (d < 0) return {};
      // A segment's map stays the same array while its ordinals do (sort-ordinals.ts), and so does its copy in wasm memory.
      return { map: maps.map(live.segment, `keyword:${clause.field}`, ords.maps[d], () => ords.maps[d]) };
    },
    afterValue: (value) => afterTerm(clause.field, value, global().ordinals.ordinalOf),
    sortValue({ live }, local_) {
      const column = local(live);
      const ord = column ? (mode === 'max' && column.max ? column.max : column.min)[local_] : -1;
      if (ord >= 0) return column!.terms[ord];
      // ES shows the value that stood in for a missing one.
      return clause.missing === '_last' || clause.missing === '_first' ? null : String(clause.missing);
    },
  };
}

/** A keyword stand-in for missing values sorts at its place among the terms, between ordinals if absent. */
function standIn(missing: FieldClause['missing'], ordinalOf: (term: string) => number): KeyOrder['missing'] {
  return missing === '_last' || missing === '_first' ? missing : ordinalOf(String(missing));
}

/** A term's place among a segment's own (consecutive) ordinals: its ordinal, or halfway between its neighbours'. */
function localOrdinal(terms: readonly string[], term: string): number {
  const at = lowerBound(terms, term);
  return terms[at] === term ? at : at - 0.5;
}

/**
 * Global ordinals of a keyword field over every segment of the search, kept with the snapshot when
 * the search has one target (the common case); and extended from the ones an earlier snapshot of
 * the index left ({@link carryOrdinals}, sort-ordinals.ts), since a refresh adds a segment or two.
 */
function keywordOrdinals(field: string, targets: readonly IndexSnapshot[]): KeywordOrdinals {
  const kept = targets.length === 1 ? targets[0].cache.ordinals.get(field) : undefined;
  if (kept) return kept;
  const segments: { t: number; segment: Segment; column: KeywordColumn }[] = [];
  targets.forEach((target, t) => {
    for (const shard of target.shards) {
      for (const live of shard.segments) {
        const column = live.segment.columns.get(field);
        if (column?.kind === 'keyword') segments.push({ t, segment: live.segment, column });
      }
    }
  });
  const index = new Map(segments.map((s, d) => [s.segment, d]));
  const dictionaries = segments.map((s) => s.column.terms);
  const carried = targets.length === 1 ? carriedOf(targets[0].cache, field) : undefined;
  const ordinals = sortOrdinals(dictionaries, carried);
  const result: KeywordOrdinals = {
    ordinals,
    at: (t, segment) => {
      const d = index.get(segment);
      return d !== undefined && segments[d].t === t ? d : -1;
    },
  };
  if (targets.length === 1) {
    targets[0].cache.ordinals.set(field, result);
    targets[0].cache.carries.set(field, carryOf(dictionaries, ordinals));
  }
  return result;
}

/** What a snapshot's cache has to build a field's ordinals from: a carry, or a warm-up, finished now if it is not yet. */
function carriedOf(cache: SnapshotCache, field: string): OrdinalsCarry | undefined {
  return cache.carries.get(field) ?? cache.warmups.get(field)?.carry();
}

/**
 * A new snapshot's cache, with what the index's last snapshot knew of global ordinals to build its
 * own from. After a merge, a field's carry that numbered both parts numbers the merged segment's
 * terms as well ({@link carriedThroughMerge}): a merged dictionary is as large as its parts, and
 * placing its terms one by one among the old ones held a search after the merge for 20–30 ms.
 */
export function carryOrdinals(previous: SnapshotCache | undefined, lineage?: ReadonlyMap<string, TermsLineage>): SnapshotCache {
  const cache = new SnapshotCache();
  if (!previous) return cache;
  for (const [field, warmup] of previous.warmups) cache.warmups.set(field, warmup);
  for (const [field, carry] of previous.carries) {
    const merged = lineage?.get(field);
    cache.carries.set(field, (merged && carriedThroughMerge(carry, merged)) ?? carry);
  }
  return cache;
}

/**
 * Warm-ups of the sort ordinals of the snapshot's keyword fields that have nothing to build them
 * from yet, or only ordinals of too few of their terms to extend (after a start, a bulk load, a
 * large merge, a cleared cache), each kept in the snapshot's cache in place of the old, so that a
 * search before its last step finishes it, and so that later snapshots inherit it. The index steps
 * them between requests ({@link OrdinalsWarmup.step}); the first keyword sort then extends them
 * rather than numbering every term.
 */
export function ordinalsWarmups(snapshot: IndexSnapshot): OrdinalsWarmup[] {
  const fields = new Map<string, (readonly string[])[]>();
  for (const shard of snapshot.shards) {
    for (const live of shard.segments) {
      for (const [field, column] of live.segment.columns) {
        if (column.kind !== 'keyword') continue;
        let dictionaries = fields.get(field);
        if (!dictionaries) fields.set(field, (dictionaries = []));
        dictionaries.push(column.terms);
      }
    }
  }
  const warmups: OrdinalsWarmup[] = [];
  for (const [field, dictionaries] of fields) {
    const { cache } = snapshot;
    const known = cache.carries.get(field) ?? cache.warmups.get(field);
    if (known && coversMost(dictionaries, known)) continue;
    const warmup = new OrdinalsWarmup(dictionaries);
    cache.carries.delete(field);
    cache.warmups.set(field, warmup);
    warmups.push(warmup);
  }
  return warmups;
}
