/**
 * deeppage in front of an Elasticsearch or OpenSearch cluster (`-E front.hosts=…`): no data
 * directory, no corpus, no documents of its own; its port answers every request through the cluster
 * (pass-through.ts). What it shares with the engine's server is the body limit
 * (`http.max_content_length`); credentials are not checked here: the client's own go to the cluster,
 * which decides (docs/front-mode.md).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wasmKernels } from '../core/index.ts';
import { ClusterCalls } from './cluster-calls.ts';
import { ClusterHosts } from './cluster-hosts.ts';
import { readClusterKind } from './cluster-kind.ts';
import { frontRoutes } from './front-routes.ts';
import type { FrontSettings } from './front-settings.ts';
import type { Distribution } from './rank/point-in-time.ts';
import { RankIndices } from './rank/rank-indices.ts';
import { ResultWindows } from './rank/result-windows.ts';

export interface FrontOptions {
  front: FrontSettings;
  maxBodyBytes: number;
  /** `indices.sorted_runs.cache.size`: the memory the rank indices' keys share. */
  runsBudgetBytes: number;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

export interface RunningFront {
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, then drops the cluster connections. */
  close(): Promise<void>;
}

export async function startFront({ front, maxBodyBytes, runsBudgetBytes, host = '127.0.0.1', port = 9200 }: FrontOptions): Promise<RunningFront> {
  let hosts: ClusterHosts;
  try {
    hosts = new ClusterHosts(front);
  } catch (error) {
    // A refusal to start is one line (server.ts).
    throw error instanceof Error ? new Error(`deeppage: ${error.message}`) : error;
  }
  const calls = new ClusterCalls(hosts, front.headers);
  const housekeeping = front.credentials?.authorization;
  const windows = new ResultWindows();
  const distribution = distributionOf(calls, housekeeping);
  const indices = new RankIndices(
    { calls, kernels: wasmKernels(), budgetBytes: runsBudgetBytes, refreshIntervalMs: front.refreshIntervalMs, maxOpenPits: front.maxOpenPits, windows, housekeeping },
    distribution,
  );
  const server = createServer(frontRoutes({ hosts, headers: front.headers, maxBodyBytes, calls, indices, windows, distribution }));
  await listen(server, host, port).catch((error) => {
    hosts.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await indices.close();
      hosts.close();
    },
  };
}

/**
 * The cluster's dialect, read from its `GET /` the first time it is needed (again after a failure):
 * with the front's own credentials when it has them, else with the headers of the client whose
 * search needs it.
 */
function distributionOf(calls: ClusterCalls, authorization: string | undefined): (client: readonly string[]) => Promise<Distribution> {
  let known: Promise<Distribution> | undefined;
  return (client) => {
    known ??= readClusterKind(async (path, headers) => {
      const answer = await calls.call('housekeeping', 'GET', path, authorization === undefined ? client : Object.entries(headers).flat());
      return { status: answer.status, body: answer.text };
    }, authorization).then(
      (kind) => kind.distribution,
      (error: unknown) => {
        known = undefined;
        throw error;
      },
    );
    return known;
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
