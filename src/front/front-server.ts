/**
 * deeppage in front of an Elasticsearch or OpenSearch cluster (`-E front.hosts=…`): no data
 * directory, no corpus, no documents of its own; its port answers every request through the cluster
 * (pass-through.ts). What it shares with the engine's server is the body limit
 * (`http.max_content_length`); credentials are not checked here: the client's own go to the cluster,
 * which decides (docs/front-mode.md).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FrontSettings } from '../engine/node-settings.ts';
import { ClusterHosts } from './cluster-hosts.ts';
import { passThrough } from './pass-through.ts';

export interface FrontOptions {
  front: FrontSettings;
  maxBodyBytes: number;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

export interface RunningFront {
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, then drops the cluster connections. */
  close(): Promise<void>;
}

export async function startFront({ front, maxBodyBytes, host = '127.0.0.1', port = 9200 }: FrontOptions): Promise<RunningFront> {
  let hosts: ClusterHosts;
  try {
    hosts = new ClusterHosts(front);
  } catch (error) {
    // A refusal to start is one line (server.ts).
    throw error instanceof Error ? new Error(`deeppage: ${error.message}`) : error;
  }
  const server = createServer(passThrough({ hosts, headers: front.headers, maxBodyBytes }));
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
      hosts.close();
    },
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
