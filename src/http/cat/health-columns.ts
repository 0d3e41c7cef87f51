/**
 * `_cat/health`'s columns, in ES's order (`RestHealthAction`): one row, the cluster's health as
 * `_cluster/health` reports it, after the two timestamp columns. One node holds and stores
 * everything; nothing relocates, initializes or waits in a queue here, and every primary is
 * started.
 */
import { TIMESTAMP_COLUMNS, type Column, type Timed } from './columns.ts';
import { activeShardsPercent, type Health, type ShardCounts } from '../health.ts';

export interface HealthRow extends Timed {
  cluster: string;
  status: Health;
  shards: ShardCounts;
}

export const HEALTH_COLUMNS: readonly Column<HealthRow>[] = [
  ...TIMESTAMP_COLUMNS,
  { name: 'cluster', aliases: ['cl'], desc: 'cluster name', value: (row) => row.cluster },
  { name: 'status', aliases: ['st'], desc: 'health status', value: (row) => row.status },
  { name: 'node.total', aliases: ['nt', 'nodeTotal'], right: true, desc: 'total number of nodes', value: () => 1 },
  { name: 'node.data', aliases: ['nd', 'nodeData'], right: true, desc: 'number of nodes that can store data', value: () => 1 },
  { name: 'shards', aliases: ['t', 'sh', 'shards.total', 'shardsTotal'], right: true, desc: 'total number of shards', value: (row) => row.shards.active },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], right: true, desc: 'number of primary shards', value: (row) => row.shards.primaries },
  { name: 'relo', aliases: ['r', 'shards.relocating', 'shardsRelocating'], right: true, desc: 'number of relocating nodes', value: () => 0 },
  { name: 'init', aliases: ['i', 'shards.initializing', 'shardsInitializing'], right: true, desc: 'number of initializing nodes', value: () => 0 },
  { name: 'unassign', aliases: ['u', 'shards.unassigned', 'shardsUnassigned'], right: true, desc: 'number of unassigned shards', value: (row) => row.shards.unassigned },
  { name: 'unassign.pri', aliases: ['up', 'shards.unassigned.primary', 'shardsUnassignedPrimary'], right: true, desc: 'number of unassigned primary shards', value: () => 0 },
  { name: 'pending_tasks', aliases: ['pt', 'pendingTasks'], right: true, desc: 'number of pending tasks', value: () => 0 },
  // ES writes `-` when no task waits (a duration otherwise).
  { name: 'max_task_wait_time', aliases: ['mtwt', 'maxTaskWaitTime'], right: true, desc: 'wait time of longest task pending', value: () => '-' },
  { name: 'active_shards_percent', aliases: ['asp', 'activeShardsPercent'], right: true, desc: 'active number of shards in percent', value: (row) => `${javaOneDecimal(activeShardsPercent(row.shards))}%` },
];

/**
 * Java's `%1.1f`: the number's shortest decimal digits rounded half up to one decimal (`1.45` →
 * `1.5`, where `toFixed` rounds the binary value and gives `1.4`).
 */
export function javaOneDecimal(x: number): string {
  const text = String(x);
  if (text.includes('e')) return x.toFixed(1);
  const [whole, fraction = ''] = text.split('.');
  const tenths = Number(whole) * 10 + Number(fraction[0] ?? 0) + (Number(fraction[1] ?? 0) >= 5 ? 1 : 0);
  return `${Math.floor(tenths / 10)}.${tenths % 10}`;
}
