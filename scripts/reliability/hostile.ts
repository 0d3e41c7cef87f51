/**
 * The hostile-input check, `npm run reliability -- hostile [--requests 5000] [--seed N] [--out bench/results]`:
 * the real server as a child process, a fixture index, and a seeded run of generated malformed and
 * hostile requests over every route (./hostile/requests.ts) sent one after another on a real
 * socket, `.` and `..` segments and slow bodies included. Every answer must be below 500, carry the
 * product header, and be in Elasticsearch's error shape when it is a 4xx (./hostile/check.ts); the
 * fixture must read the same afterwards; the server must still answer, and stop cleanly on SIGTERM.
 *
 * A failure is printed with the request that caused it; `--seed` replays the same run.
 */
import { Agent } from 'node:http';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { startDeeppage, type ChildServer } from '../../bench/lib/child-server.ts';
import { problemWith } from './hostile/check.ts';
import { fixtureSnapshot, loadFixture, type Send } from './hostile/fixture.ts';
import { distinctFailures, type Failure } from './hostile/report.ts';
import { hostileRequest } from './hostile/requests.ts';
import { sendRequest } from './hostile/socket.ts';
import { finish } from './summary.ts';

/** The body limit the server runs with: small, so that bodies over it are cheap to send. */
const MAX_BODY = 64 * 1024;
/** A request the server has not answered in this long counts as a failure. */
const ANSWER_MS = 30_000;

export interface HostileSummary {
  check: 'hostile';
  seed: number;
  requests: number;
  /** Answers by status class ("2xx", "4xx", ...), and requests Node's client would not send (a header it cannot write). */
  statuses: Record<string, number>;
  /** Requests made for each route. */
  routes: Record<string, number>;
  /** The figure: distinct failures (a 5xx, a missing header, a 4xx not in ES's shape, no answer), goal 0. */
  failures: string[];
  problems: string[];
  server_exit: { code: number | null; signal: NodeJS.Signals | null };
}

/** The command line: returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { requests: { type: 'string', default: '5000' }, seed: { type: 'string' }, out: { type: 'string', default: 'bench/results' } } });
  const requests = Number(values.requests);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed)) {
    console.error('usage: npm run reliability -- hostile [--requests N>0] [--seed N] [--out dir]');
    return 2;
  }
  const started = performance.now();
  const log = (line: string) => console.log(line);
  const summary = await runHostileCheck({ requests, seed, log });
  log(`${summary.requests} requests (seed ${seed}) over ${Object.keys(summary.routes).length} routes: ${Object.entries(summary.statuses).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  log(`distinct failures: ${summary.failures.length}`);
  for (const failure of summary.failures.slice(0, 20)) log(`  ${failure}`);
  return finish({ ...summary, problems: [...summary.failures, ...summary.problems] }, values.out!, started, log);
}

export async function runHostileCheck({ requests, seed, log }: { requests: number; seed: number; log(line: string): void }): Promise<HostileSummary> {
  const server = await startDeeppage({ seed: false, log, args: ['-E', `http.max_content_length=${MAX_BODY}b`] });
  const problems: string[] = [];
  const statuses: Record<string, number> = {};
  const routes: Record<string, number> = {};
  const failures: Failure[] = [];
  let exit: HostileSummary['server_exit'] = { code: null, signal: null };
  try {
    const send = fetchSend(server);
    const targets = { ...(await loadFixture(send)), dotSegments: true, maxBodyBytes: MAX_BODY };
    const before = await fixtureSnapshot(send);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let sent = 0;
    for (const request of fc.sample(hostileRequest(targets), { numRuns: requests, seed })) {
      routes[request.route] = (routes[request.route] ?? 0) + 1;
      try {
        const answer = await sendRequest(server.url, request, { agent, timeoutMs: ANSWER_MS });
        const status = `${Math.floor(answer.status / 100)}xx`;
        statuses[status] = (statuses[status] ?? 0) + 1;
        const problem = problemWith(request.method, request.target, answer);
        if (problem) failures.push({ request, status: answer.status, problem, body: answer.body });
      } catch (error) {
        const message = (error as Error).message;
        // Node's client refuses to write some generated headers; such a request never left.
        if (/Invalid character in header|Invalid header value|Invalid HTTP token|Request path contains unescaped/i.test(message)) statuses['not sent'] = (statuses['not sent'] ?? 0) + 1;
        else failures.push({ request, status: 'none', problem: `no answer: ${message}`, body: '' });
      }
      if (++sent % 1000 === 0) log(`${sent} / ${requests} requests, ${failures.length} failures`);
    }
    agent.destroy();
    if ((await send('GET', '/')).status !== 200) problems.push('GET / no longer answers 200');
    const after = await fixtureSnapshot(send);
    after.forEach((line, i) => line !== before[i] && problems.push(`the fixture changed: was ${before[i].slice(0, 200)}, now ${line.slice(0, 200)}`));
  } finally {
    exit = await server.stop();
  }
  if (exit.code !== 0) problems.push(`the server did not exit cleanly on SIGTERM (code ${exit.code}, signal ${exit.signal})`);
  return { check: 'hostile', seed, requests, statuses, routes, failures: distinctFailures(failures), problems, server_exit: exit };
}

function fetchSend(server: ChildServer): Send {
  return async (method, target, body) => {
    const contentType = target.includes('_bulk') ? 'application/x-ndjson' : 'application/json';
    const res = await fetch(`${server.url}${target}`, { method, headers: { 'content-type': contentType }, body });
    return { status: res.status, body: await res.text() };
  };
}
