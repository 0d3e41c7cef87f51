/**
 * Servers under load run as child processes, so that the load generator (autocannon, in this
 * process) and the server do not share a core.
 *
 * A child prints `... listening on <url>` to stderr once it listens. Its output is drained into a
 * short tail (a full pipe would stall it) and shown only when something fails. Every child is
 * stopped by {@link ChildServer.stop}, and, should this process exit without that, killed on exit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCommand } from '../../scripts/start-command.ts';

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** The child's data directory (removed by `stop` if the child made it). */
  dataDir?: string;
  /** Logs `why` and, the first time only, the child's last lines of output. */
  report(why: string): void;
  /** Calls `listener` with each later line the child writes on stdout or stderr. */
  onLine(listener: (line: string) => void): void;
  /** SIGTERM, wait for the exit (SIGKILL after STOP_MS), remove the data directory; resolves with how it ended. Idempotent. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ChildOptions {
  name: string;
  /** The script, relative to the repository root; TypeScript runs with `node --import tsx`, JavaScript with `node`. */
  script: string;
  env: Record<string, string>;
  /** Node flags before the script's (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** The script's own arguments (deeppage's `-E name=value` settings). */
  args?: string[];
  /**
   * The child's data directory, passed as DEEPPAGE_DATA: `true` for a fresh temporary one (removed by
   * `stop`), or a path to start on (kept: a restart on the same data).
   */
  dataDir?: boolean | string;
  /** How long to wait for the listening line, in ms. */
  startMs: number;
  log(line: string): void;
}

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LISTENING = /listening on (https?:\/\/\S+)/;
const TAIL_LINES = 40;
const STOP_MS = 15_000;

let compiled = false;

/**
 * The real deeppage server on a free port and an empty temporary data directory: what `npm start`
 * runs, the compiled dist/server.js, compiled first if the sources changed since
 * (scripts/build-server.mjs, as `npm start`'s prestart does).
 */
export function startDeeppage(options: { seed: boolean; log(line: string): void; dataDir?: string; nodeArgs?: string[]; args?: string[] }): Promise<ChildServer> {
  if (!compiled) {
    execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
    compiled = true;
  }
  return startChild({
    name: 'deeppage',
    script: startCommand().entry,
    env: { DEEPPAGE_SEED: String(options.seed) },
    nodeArgs: options.nodeArgs,
    args: options.args,
    dataDir: options.dataDir ?? true,
    // Seeding the cities takes about 5 s here; leave room for a slow machine.
    startMs: 180_000,
    log: options.log,
  });
}

/** The framework ceiling: bench/http/hello-server.ts. */
export function startHello(log: (line: string) => void): Promise<ChildServer> {
  return startChild({ name: 'hello-world', script: 'bench/http/hello-server.ts', env: {}, startMs: 30_000, log });
}

/** Runs `use` with a started child; the child's output is logged if `use` fails, and the child is always stopped. */
export async function withChild<T>(start: Promise<ChildServer>, use: (child: ChildServer) => Promise<T>): Promise<T> {
  const child = await start;
  try {
    return await use(child);
  } catch (error) {
    child.report(`${child.name} (pid ${child.pid}) was in use when the run failed`);
    throw error;
  } finally {
    await child.stop();
  }
}

export async function startChild(options: ChildOptions): Promise<ChildServer> {
  const owned = options.dataDir === true;
  const dataDir = typeof options.dataDir === 'string' ? options.dataDir : owned ? mkdtempSync(join(tmpdir(), `deeppage.bench-${options.name}-`)) : undefined;
  // With `npm start`'s node flags (package.json: a 64 MB young generation, since a page of 10,000
  // hits makes many short-lived objects); every child gets them, the hello-world ceiling too.
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const proc = spawn(process.execPath, [...startCommand().flags, ...(options.nodeArgs ?? []), ...loader, options.script, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...(dataDir && { DEEPPAGE_DATA: dataDir }), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = outputTail(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
    proc.once('error', () => resolve({ code: null, signal: null }));
  });
  live.add(proc);
  if (dataDir && owned) liveDirs.add(dataDir);

  let shown = false;
  const report = (why: string) => {
    options.log(shown ? `${why} (its output is above)` : `${why}; its last lines of output:\n${tail.text()}`);
    shown = true;
  };
  let stopped: ReturnType<ChildServer['stop']> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      const running = proc.exitCode === null && proc.signalCode === null;
      if (running) proc.kill('SIGTERM');
      const timer = running ? setTimeout(() => proc.kill('SIGKILL'), STOP_MS) : undefined;
      const { code, signal } = await exited;
      clearTimeout(timer);
      if (!running) report(`${options.name} (pid ${proc.pid}) had exited by itself (code ${code}, signal ${signal})`);
      else if (code !== 0) report(`${options.name} (pid ${proc.pid}) did not exit cleanly on SIGTERM (code ${code}, signal ${signal})`);
      live.delete(proc);
      if (dataDir && owned) {
        rmSync(dataDir, { recursive: true, force: true });
        liveDirs.delete(dataDir);
      }
      return { code, signal };
    })());

  try {
    const url = await listeningUrl(proc, tail, exited, options.startMs);
    return { name: options.name, url, pid: proc.pid!, dataDir, report, onLine: tail.onLine, stop };
  } catch (error) {
    report(`${options.name} did not start: ${(error as Error).message}`);
    await stop();
    throw new Error(`${options.name} did not start: ${(error as Error).message}`);
  }
}

interface Tail {
  text(): string;
  /** Called with each new line. */
  onLine(listener: (line: string) => void): void;
}

/** Drains stdout and stderr, keeping the last TAIL_LINES lines. */
function outputTail(proc: ChildProcess): Tail {
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split(/\r?\n|\r/);
      partial = parts.pop()!;
      for (const line of parts) {
        if (line.length === 0) continue;
        lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
        if (lines.length > TAIL_LINES) lines.shift();
        for (const listener of listeners) listener(line);
      }
    });
  }
  return { text: () => lines.map((line) => `  | ${line}`).join('\n'), onLine: (listener) => listeners.push(listener) };
}

function listeningUrl(proc: ChildProcess, tail: Tail, exited: Promise<{ code: number | null }>, startMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  return new Promise<string>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no listening line within ${startMs / 1000} s`)), startMs);
    proc.once('error', (error) => reject(error));
    void exited.then(({ code }) => reject(new Error(`exited with code ${code} before listening`)));
    tail.onLine((line) => {
      const match = LISTENING.exec(line);
      if (match) resolve(match[1]);
    });
  }).finally(() => clearTimeout(timer));
}

// The safety net: children still running when this process exits without stopping them (an
// uncaught error, process.exit, Ctrl-C) are killed, and their data directories removed.
const live = new Set<ChildProcess>();
const liveDirs = new Set<string>();
function killAll(): void {
  for (const proc of live) proc.kill('SIGKILL');
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal); // the default action, now that this listener is gone
  });
}
