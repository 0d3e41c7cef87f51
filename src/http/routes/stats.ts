/**
 * Statistics in Elasticsearch's shapes, the parts that fit one deeppage node: `GET /_nodes/stats`
 * and `GET /{index}/_stats` with document counts and the sorted runs (count, wasm bytes, budget,
 * evictions, hits and misses), which sit beside ES's own caches under `indices`.
 */
import { hostname } from 'node:os';
import { Hono, type Context } from 'hono';
import { booleanParam } from '../../engine/booleans.ts';
import { formatByteSize } from '../../engine/byte-size.ts';
import type { Engine } from '../../engine/engine.ts';
import { describeNode, NODE_ID } from '../../engine/node.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import type { ShardSnapshot } from '../../engine/shard/shard-snapshot.ts';
import { indexHealth } from '../health.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions } from '../../engine/request/indices-options.ts';
import { clusterLevel } from '../../engine/request/request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';

const PARAMS = new Set(RESPONSE_PARAMS);
/** `level`: `cluster` (`_all` only), `indices` (the default) or `shards` (each index's shards too). */
const INDEX_STATS_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, 'level']);


export function statsRoutes(engine: Engine, clusterName: string): Hono {
  const app = new Hono();

  /** With `?human`, ES adds a readable size beside every `*_in_bytes` field. */
  const runs = (c: Context, stats: Record<string, number>) => (booleanParam(queryOf(c).human, false) ? withHumanSizes(stats) : stats);

  const nodeStats = (c: Context) => {
    checkParamNames(queryOf(c), pathOf(c), PARAMS);
    const selector = c.req.param('node') ?? '_all';
    if (!['_all', '_local', NODE_ID, hostname()].includes(selector)) {
      return send(c, 200, { _nodes: { total: 0, successful: 0, failed: 0 }, cluster_name: clusterName, nodes: {} });
    }
    const indices = engine.indices();
    return send(c, 200, {
      _nodes: { total: 1, successful: 1, failed: 0 },
      cluster_name: clusterName,
      nodes: {
        [NODE_ID]: {
          timestamp: Date.now(),
          ...describeNode(),
          breakers: engine.breaker.stats(),
          indices: {
            docs: docs(indices),
            search: engine.cursors.stats(),
            sorted_runs: runs(c, { ...engine.runStats() }),
            retained_sources: engine.sources.stats(),
          },
        },
      },
    });
  };
  app.get('/_nodes/stats', nodeStats);
  app.get('/_nodes/:node/stats', nodeStats);

  const indexStats = (c: Context) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), INDEX_STATS_PARAMS);
    const level = clusterLevel(query.level, 'indices');
    const indices = engine.resolve(c.req.param('index'), indicesOptions(query));
    const section = (list: SearchIndex[]) => {
      const stats = { docs: docs(list), segments: { count: segmentCount(list) }, search: engine.cursors.stats(list), sorted_runs: runs(c, engine.runsHeld(list)) };
      return { primaries: stats, total: stats };
    };
    /** A shard's own figures, as `level=shards` lists them under its one copy. */
    const shardStats = (shard: ShardSnapshot) => ({
      routing: { state: 'STARTED', primary: true, node: NODE_ID, relocating_node: null },
      docs: shardDocs(shard),
      segments: { count: shard.segments.length },
      sorted_runs: runs(c, engine.runs.held(shard.segments.map((live) => live.segment))),
    });
    const primaries = indices.reduce((n, i) => n + i.shards.length, 0);
    const copies = indices.reduce((n, i) => n + i.shards.length * (1 + i.settings.numberOfReplicas), 0);
    return send(c, 200, {
      _shards: { total: copies, successful: primaries, failed: 0 },
      _all: indices.length > 0 ? section(indices) : { primaries: {}, total: {} },
      ...(level !== 'cluster' && {
        indices: Object.fromEntries(
          indices.map((i) => [
            i.name,
            {
              uuid: i.uuid,
              health: indexHealth(i),
              status: 'open',
              ...section([i]),
              ...(level === 'shards' && { shards: Object.fromEntries(i.snapshot().shards.map((shard) => [String(shard.shard), [shardStats(shard)]])) }),
            },
          ]),
        ),
      }),
    });
  };
  app.get('/_stats', indexStats);
  app.get('/:index/_stats', indexStats);
  return app;
}

/** Documents searches see (ES counts refreshed documents), and deleted ones still in segments. */
function docs(indices: readonly SearchIndex[]): { count: number; deleted: number } {
  let count = 0, deleted = 0;
  for (const index of indices) {
    for (const shard of index.snapshot().shards) {
      const figures = shardDocs(shard);
      count += figures.count;
      deleted += figures.deleted;
    }
  }
  return { count, deleted };
}

/** Segments the indices' shards hold, as searches see them. */
function segmentCount(indices: readonly SearchIndex[]): number {
  let count = 0;
  for (const index of indices) for (const shard of index.snapshot().shards) count += shard.segments.length;
  return count;
}

function shardDocs(shard: ShardSnapshot): { count: number; deleted: number } {
  let count = 0, deleted = 0;
  for (const live of shard.segments) {
    count += live.segment.count - live.deletedCount;
    deleted += live.deletedCount;
  }
  return { count, deleted };
}

/** `x_in_bytes` fields preceded by `x` in ES's readable form (`11.4mb`, `0b`: byte-size.ts). */
function withHumanSizes(stats: Record<string, number>): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [key, value] of Object.entries(stats)) {
    if (key.endsWith('_in_bytes')) out[key.slice(0, -'_in_bytes'.length)] = formatByteSize(value);
    out[key] = value;
  }
  return out;
}
