/**
 * `npm start`'s entry point as a real child process on a free port, for the tests that are about
 * processes: kill -9, restarts, start-up refusals. Call {@link killServers} after each file.
 *
 * That entry point is the compiled server, dist/server.js (test/global-setup.ts compiles it from
 * the sources before any test file runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { startCommand } from '../../scripts/start-command.ts';

export interface ServerProcess {
  child: ChildProcess;
  /** The URL the server announces; rejects with its stderr if it exits first. */
  url: Promise<string>;
  /** How it ended, with all it wrote on stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Every server process the tests start, so that none outlives its file. */
const children = new Set<ChildProcess>();

/** What `npm start` runs (package.json): its node flags, then the compiled server. */
export const { flags: NODE_FLAGS, entry: SERVER_ENTRY } = startCommand();

/** `args` follow the entry point, as `npm start -- …` passes them (`-E name=value`). */
export function serverProcess(dataDir: string, args: readonly string[] = []): ServerProcess {
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_ENTRY, ...args], {
    env: { ...process.env, DEEPPAGE_DATA: dataDir, PORT: '0', DEEPPAGE_SEED: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr }));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`server exited early: ${stderr}`)));
  });
  // A refusal test awaits `exited` only; its `url` rejects unobserved.
  url.catch(() => {});
  return { child, url, exited };
}

/** Runs `work` against the real server on `dataDir`, then kills it with SIGKILL (at the latest after 30 s). */
export async function killedAfter(dataDir: string, work: (url: string) => Promise<void>): Promise<void> {
  const { child, url, exited } = serverProcess(dataDir);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    await work(await url);
    child.kill('SIGKILL');
    await exited;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Kills every server process still running; for `afterAll`. */
export function killServers(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}
