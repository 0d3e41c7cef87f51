/**
 * What an index's new snapshot gets before searches ask for it, as Elasticsearch's warmers give a
 * new reader: global ordinals carried over from the last snapshot ({@link nextSnapshot}), a
 * sorted run for each new segment under the index sort ({@link sortNewSegments}), and warm-ups of
 * the ordinals of keyword fields, stepped between requests ({@link warmOrdinals}).
 */
import type { EsError } from '../errors.ts';
import { OrderKey } from '../search/order-key.ts';
import type { SortClause } from '../search/request.ts';
import type { RunCache } from '../search/runs/run-cache.ts';
import { runSpec } from '../search/runs/sorted-run.ts';
import { carryOrdinals, ordinalsWarmups } from '../search/sort/keyword-key.ts';
import { planSort } from '../search/sort/plan.ts';
import type { TermsLineage } from '../segments/merge.ts';
import type { Segment } from '../segments/segment.ts';
import type { ShardSnapshot } from '../shard/shard-snapshot.ts';
import type { IndexSnapshot, SearchedIndex } from './index-snapshot.ts';

/**
 * The index's snapshot of its shards' latest, with a cache that starts from what `previous` knew of
 * global ordinals (a refresh changes a segment or two); after a merge, `lineage` says how its
 * keyword columns came from its parts', whose ordinals then number the merged terms.
 */
export function nextSnapshot(index: SearchedIndex, shards: readonly ShardSnapshot[], previous: IndexSnapshot | undefined, lineage?: ReadonlyMap<string, TermsLineage>): IndexSnapshot {
  return { index, shards, cache: carryOrdinals(previous?.cache, lineage) };
}

/** With index sorting, a segment gets its run as it is sealed (or merged), so those pages are never cold. */
export function sortNewSegments(snapshot: IndexSnapshot, clauses: readonly SortClause[], before: ReadonlySet<Segment>, runs: RunCache): void {
  const failures: (EsError | undefined)[] = [];
  const plan = planSort(OrderKey.ofSort(clauses), [snapshot], failures);
  if (failures[0]) return;
  for (const shard of snapshot.shards) {
    for (const live of shard.segments) {
      if (!before.has(live.segment)) runs.build(live, plan.runKey, runSpec(plan.keys, live));
    }
  }
  runs.trim();
}

/** Steps the snapshot's ordinals warm-ups (search/sort/keyword-key.ts), one step per pass of the event loop, until `stopped`. */
export function warmOrdinals(snapshot: IndexSnapshot, stopped: () => boolean): void {
  const warmups = ordinalsWarmups(snapshot);
  const pass = () => {
    if (stopped()) return;
    if (warmups[0].step()) warmups.shift();
    if (warmups.length > 0) setImmediate(pass).unref();
  };
  if (warmups.length > 0) setImmediate(pass).unref();
}
