/**
 * Health on one node, as ES works it out: every primary is started here, and no replica can be
 * (ES never places a copy beside its primary), so each replica is unassigned. An index with
 * replicas is yellow, one without green, and the cluster is the worst of its indices. The same
 * rule for `_cluster/health`, `_stats` and the `_cat` APIs.
 */
import { illegalArgument } from '../engine/errors.ts';
import type { SearchIndex } from '../engine/search-index.ts';

export type Health = 'green' | 'yellow' | 'red';

export function indexHealth(index: SearchIndex): Health {
  return index.settings.numberOfReplicas > 0 ? 'yellow' : 'green';
}

export interface ShardCounts {
  primaries: number;
  /** Started copies: the primaries. */
  active: number;
  /** Replicas, none of which has a node to go to. */
  unassigned: number;
}

export function shardCounts(indices: readonly SearchIndex[]): ShardCounts {
  let primaries = 0, unassigned = 0;
  for (const { settings } of indices) {
    primaries += settings.numberOfShards;
    unassigned += settings.numberOfShards * settings.numberOfReplicas;
  }
  return { primaries, active: primaries, unassigned };
}

export function clusterHealth(indices: readonly SearchIndex[]): Health {
  return indices.some((index) => indexHealth(index) === 'yellow') ? 'yellow' : 'green';
}

/** Started copies as a percentage of all copies, computed as ES's `ClusterHealthResponse` does (100 with no shards at all). */
export function activeShardsPercent({ active, unassigned }: ShardCounts): number {
  const total = active + unassigned;
  return total === 0 ? 100 : (active / total) * 100;
}

/** A `health=` filter, in any case (ES's `ClusterHealthStatus.fromString`). */
export function parseHealth(value: string): Health {
  const health = value.toLowerCase();
  if (health === 'green' || health === 'yellow' || health === 'red') return health;
  throw illegalArgument(`unknown cluster health status [${value}]`);
}
