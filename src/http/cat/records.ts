/**
 * The figures `_cat/indices` and `_cat/shards` show, read from the engine's indices as their last
 * refresh left them: document counts as searches see them, deleted documents still in segments
 * (ES's Lucene counts, which `_stats` reports too), segments.
 */
import type { Engine } from '../../engine/engine.ts';
import { describeNode, NODE_ID } from '../../engine/node.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import type { ShardSnapshot } from '../../engine/shard/shard-snapshot.ts';
import { indexHealth } from '../health.ts';
import type { IndexRow } from './indices-columns.ts';
import type { ShardRow } from './shards-columns.ts';

export function indexRow(engine: Engine, index: SearchIndex): IndexRow {
  const { numberOfShards, numberOfReplicas } = index.settings;
  let docs = 0, deleted = 0, segments = 0;
  for (const shard of index.snapshot().shards) {
    docs += shard.liveCount;
    deleted += deletedIn(shard);
    segments += shard.segments.length;
  }
  return {
    health: indexHealth(index),
    name: index.name,
    uuid: index.uuid,
    primaries: numberOfShards,
    replicasPerPrimary: numberOfReplicas,
    docs,
    deleted,
    createdAt: index.createdAt,
    segments,
    openContexts: engine.cursors.stats([index]).open_contexts,
  };
}

/** Per shard its primary, started here, then its replicas, unassigned. */
export function shardRows(index: SearchIndex): ShardRow[] {
  const node = { id: NODE_ID, name: describeNode().name, ip: describeNode().host };
  return index.snapshot().shards.flatMap((shard) => [
    { index: index.name, shard: shard.shard, primary: true, started: { docs: shard.liveCount, segments: shard.segments.length, node } },
    ...Array.from({ length: index.settings.numberOfReplicas }, () => ({ index: index.name, shard: shard.shard, primary: false })),
  ]);
}

function deletedIn(shard: ShardSnapshot): number {
  return shard.segments.reduce((n, live) => n + live.deletedCount, 0);
}
