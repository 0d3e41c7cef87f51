/**
 * The deeppage server: storage in a data directory, the engine rebuilt from it, the HTTP API on a
 * socket. `npm start` runs this file; tests call {@link startServer} on a free port.
 */
import { serve, type ServerType } from '@hono/node-server';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Engine } from './engine/engine.ts';
import { reportLoopDelayOnSignal } from './event-loop-delay.ts';
import { watchIdleMemory } from './idle-memory.ts';
import { parseNodeSettings } from './engine/node-settings.ts';
import { isFrontSecureSetting } from './front/front-credentials.ts';
import { startFront } from './front/front-server.ts';
import { createApp } from './http/app.ts';
import { Authenticator } from './http/auth/authenticator.ts';
import { loadCredentials } from './http/auth/credentials.ts';
import { securityMode } from './http/auth/security-mode.ts';
import { progressBar, type Progress } from './progress.ts';
import { CITIES_INDEX, seedCities } from './seed/cities.ts';
import { openDataDir, SEEDING_MARKER } from './store/data-dir.ts';

export { SEEDING_MARKER };

export interface ServerOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Load the cities into an empty data directory (the default for `npm start`). */
  seed?: boolean;
  /** Show progress bars and log lines. */
  verbose?: boolean;
  /** Node settings by ES name (`-E name=value`), e.g. `indices.sorted_runs.cache.size`. */
  settings?: Record<string, string>;
  /** Credential lines, as `DEEPPAGE_CREDENTIALS` carries them: the file's format (src/http/auth/credentials.ts), added to the file's. */
  credentials?: string;
}

export interface RunningServer {
  url: string;
  engine: Engine;
  /** Stops accepting connections, lets in-flight requests finish, then closes storage. */
  close(): Promise<void>;
}

export async function startServer({ dataDir, host = '127.0.0.1', port = 9200, seed = false, verbose = false, settings, credentials }: ServerOptions): Promise<RunningServer> {
  const nodeSettings = parseNodeSettings(settings);
  if (nodeSettings.front) throw new Error('deeppage: front.* settings start the front (src/front/front-server.ts), not a server with its own data');
  // Decided before the data directory is touched: a server that must not start leaves nothing behind.
  const accepted = loadCredentials(nodeSettings.credentialsFile, credentials);
  const security = securityMode(host, nodeSettings.securityEnabled, accepted);
  if (!security.on && security.warning) console.error(security.warning);
  if (verbose && security.on) console.error(`deeppage: security on: ${accepted.users.size} user(s), ${accepted.apiKeys.size} API key(s)`);
  // Refuses, with a one-line DataDirError, a directory that is not deeppage's or that another server holds.
  const data = openDataDir(dataDir);
  const store = data.store;
  // The marker lives while the default corpus loads: if it is there at start, that load was cut short.
  const marker = join(dataDir, SEEDING_MARKER);
  const fresh = data.fresh || existsSync(marker);
  const bars = new Map<string, Progress>();
  const engine = Engine.open(store, {
    settings: nodeSettings,
    progress: verbose ? (index, done, total) => {
      if (total < 10_000) return;
      const bar = bars.get(index) ?? bars.set(index, progressBar(`loading ${index}`, total)).get(index)!;
      bar.update(done);
      if (done === total) bar.stop();
    } : undefined,
  });
  if (seed && fresh) {
    if (verbose) console.error(`deeppage: first start on ${dataDir}, loading the default corpus (cities)`);
    writeFileSync(marker, '');
    if (engine.has(CITIES_INDEX)) await engine.deleteIndices(CITIES_INDEX);
    await seedCities(engine, verbose ? (total) => progressBar('indexing cities', total) : undefined);
    rmSync(marker);
  }
  const app = createApp({ engine, maxBodyBytes: nodeSettings.httpMaxContentLength, authenticator: security.on ? new Authenticator(accepted) : undefined });
  const server = await listen(app.fetch, host, port).catch(async (error) => {
    await engine.close().finally(() => data.release());
    throw error;
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    url,
    engine,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      });
      await engine.close();
      data.release();
    },
  };
}

function listen(fetch: Parameters<typeof serve>[0]['fetch'], hostname: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname, port }, () => resolve(server));
    server.once('error', reject);
  });
}

/** `-E name=value` and `-Ename=value` arguments, as Elasticsearch takes node settings on its command line. */
export function settingsFromArgs(args: readonly string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] === '-E' ? args[++i] : args[i].startsWith('-E') ? args[i].slice(2) : undefined;
    const at = arg?.indexOf('=') ?? -1;
    if (arg === undefined || at <= 0) throw new Error(`deeppage: expected -E name=value, got ${args[i] ?? 'nothing'}`);
    const name = arg.slice(0, at), value = arg.slice(at + 1);
    // A secure setting's values are never shown; settings parsing refuses it from -E anyway.
    if (name in settings) throw new Error(`deeppage: setting [${name}] already set${isFrontSecureSetting(name) ? '' : `, saw [${settings[name]}] and [${value}]`}`);
    settings[name] = value;
  }
  return settings;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let settings: Record<string, string>;
  let nodeSettings: ReturnType<typeof parseNodeSettings>;
  try {
    settings = settingsFromArgs(process.argv.slice(2));
    // The environment's path, unless the command line names one.
    if (process.env.DEEPPAGE_CREDENTIALS_FILE && !('xpack.security.authc.file.path' in settings)) settings['xpack.security.authc.file.path'] = process.env.DEEPPAGE_CREDENTIALS_FILE;
    nodeSettings = parseNodeSettings(settings);
  } catch (error) {
    console.error(error instanceof Error ? (error.message.startsWith('deeppage') ? error.message : `deeppage: ${error.message}`) : error);
    process.exit(1);
  }
  // Memory a burst of work leaves behind goes back once the node is idle for a second (idle-memory.ts):
  // watched from before the start, whose loading of segments is such a burst.
  watchIdleMemory({ log: (line) => console.error(line) });
  let running: Pick<RunningServer, 'url' | 'close'>;
  const host = process.env.HOST ?? '127.0.0.1', port = Number(process.env.PORT ?? 9200);
  try {
    // In front mode (docs/front-mode.md) no data directory is opened and nothing is seeded: the port serves the cluster's indices.
    if (nodeSettings.front) running = await startFront({ front: nodeSettings.front, maxBodyBytes: nodeSettings.httpMaxContentLength, runsBudgetBytes: nodeSettings.sortedRunsCacheBytes, host, port });
    else running = await startServer({
      settings,
      credentials: process.env.DEEPPAGE_CREDENTIALS,
      dataDir: process.env.DEEPPAGE_DATA ?? './data',
      host,
      port,
      seed: process.env.DEEPPAGE_SEED !== 'false',
      verbose: true,
    });
  } catch (error) {
    // A refusal to start is one line; anything else keeps its stack.
    console.error(error instanceof Error && error.message.startsWith('deeppage') ? error.message : error);
    process.exit(1);
  }
  console.error(`deeppage listening on ${running.url}${nodeSettings.front ? ` (in front of ${nodeSettings.front.hosts.map((url) => url.origin + url.pathname).join(', ')})` : ''}`);
  // SIGUSR2 prints the event-loop delay since the last one (event-loop-delay.ts).
  reportLoopDelayOnSignal();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`deeppage: ${signal}, finishing in-flight requests and closing storage`);
    await running.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
