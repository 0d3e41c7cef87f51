/**
 * The suite's two kinds of process, both `npm start`'s compiled server (bench/lib/child-server.ts):
 *
 * - the stand-in cluster: an empty data directory and `-E search.paging=top_k`, so every search,
 *   `search_after` included, is Elasticsearch's algorithm (each shard's top from + size), and the
 *   default `index.max_result_window` of 10,000;
 * - a front before it: `-E front.hosts=<cluster>`, and `front.refresh_interval` long enough that no
 *   rank index is rebuilt under a timed run (left out, and said so, if the front does not take it).
 *
 * And the front's own endpoints, `GET /_front/stats` and `POST /_front/_refresh`, read as "not
 * available" (undefined, false) while the front does not answer them itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild, startDeeppage, type ChildServer } from '../lib/child-server.ts';
import type { Connection } from './client.ts';

export function startCluster(log: (line: string) => void): Promise<ChildServer> {
  return startDeeppage({ seed: false, log, args: ['-E', 'search.paging=top_k'] });
}

/** The plain Node proxy before the cluster (plain-proxy-server.ts): the floor of a hop, for the pass-through probes. */
export function startPlainProxy(clusterUrl: string, log: (line: string) => void): Promise<ChildServer> {
  return startChild({ name: 'plain-proxy', script: 'bench/front/plain-proxy-server.ts', env: { CLUSTER_URL: clusterUrl }, startMs: 30_000, log });
}

/** Long enough for a whole run: the rank index timed warm is the one built first. */
const REFRESH_INTERVAL = '1h';

export interface Front {
  server: ChildServer;
  /** The `-E` settings it was started with. */
  settings: string[];
}

export async function startFront(clusterUrl: string, log: (line: string) => void): Promise<Front> {
  const hosts = ['-E', `front.hosts=${clusterUrl}`];
  const settings = [...hosts, '-E', `front.refresh_interval=${REFRESH_INTERVAL}`];
  try {
    return { server: await startDeeppage({ seed: false, log: () => undefined, args: settings }), settings };
  } catch {
    log(`  the front refused front.refresh_interval=${REFRESH_INTERVAL}; started with front.hosts only`);
    return { server: await startDeeppage({ seed: false, log, args: hosts }), settings: hosts };
  }
}

/** `GET /_front/stats` as the brief of issue 38 states it. */
export interface FrontStats {
  rank_indices: { count: number; documents: number; bytes: number; builds: number; build_time_in_millis: number; building: number };
  open_pits: number;
  /** By purpose (walk, page, count, check, …) and in all. */
  cluster_requests: { total: number; check?: number };
}

/** The front's stats, or undefined when it does not answer `/_front/stats` itself (the request passed through). */
export async function frontStats(front: Connection): Promise<FrontStats | undefined> {
  const answer = await front.send({ method: 'GET', path: '/_front/stats' });
  if (answer.status !== 200) return undefined;
  const stats = JSON.parse(answer.body) as Partial<FrontStats>;
  return typeof stats.rank_indices?.count === 'number' ? (stats as FrontStats) : undefined;
}

/** `POST /_front/_refresh`; false when the front does not answer it itself. */
export async function refreshFront(front: Connection): Promise<boolean> {
  const answer = await front.send({ method: 'POST', path: '/_front/_refresh' });
  return answer.status === 200;
}

const POLL_MS = 50;

/**
 * Waits until `ready(stats)` holds, reading the stats every 50 ms; resolves with those stats, or
 * undefined once `timeoutMs` has gone by (or when there are no stats).
 */
export async function waitFor(front: Connection, ready: (stats: FrontStats) => boolean, timeoutMs: number): Promise<FrontStats | undefined> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const stats = await frontStats(front);
    if (stats === undefined) return undefined;
    if (ready(stats)) return stats;
    if (performance.now() > until) return undefined;
    await sleep(POLL_MS);
  }
}

/**
 * Waits until the front is quiet: no rank index building, and no request of its own to the cluster
 * (`cluster_requests.total` the same) for QUIET_MS. A build the front has stopped counting (a refresh
 * that dropped it from the stats while its walk goes on) still loads the cluster, and a timed page
 * must not share the cluster with it. False after `timeoutMs`, or when there are no stats.
 */
export async function quiet(front: Connection, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  let last: number | undefined;
  for (;;) {
    const stats = await frontStats(front);
    if (stats === undefined) return false;
    const total = stats.rank_indices.building === 0 ? ownRequests(stats) : undefined;
    if (total !== undefined && total === last) return true;
    last = total;
    if (performance.now() > until) return false;
    await sleep(QUIET_MS);
  }
}

const QUIET_MS = 1000;

/** The front's cluster requests but its `check`s: reading `/_front/stats` asks the cluster whether the caller may. */
function ownRequests(stats: FrontStats): number {
  return stats.cluster_requests.total - (stats.cluster_requests.check ?? 0);
}

export const warmed = (stats: FrontStats) => stats.rank_indices.count >= 1 && stats.rank_indices.building === 0;
