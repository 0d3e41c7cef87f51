/**
 * `search_after`: the page starts after the hit whose sort values the client sends back. Elasticsearch
 * skips every hit whose sort values are at or before them (equal values too: a tiebreaker such as
 * `_shard_doc` makes them unique).
 *
 * deeppage turns that into a rank: in a sorted run the entries at or before the values are a prefix,
 * found by binary search, so the page is the merged order from the sum of those prefixes, and a
 * `search_after` page costs what a first page costs at any position.
 */
import { compareValues, runValue, WasmArray, type Column, type KeyOrder, type Position, type Run, type RunKey } from '../../core/index.ts';
import { illegalArgument } from '../errors.ts';
import type { SortPlan } from './sort/key.ts';
import { afterScore, MATCH_ALL_SCORE } from './sort/score-key.ts';
import { firstNotBefore, lowerBound } from '../binary-search.ts';

/** The position to continue after, in the kernel keys' comparable space. */
export interface AfterKey {
  /** Values of the first `values.length` kernel keys. */
  values: number[];
  /**
   * How an entry equal on those values compares with the position: ES compares `_score` clauses
   * too, and under match_all every hit scores the same, so a `_score` value other than the score
   * decides for every hit at once (> 0: after it, so on the page's side).
   */
  tie: number;
}

/** Checks the values against the sort (ES's messages) and reads them into the keys' space. */
export function afterKey(plan: SortPlan, raw: readonly unknown[]): AfterKey {
  checkAfterValues(plan, raw);
  const values: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const { clause, source } = plan.clauses[i];
    if (source) {
      values.push(source.afterValue(raw[i]));
      continue;
    }
    const c = compareValues(MATCH_ALL_SCORE, afterScore(raw[i]), clause.order);
    if (c !== 0) return { values, tie: c };
  }
  return { values, tie: 0 };
}

/** ES's checks of the values' count against the sort. */
export function checkAfterValues(plan: SortPlan, raw: readonly unknown[]): void {
  if (!plan.byField) throw illegalArgument('Sort must contain at least one field.');
  if (raw.length !== plan.clauses.length) throw illegalArgument(`search_after has ${raw.length} value(s) but sort has ${plan.clauses.length}.`);
}

/** How entry `p` of the run compares with the position: > 0 when it comes after. */
export function compareToAfter(run: Run<ArrayLike<number>>, order: readonly KeyOrder[], after: AfterKey, p: number): number {
  for (let j = 0; j < after.values.length; j++) {
    const c = compareValues(runValue(run, j, p), after.values[j], order[j].order, order[j].missing);
    if (c !== 0) return c;
  }
  return after.tie;
}

/** Entries of the sorted run at or before the position: the length of the prefix the page skips. */
export function countThrough(run: Run<Column>, order: readonly KeyOrder[], after: AfterKey): number {
  const plain = views(run);
  return firstNotBefore(0, run.length, (i) => compareToAfter(plain, order, after, i) <= 0);
}

/** The run with its wasm arrays as views (taken now: valid until the next allocation). */
export function views(run: Run<Column>): Run<ArrayLike<number>> {
  const view = (c: Column) => (c instanceof WasmArray ? c.view : c);
  return { length: run.length, keys: run.keys.map((k) => ({ values: view(k.values), map: k.map && view(k.map), offset: k.offset })) };
}

/**
 * The position in one segment's own key space, as the top-k kernel reads its columns: each value
 * through {@link localValue}. `keys` are the segment's columns with how they read across segments,
 * `order` the search's keys' order, `localOrder` the segment's.
 */
export function segmentPosition(after: AfterKey, keys: readonly RunKey<Column>[], order: readonly KeyOrder[], localOrder: readonly KeyOrder[]): Position {
  return { values: after.values.map((value, j) => localValue(value, keys[j], order[j].missing, localOrder[j].missing)), tie: after.tie };
}

/**
 * A value of the comparable space (global keyword ordinals, shard `_doc` values) in a segment's own:
 * the inverse of the key's offset, then of its map (ascending): the local ordinal that maps to it,
 * or halfway between the two around it when none does. NaN (missing) stays; the value a missing one
 * stands in for becomes the segment's stand-in, and a segment without the field (no map: every
 * document missing) gets a value on the same side of its stand-in.
 */
function localValue(value: number, { map, offset }: RunKey<Column>, missing: KeyOrder['missing'], localMissing: KeyOrder['missing']): number {
  if (Number.isNaN(value)) return value;
  const standIn = typeof missing === 'number' && typeof localMissing === 'number' && missing !== localMissing;
  if (standIn && value === missing) return localMissing;
  const x = offset ? value - offset : value;
  if (map === undefined) return standIn ? beside(value, missing, localMissing) : x;
  const ordinals = map instanceof WasmArray ? map.view : map;
  const at = lowerBound(ordinals, x);
  const local = at < ordinals.length && ordinals[at] === x ? at : at - 0.5;
  // Two values between the same two local ordinals (the stand-in, halfway, and this one) keep their order.
  return standIn && local === localMissing ? beside(value, missing, localMissing) : local;
}

/** A local value just below or above the segment's stand-in, as the value is to the stand-in's. */
function beside(value: number, missing: number, localMissing: number): number {
  return value < missing ? localMissing - 0.25 : localMissing + 0.25;
}
