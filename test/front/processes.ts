/**
 * Real server processes for the front's tests: clusters (`npm start`'s server on a temporary data
 * directory) and fronts (the same server with `-E front.hosts=…`), each on a free port, every one
 * killed by {@link killAll}; and a raw HTTP exchange that keeps the answer's bytes and header lines
 * as sent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { tempDir } from '../engine/helpers.ts';
import { NODE_FLAGS, SERVER_ENTRY } from '../e2e/server-process.ts';

const children = new Set<ChildProcess>();
const removals: (() => void)[] = [];

export interface Started {
  child: ChildProcess;
  url: string;
  /** All it wrote on stderr so far. */
  log(): string;
}

/** `npm start`'s server with these `-E` arguments and environment, once it listens. */
export async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const { dir, remove } = tempDir();
  removals.push(remove);
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_ENTRY, ...args], {
    env: { ...process.env, DEEPPAGE_DATA: dir, PORT: '0', DEEPPAGE_SEED: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${log}`)));
  });
  return { child, url, log: () => log };
}

/** `npm start`'s server as it exits: its code and its log (for refusals to start). */
export async function refusal(args: string[]): Promise<{ code: number | null; log: string }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_ENTRY, ...args], { env: { ...process.env, PORT: '0', DEEPPAGE_SEED: 'false' }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let log = '';
  child.stderr!.on('data', (chunk) => (log += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, log };
}

export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/** Kills every process started here and removes their data; for `afterAll`. */
export async function killAll(): Promise<void> {
  await Promise.all([...children].map(kill));
  children.clear();
  removals.splice(0).forEach((remove) => remove());
}

export interface Exchange {
  status: number;
  statusMessage: string;
  /** The header lines as received, names as sent. */
  rawHeaders: string[];
  body: Buffer;
}

/** One request with exactly these header lines; `body` as given, or as chunks (sent chunked, no length). */
export function exchange(url: string, method: string, path: string, headers: string[] = [], body?: string | Buffer | (string | Buffer)[]): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const framing = body === undefined ? [] : Array.isArray(body) ? ['Transfer-Encoding', 'chunked'] : ['Content-Length', String(Buffer.byteLength(body))];
    // Headers given as a list are sent as they are: Node adds no Host then.
    const lines = ['Host', target.host, ...headers, ...framing];
    const req = request(target, { method, headers: lines, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

/** An answer's end-to-end header lines, in order, names lower-cased; Date aside (two answers are seconds apart). */
export function endToEndLines({ rawHeaders }: Exchange): string[] {
  const lines: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!HOP_BY_HOP.has(name) && name !== 'date') lines.push(`${name}: ${rawHeaders[i + 1]}`);
  }
  return lines;
}
