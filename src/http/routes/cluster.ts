/** `GET /` (node info, as clients and tools probe it) and `GET /_cluster/health`. */
import { Hono } from 'hono';
import { hostname } from 'node:os';
import type { Engine } from '../../engine/engine.ts';
import { badRequest, illegalArgument } from '../../engine/errors.ts';
import type { IndicesOptions } from '../../engine/index-names.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import { RawJson } from '../../engine/raw-json.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions } from '../../engine/request/indices-options.ts';
import { booleanParam } from '../../engine/booleans.ts';
import { clusterLevel } from '../../engine/request/request-values.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { parseActiveShardCount } from '../../engine/request/write-params.ts';
import { indexHealth } from '../health.ts';
import { ES_VERSION, OPENSEARCH_VERSION, VERSION } from '../version.ts';
import type { Distribution } from '../../engine/node-settings.ts';

/**
 * `local` and `master_timeout` concern asking the elected master, which this node is: they are
 * checked and change nothing. `timeout` bounds the waits.
 */
const HEALTH_PARAMS = new Set([
  ...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, 'level', 'local', 'master_timeout', 'timeout', 'wait_for_status', 'wait_for_nodes',
  'wait_for_active_shards', 'wait_for_events', 'wait_for_no_relocating_shards', 'wait_for_no_initializing_shards',
]);

/** ES's default for health: every index, hidden ones too, and none missing is an error. */
const LENIENT_EXPAND_HIDDEN: IndicesOptions = { ignoreUnavailable: true, allowNoIndices: true, expandOpen: true, expandHidden: true };

/** How often a health request with unmet waits looks again, in ms. */
const HEALTH_POLL_MS = 50;

/** `GET /` takes the parameters every response does, and no others. */
const ROOT_PARAMS = new Set(RESPONSE_PARAMS);

const STATUSES = ['green', 'yellow', 'red'] as const;
type Status = (typeof STATUSES)[number];
const PRIORITIES = ['IMMEDIATE', 'URGENT', 'HIGH', 'NORMAL', 'LOW', 'LANGUID'];

export function clusterRoutes(engine: Engine, clusterName: string): Hono {
  const app = new Hono();
  // Made and encoded once (the host name asked of the OS once): every client's first request is this one.
  const root = new RawJson(Buffer.from(JSON.stringify(rootInfo(engine.settings.distribution, clusterName))));
  app.get('/', (c) => {
    checkParamNames(queryOf(c), pathOf(c), ROOT_PARAMS);
    return send(c, 200, root);
  });
  app.get('/_cluster/health', async (c) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), HEALTH_PARAMS);
    const level = clusterLevel(query.level, 'cluster');
    for (const name of ['local', 'wait_for_no_relocating_shards', 'wait_for_no_initializing_shards']) booleanParam(query[name], false);
    if (query.master_timeout !== undefined) timeValueMs('master_timeout', query.master_timeout);
    const timeoutMs = query.timeout === undefined ? 30_000 : timeValueMs('timeout', query.timeout);
    const options = indicesOptions(query, LENIENT_EXPAND_HIDDEN);
    const met = healthWaits(query);
    let health = clusterHealth(engine.resolve(undefined, options));
    // The cluster changes only as indices come, go or change their replicas: look again until the
    // waits are met or the timeout passes, then answer as ES does (`timed_out`, 408).
    for (const deadline = Date.now() + timeoutMs; !met(health) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(HEALTH_POLL_MS, deadline - Date.now())));
      health = clusterHealth(engine.resolve(undefined, options));
    }
    const timedOut = !met(health);
    return send(c, timedOut ? 408 : 200, {
      cluster_name: clusterName,
      status: health.status,
      timed_out: timedOut,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: health.active_primary_shards,
      active_shards: health.active_shards,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: health.unassigned_shards,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: health.active_shards_percent_as_number,
      ...(level !== 'cluster' && { indices: Object.fromEntries(health.indices.map(({ name, shards, ...index }) => [name, level === 'shards' ? { ...index, shards } : index])) }),
    });
  });
  return app;
}

interface Health {
  status: Status;
  active_primary_shards: number;
  active_shards: number;
  unassigned_shards: number;
  active_shards_percent_as_number: number;
  /** Per index, as `level=indices` shows it, with its shards for `level=shards`. */
  indices: ({ name: string; shards: Record<string, unknown> } & Record<string, unknown>)[];
}

/** One node holds every primary; replicas have nowhere to go, which ES reports as yellow. */
function clusterHealth(indices: readonly SearchIndex[]): Health {
  let primaries = 0, unassigned = 0;
  const perIndex = indices.map((index) => {
    const { numberOfShards: shards, numberOfReplicas: replicas } = index.settings;
    primaries += shards;
    unassigned += shards * replicas;
    const status: Status = indexHealth(index);
    const shardHealth = { status, primary_active: true, active_shards: 1, relocating_shards: 0, initializing_shards: 0, unassigned_shards: replicas };
    return {
      name: index.name,
      status,
      number_of_shards: shards,
      number_of_replicas: replicas,
      active_primary_shards: shards,
      active_shards: shards,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: shards * replicas,
      shards: Object.fromEntries(index.shards.map((shard) => [String(shard.number), shardHealth])),
    };
  });
  return {
    status: unassigned > 0 ? 'yellow' : 'green',
    active_primary_shards: primaries,
    active_shards: primaries,
    unassigned_shards: unassigned,
    active_shards_percent_as_number: primaries + unassigned === 0 ? 100 : (100 * primaries) / (primaries + unassigned),
    indices: perIndex,
  };
}

/**
 * The `wait_for_*` conditions as one test of a health, checked as ES parses them. Those about
 * nodes, pending tasks, relocating and initializing shards hold at once on one node; status and
 * active shards hold or not as the indices are.
 */
function healthWaits(query: Record<string, string | undefined>): (health: Health) => boolean {
  const tests: ((health: Health) => boolean)[] = [];
  if (query.wait_for_status !== undefined) {
    const wanted = query.wait_for_status.toLowerCase() as Status;
    if (!STATUSES.includes(wanted)) throw illegalArgument(`No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.${query.wait_for_status.toUpperCase()}`);
    tests.push((health) => STATUSES.indexOf(health.status) <= STATUSES.indexOf(wanted));
  }
  if (query.wait_for_active_shards !== undefined) {
    const count = parseActiveShardCount(query.wait_for_active_shards);
    tests.push((health) => (count === Infinity ? health.unassigned_shards === 0 : health.active_shards >= count));
  }
  if (query.wait_for_nodes !== undefined && query.wait_for_nodes !== '') {
    const nodes = nodesTest(query.wait_for_nodes);
    tests.push(() => nodes(1));
  }
  if (query.wait_for_events !== undefined && !PRIORITIES.includes(query.wait_for_events.toUpperCase())) {
    throw illegalArgument(`No enum constant org.elasticsearch.common.Priority.${query.wait_for_events.toUpperCase()}`);
  }
  return (health) => tests.every((test) => test(health));
}

/** `wait_for_nodes`: `N`, `>=N`, `<=N`, `>N`, `<N`, or `ge(N)`, `le(N)`, `gt(N)`, `lt(N)`. */
function nodesTest(spec: string): (nodes: number) => boolean {
  const match = /^(>=|<=|>|<|ge\(|le\(|gt\(|lt\()?\s*(\d+)\)?$/.exec(spec.trim());
  if (!match || (match[1]?.endsWith('(') ?? false) !== spec.trim().endsWith(')')) throw badRequest('number_format_exception', `For input string: "${spec}"`);
  const n = Number(match[2]);
  switch (match[1]) {
    case '>=': case 'ge(': return (nodes) => nodes >= n;
    case '<=': case 'le(': return (nodes) => nodes <= n;
    case '>': case 'gt(': return (nodes) => nodes > n;
    case '<': case 'lt(': return (nodes) => nodes < n;
    default: return (nodes) => nodes === n;
  }
}

/**
 * What `GET /` answers: the node and the version of the product deeppage answers as. Tools pick
 * their requests by `version.number`, and by `version.distribution`, which only OpenSearch sends.
 */
function rootInfo(distribution: Distribution, clusterName: string): Record<string, unknown> {
  const build = { build_type: `deeppage-${VERSION}`, build_hash: 'unknown', build_date: '2026-11-22T00:00:00.000Z', build_snapshot: false, lucene_version: 'none' };
  const opensearch = distribution === 'opensearch';
  return {
    name: hostname(),
    cluster_name: clusterName,
    cluster_uuid: 'deeppage',
    // The compatibility versions are Elasticsearch 8.19's own, or OpenSearch 2.19's.
    version: opensearch
      ? { distribution, number: OPENSEARCH_VERSION, ...build, minimum_wire_compatibility_version: '7.10.0', minimum_index_compatibility_version: '7.0.0' }
      : { number: ES_VERSION, build_flavor: 'default', ...build, minimum_wire_compatibility_version: '7.17.0', minimum_index_compatibility_version: '7.0.0' },
    tagline: opensearch ? 'The OpenSearch Project: https://opensearch.org/' : 'You Know, for Search',
  };
}
