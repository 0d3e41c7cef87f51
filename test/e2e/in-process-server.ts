/**
 * The real server in this process, on a free loopback port and a fresh temporary data directory,
 * with the official client pointed at it: started before a file's tests and always shut down after
 * them (the server, the client, the directory).
 *
 * @example
 * const running = inProcessServer(async (client) => { await client.indices.create({ index: 'x' }); });
 * it('…', async () => { await running.client.search({ index: 'x' }); });
 */
import { Client } from '@elastic/elasticsearch';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

export interface InProcessServer {
  readonly server: RunningServer;
  readonly client: Client;
}

/** `settings` are node settings by name, as `-E name=value` gives them. */
export function inProcessServer(setup?: (client: Client, server: RunningServer) => Promise<void>, settings?: Record<string, string>): InProcessServer {
  let server: RunningServer | undefined;
  let client: Client | undefined;
  let removeDir: (() => void) | undefined;
  beforeAll(async () => {
    const { dir, remove } = tempDir();
    removeDir = remove;
    server = await startServer({ dataDir: dir, port: 0, settings });
    client = new Client({ node: server.url });
    await setup?.(client, server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    removeDir?.();
  });
  return {
    get server() {
      return server!;
    },
    get client() {
      return client!;
    },
  };
}
