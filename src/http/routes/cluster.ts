/** `GET /` (node info, as clients and tools probe it) and `GET /_cluster/health`. */
import { Hono } from 'hono';
import { hostname } from 'node:os';
import type { Engine } from '../../engine/engine.ts';
import { send } from '../respond.ts';
import { ES_VERSION, VERSION } from '../version.ts';

export function clusterRoutes(engine: Engine, clusterName: string): Hono {
  const app = new Hono();
  // Asked of the OS once: every client's first request is this one.
  const name = hostname();
  app.get('/', (c) =>
    send(c, 200, {
      name,
      cluster_name: clusterName,
      cluster_uuid: 'deeppage',
      version: {
        number: ES_VERSION,
        build_flavor: 'default',
        build_type: `deeppage-${VERSION}`,
        build_hash: 'unknown',
        build_date: '2026-11-22T00:00:00.000Z',
        build_snapshot: false,
        lucene_version: 'none',
        // Elasticsearch 8.19's own.
        minimum_wire_compatibility_version: '7.17.0',
        minimum_index_compatibility_version: '7.0.0',
      },
      tagline: 'You Know, for Search',
    }),
  );
  app.get('/_cluster/health', (c) => {
    const indices = engine.indices();
    const primaries = indices.reduce((n, i) => n + i.settings.numberOfShards, 0);
    const unassigned = indices.reduce((n, i) => n + i.settings.numberOfShards * i.settings.numberOfReplicas, 0);
    return send(c, 200, {
      cluster_name: clusterName,
      // One node holds every primary; replicas have nowhere to go, which ES reports as yellow.
      status: unassigned > 0 ? 'yellow' : 'green',
      timed_out: false,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: primaries,
      active_shards: primaries,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: unassigned,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: primaries + unassigned === 0 ? 100 : (100 * primaries) / (primaries + unassigned),
    });
  });
  return app;
}
