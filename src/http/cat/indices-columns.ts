/**
 * `_cat/indices`' columns, in ES's order (`RestIndicesAction.getTableWithHeader`), as far as
 * deeppage has the figures: ES's other hidden columns (indexing, search, merge and cache counters)
 * are not listed, so `h` drops them as it drops any unknown name.
 *
 * Every copy here is a primary (replicas are never assigned on one node), so each `pri.` figure
 * equals its total. deeppage keeps no per-index byte count, so the sizes are what ES shows for a
 * figure it does not have: empty cells, `null` in JSON.
 */
import type { Column } from './columns.ts';
import type { Health } from '../health.ts';

export interface IndexRow {
  health: Health;
  name: string;
  uuid: string;
  primaries: number;
  replicasPerPrimary: number;
  /** Documents searches see (refreshed), and deleted ones their segments still hold. */
  docs: number;
  deleted: number;
  /** ms since the epoch. */
  createdAt: number;
  segments: number;
  /** Shard copies held open by points in time and scrolls. */
  openContexts: number;
}

/** The store sizes, which nothing here measures. */
const unknownSize = () => null;

export const INDICES_COLUMNS: readonly Column<IndexRow>[] = [
  { name: 'health', aliases: ['h'], desc: 'current health status', value: (row) => row.health },
  // deeppage has no closed indices.
  { name: 'status', aliases: ['s'], desc: 'open/close status', value: () => 'open' },
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name', value: (row) => row.name },
  { name: 'uuid', aliases: ['id', 'uuid'], desc: 'index uuid', value: (row) => row.uuid },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], right: true, desc: 'number of primary shards', value: (row) => row.primaries },
  { name: 'rep', aliases: ['r', 'shards.replica', 'shardsReplica'], right: true, desc: 'number of replica shards', value: (row) => row.replicasPerPrimary },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], right: true, desc: 'available docs', value: (row) => row.docs },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], right: true, desc: 'deleted docs', value: (row) => row.deleted },
  { name: 'creation.date', aliases: ['cd'], hidden: true, desc: 'index creation date (millisecond value)', value: (row) => row.createdAt },
  { name: 'creation.date.string', aliases: ['cds'], hidden: true, desc: 'index creation date (as string)', value: (row) => new Date(row.createdAt).toISOString() },
  { name: 'store.size', aliases: ['ss', 'storeSize'], sibling: 'pri', right: true, desc: 'store size of primaries & replicas', value: unknownSize },
  { name: 'pri.store.size', right: true, desc: 'store size of primaries', value: unknownSize },
  { name: 'dataset.size', right: true, desc: 'total size of dataset (including the cache for partially mounted indices)', value: unknownSize },
  { name: 'search.open_contexts', aliases: ['so', 'searchOpenContexts'], sibling: 'pri', hidden: true, right: true, desc: 'open search contexts', value: (row) => row.openContexts },
  { name: 'pri.search.open_contexts', hidden: true, right: true, desc: 'open search contexts', value: (row) => row.openContexts },
  { name: 'segments.count', aliases: ['sc', 'segmentsCount'], sibling: 'pri', hidden: true, right: true, desc: 'number of segments', value: (row) => row.segments },
  { name: 'pri.segments.count', hidden: true, right: true, desc: 'number of segments', value: (row) => row.segments },
];
