/**
 * `GET /_nodes` (node info): the parts of Elasticsearch's answer that describe one deeppage node
 * truly. Kibana, OpenSearch Dashboards and the clients' sniffers read `version` and
 * `http.publish_address` here; the address is the one the request reached. There is no JVM, no
 * transport layer, no plugins: `jvm`, `thread_pool` and `transport` are left out, `plugins` and
 * `modules` are empty.
 */
import { arch, availableParallelism, release, type } from 'node:os';
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { illegalArgument } from '../../engine/errors.ts';
import { describeNode, NODE_ID } from '../../engine/node.ts';
import { incomingOf } from '../request-body.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { ES_VERSION, VERSION } from '../version.ts';

const PARAMS = new Set([...RESPONSE_PARAMS, 'flat_settings', 'master_timeout', 'timeout']);
/** ES's node info metrics (`NodesInfoMetrics.Metric`). */
const METRICS = ['settings', 'os', 'process', 'jvm', 'thread_pool', 'transport', 'http', 'remote_cluster_server', 'plugins', 'ingest', 'aggregations', 'indices'];

export function nodeRoutes(engine: Engine, clusterName: string): Hono {
  const app = new Hono();
  const info = (c: Context) => {
    checkParamNames(queryOf(c), pathOf(c), PARAMS);
    // `/_nodes/{x}` is a metric list when every part names a metric, else node selectors (as ES reads it).
    const first = c.req.param('nodes');
    const firstIsMetrics = first !== undefined && c.req.param('metrics') === undefined && commaList(first).every((m) => METRICS.includes(m) || m === '_all');
    const selectors = first === undefined || firstIsMetrics ? ['_all'] : commaList(first);
    const metrics = firstIsMetrics ? commaList(first!) : c.req.param('metrics') === undefined ? ['_all'] : commaList(c.req.param('metrics')!);
    const unknown = metrics.find((m) => m !== '_all' && !METRICS.includes(m));
    if (unknown) throw illegalArgument(`request [${pathOf(c)}] contains unrecognized metric: [${unknown}]`);
    const self = describeNode();
    const selected = selectors.some((s) => s === '_all' || s === '_local' || s === NODE_ID || s === self.name || s === '*' || s === '_master' || s === 'master:true' || s === 'data:true');
    if (!selected) return send(c, 200, { _nodes: { total: 0, successful: 0, failed: 0 }, cluster_name: clusterName, nodes: {} });
    const wants = (metric: string) => metrics.includes('_all') || metrics.includes(metric);
    const socket = incomingOf(c)?.socket;
    const address = socket?.localAddress ? `${socket.localAddress.includes(':') ? `[${socket.localAddress}]` : socket.localAddress}:${socket.localPort}` : undefined;
    return send(c, 200, {
      _nodes: { total: 1, successful: 1, failed: 0 },
      cluster_name: clusterName,
      nodes: {
        [NODE_ID]: {
          ...self,
          // Node info shows the bare address (`_nodes/stats` and `_tasks` show it with the port).
          ip: self.host,
          version: ES_VERSION,
          build_flavor: 'default',
          build_type: `deeppage-${VERSION}`,
          build_hash: 'unknown',
          attributes: {},
          ...(wants('settings') && { settings: { cluster: { name: clusterName }, node: { name: self.name }, search: { paging: engine.settings.searchPaging } } }),
          ...(wants('os') && { os: { refresh_interval_in_millis: 1000, name: type(), arch: arch(), version: release(), available_processors: availableParallelism(), allocated_processors: availableParallelism() } }),
          ...(wants('process') && { process: { refresh_interval_in_millis: 1000, id: process.pid, mlockall: false } }),
          ...(wants('http') && { http: { ...(address && { bound_address: [address], publish_address: address }), max_content_length_in_bytes: engine.settings.httpMaxContentLength } }),
          ...(wants('plugins') && { plugins: [], modules: [] }),
          ...(wants('ingest') && { ingest: { processors: [] } }),
        },
      },
    });
  };
  app.get('/_nodes', info);
  app.get('/_nodes/:nodes', info);
  app.get('/_nodes/:nodes/:metrics', info);
  return app;
}
