/**
 * `_cat/shards`' columns, in ES's order (`RestShardsAction`), as far as deeppage has the figures.
 * A row per shard copy: the primary, started on this node, and each replica, unassigned, whose
 * cells about documents and placement are empty. Store and dataset sizes are empty too: deeppage
 * keeps no per-shard byte count.
 */
import type { Column } from './columns.ts';

export interface ShardRow {
  index: string;
  shard: number;
  primary: boolean;
  /** Where the copy lives; undefined for an unassigned replica. */
  started?: {
    /** Documents searches see. */
    docs: number;
    segments: number;
    node: { id: string; name: string; ip: string };
  };
}

export const SHARDS_COLUMNS: readonly Column<ShardRow>[] = [
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name', value: (row) => row.index },
  { name: 'shard', aliases: ['s', 'sh'], desc: 'shard name', value: (row) => row.shard },
  { name: 'prirep', aliases: ['p', 'pr', 'primaryOrReplica'], desc: 'primary or replica', value: (row) => (row.primary ? 'p' : 'r') },
  { name: 'state', aliases: ['st'], desc: 'shard state', value: (row) => (row.started ? 'STARTED' : 'UNASSIGNED') },
  { name: 'docs', aliases: ['d', 'dc'], right: true, desc: 'number of docs in shard', value: (row) => row.started?.docs ?? null },
  { name: 'store', aliases: ['sto'], right: true, desc: 'store size of shard (how much disk it uses)', value: () => null },
  { name: 'dataset', right: true, desc: 'total size of dataset (including the cache for partially mounted indices)', value: () => null },
  { name: 'ip', desc: 'ip of node where it lives', value: (row) => row.started?.node.ip ?? null },
  { name: 'id', hidden: true, desc: 'unique id of node where it lives', value: (row) => row.started?.node.id ?? null },
  { name: 'node', aliases: ['n'], desc: 'name of node where it lives', value: (row) => row.started?.node.name ?? null },
  { name: 'segments.count', aliases: ['sc', 'segmentsCount'], hidden: true, right: true, desc: 'number of segments', value: (row) => row.started?.segments ?? null },
];
