/**
 * The load check: `npm run reliability -- load [--seconds 60] [--connections 100] [--warmup 60]
 * [--bulk-docs 1000] [--out bench/results] [--cpu-prof DIR] [--trace-gc]`.
 *
 * Starts the real server as a child process (bench/lib/child-server.ts) on a fresh temporary data
 * directory, which loads the default corpus (the cities, 5 shards, `max_result_window` 200,000),
 * warms it up with the mix of load-mix.ts and the bulk loader of ingest-stream.ts beside it, then
 * runs both for the measured window and reports:
 * requests, errors (answers not expected, connection errors, timeouts), throughput, latency
 * p50/p99/max, the server's RSS and RssAnon (/proc/<pid>/status) at the window's start and end, and
 * the server's own event-loop delay over the window (SIGUSR2, src/event-loop-delay.ts). Afterwards
 * the server must still answer, and answer right: the pages of large cities as before the load, and
 * exactly the documents the load's acknowledged writes left, and every city the bulk loader sent.
 *
 * Writes `reliability-load.json` and `reliability-load.md` to the output directory; exits 1 if any
 * error, a wrong answer afterwards, or a stall of the loop longer than {@link MAX_LOOP_DELAY_MS}.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { quantile } from '../../bench/lib/format.ts';
import { esOk } from '../../bench/lib/es-client.ts';
import { REPO_ROOT, startDeeppage, type ChildServer } from '../../bench/lib/child-server.ts';
import { LOOP_DELAY_LINE, RESOLUTION_MS, type LoopDelay } from '../../src/event-loop-delay.ts';
import { CITIES_INDEX, CITIES_WINDOW } from '../../src/seed/cities.ts';
import { checkIngest, DEFAULT_BULK_DOCS, INGEST_INDEX, startIngest, type IngestFigures } from './ingest-stream.ts';
import { errorCount, LOAD_COUNTRY, LOAD_IDS, runMix, WriteLedger, type MixFigures, type MixTarget } from './load-mix.ts';

/**
 * No callback may hold the server's loop longer than this, in ms. The histogram records the time
 * between two ticks of its timer, so a stall of this long reads up to {@link RESOLUTION_MS} more.
 */
export const MAX_LOOP_DELAY_MS = 50;
const GC_PAUSE_SHOWN_MS = 15;

/** Whether a `--trace-gc` line reports a pause of at least {@link GC_PAUSE_SHOWN_MS}. */
function longPause(line: string): boolean {
  const pause = /(?:Scavenge|Mark-Compact|Mark-sweep)\b.*? MB, ([\d.]+) \/ [\d.]+ ms/.exec(line);
  return pause !== null && Number(pause[1]) >= GC_PAUSE_SHOWN_MS;
}
const SEED = 20261122;

export interface LoadCheckOptions {
  seconds: number;
  connections: number;
  warmupSeconds: number;
  log(line: string): void;
  /** Profile the server (`node --cpu-prof`) into this directory. */
  cpuProfDir?: string;
  /** Log the server's garbage-collection pauses over {@link GC_PAUSE_SHOWN_MS} (`node --trace-gc`), to set against the stalls. */
  traceGc?: boolean;
  /** Cities per `_bulk` of the bulk loader (ingest-stream.ts). */
  bulkDocs?: number;
}

export interface Latency {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * Resident memory from /proc/<pid>/status, in MiB: all of it, and the anonymous part (JS heap,
 * wasm memory; not LMDB's mapped file); and the live JS heap, after a full collection.
 */
export interface Memory {
  rss_mib: number;
  rss_anon_mib: number;
  heap_used_mib: number;
}

export interface LoadReport {
  corpus: string;
  connections: number;
  seconds: number;
  warmup_seconds: number;
  requests: number;
  errors: number;
  /** The bulk loader's requests over the window (ingest-stream.ts), of `bulk_docs` cities each; its failures count among `errors`. */
  ingest: IngestFigures;
  bulk_docs: number;
  /** Unexpected answers by kind, and connection errors (timeouts are counted among them). */
  error_detail: { unexpected: Record<string, number>; connection_errors: number; timeouts: number; samples: string[] };
  throughput: { requests_per_second: number; per_second_min: number; per_second_median: number };
  latency: Latency;
  by_kind: Record<string, Latency & { requests: number }>;
  memory: { start: Memory; end: Memory };
  event_loop_delay: LoopDelay;
  /** Ids the load wrote (warm-up included), those its acknowledged writes left live, and those a write without an answer touched. */
  writes: { ids_written: number; live_at_end: number; without_answer: number };
  /** What was wrong with the server's answers after the load (empty: all right). */
  after: string[];
  server_exit: { code: number | null; signal: string | null };
  machine: { node: string; platform: string };
}

export async function runLoadCheck(options: LoadCheckOptions): Promise<LoadReport> {
  const { log } = options;
  log(`starting the server (a fresh data directory with the cities)`);
  const server = await startDeeppage({
    seed: true,
    log,
    // --expose-gc: the server measures its live heap after a full collection (event-loop-delay.ts).
    nodeArgs: ['--expose-gc', ...(options.traceGc ? ['--trace-gc'] : []), ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [])],
  });
  const delays = loopDelays(server);
  if (options.traceGc) server.onLine((line) => longPause(line) && log(`gc: ${line.trim().slice(0, 240)}`));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  try {
    const target: MixTarget = { url: server.url, index: CITIES_INDEX, window: CITIES_WINDOW };
    const before = await pagesOfLargeCities(server.url);
    const initial = await count(server.url);
    const ledger = new WriteLedger();
    const ingest = await startIngest(server.url, options.bulkDocs);

    log(`warm-up: ${options.warmupSeconds} s at ${options.connections} connections, and a bulk loader`);
    const warmup = await runMix(target, { connections: options.connections, seconds: options.warmupSeconds, seed: SEED, ledger });
    const warmupIngest = ingest.figures();

    // The signal that starts the measured window also measures the heap the warm-up left.
    const memoryStart = memoryOf(server.pid, await delays.next());
    log(`measuring: ${options.seconds} s at ${options.connections} connections, and a bulk loader`);
    const run = await runMix(target, { connections: options.connections, seconds: options.seconds, seed: SEED + 1, ledger });
    const ingested = ingest.figures();
    const delay = await delays.next();
    const memoryEnd = memoryOf(server.pid, delay);
    await ingest.stop();

    log('checking the answers after the load');
    const after = [...(await checkAfter(server.url, before, initial, ledger)), ...(await checkIngest(server.url, ingest))];
    const warmupErrors = errorCount(warmup) + warmupIngest.failed;
    if (warmupErrors > 0) after.push(`${warmupErrors} errors during the warm-up: ${[...warmup.samples, warmupIngest.first_failure ?? ''].join(' | ')}`);
    exit = await server.stop();
    if (exit.code !== 0) after.push(`the server did not exit cleanly on SIGTERM (code ${exit.code}, signal ${exit.signal})`);
    return report(options, run, ingested, { start: memoryStart, end: memoryEnd }, delay, ledger, after, exit);
  } finally {
    if (!exit) await server.stop();
  }
}

/** The event-loop delay line the server prints on SIGUSR2, one at a time. */
function loopDelays(server: ChildServer): { next(): Promise<LoopDelay> } {
  let waiting: ((delay: LoopDelay) => void) | undefined;
  server.onLine((line) => {
    if (!line.startsWith(LOOP_DELAY_LINE) || !waiting) return;
    waiting(JSON.parse(line.slice(LOOP_DELAY_LINE.length)) as LoopDelay);
    waiting = undefined;
  });
  return {
    next: () =>
      new Promise<LoopDelay>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the server did not print its event-loop delay within 10 s of SIGUSR2')), 10_000);
        waiting = (delay) => {
          clearTimeout(timer);
          resolve(delay);
        };
        process.kill(server.pid, 'SIGUSR2');
      }),
  };
}

function memoryOf(pid: number, { heap_used_mib }: LoopDelay): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mib = (value: number) => Math.round((value / 1024) * 10) / 10;
  return { rss_mib: mib(kb('VmRSS')), rss_anon_mib: mib(kb('RssAnon')), heap_used_mib };
}

interface Page {
  ids: string[];
}

/** The first page and the page at 1,000 by population: the load's documents (population < 500) never reach them. */
async function pagesOfLargeCities(url: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (const from of [0, 1000]) {
    const { body } = await esOk<{ hits: { hits: { _id: string }[] } }>(url, 'GET', `/${CITIES_INDEX}/_search?size=10&from=${from}&sort=population:desc`);
    pages.push({ ids: body.hits.hits.map((hit) => hit._id) });
  }
  return pages;
}

async function count(url: string, q?: string): Promise<number> {
  const { body } = await esOk<{ count: number }>(url, 'GET', `/${CITIES_INDEX}/_count${q ? `?q=${encodeURIComponent(q)}` : ''}`);
  return body.count;
}

/** The server answers, pages as before, and holds exactly what the acknowledged writes left. */
async function checkAfter(url: string, before: Page[], initial: number, ledger: WriteLedger): Promise<string[]> {
  const wrong: string[] = [];
  const root = await esOk<{ tagline?: string }>(url, 'GET', '/');
  if (root.body.tagline !== 'You Know, for Search') wrong.push(`GET / answered ${JSON.stringify(root.body)}`);
  // Writes the run cut off are still committing. Batches commit and apply in order, so once a write
  // sent now is answered, every one before it is in memory: a delete of a missing id changes nothing else.
  const barrier = await esOk<{ result: string }>(url, 'DELETE', `/${CITIES_INDEX}/_doc/load-barrier`, undefined, { status: 404 });
  if (barrier.body.result !== 'not_found') wrong.push(`DELETE of a missing document answered ${JSON.stringify(barrier.body)}`);
  await esOk(url, 'POST', `/${CITIES_INDEX}/_refresh`);
  const pages = await pagesOfLargeCities(url);
  pages.forEach((page, i) => {
    if (page.ids.join() !== before[i].ids.join()) wrong.push(`page ${i} of large cities changed: ${before[i].ids.join()} -> ${page.ids.join()}`);
  });
  const found = async (id: string) => {
    const res = await fetch(`${url}/${CITIES_INDEX}/_doc/${id}`);
    await res.arrayBuffer();
    if (res.status !== 200 && res.status !== 404) wrong.push(`GET ${id} answered ${res.status}`);
    return res.status === 200;
  };
  // Writes the run cut off may or may not have happened: a real-time GET says which, and searches must agree.
  const uncertain = ledger.uncertain();
  let live = ledger.live().length;
  for (const id of uncertain) if (await found(id)) live++;
  const loaded = await count(url, `country:${LOAD_COUNTRY}`);
  if (loaded !== live) wrong.push(`${loaded} load documents searchable, but the acknowledged writes left ${live} (${uncertain.length} ids written without an answer)`);
  const total = await count(url);
  if (total !== initial + live) wrong.push(`_count is ${total}, expected ${initial} + ${live}`);
  const liveSet = new Set(ledger.live()), uncertainSet = new Set(uncertain);
  for (let i = 0; i < LOAD_IDS; i += 97) {
    const id = `load-${i}`;
    if (uncertainSet.has(id)) continue;
    if ((await found(id)) !== liveSet.has(id)) wrong.push(`GET ${id} found it ${!liveSet.has(id)}, but the acknowledged writes left it ${liveSet.has(id) ? 'live' : 'missing'}`);
  }
  return wrong;
}

function latencyOf(sorted: Float64Array): Latency {
  const round = (ms: number) => Math.round(ms * 100) / 100;
  if (sorted.length === 0) return { p50_ms: NaN, p99_ms: NaN, max_ms: NaN };
  return { p50_ms: round(quantile(sorted, 0.5)), p99_ms: round(quantile(sorted, 0.99)), max_ms: round(sorted[sorted.length - 1]) };
}

function report(options: LoadCheckOptions, run: MixFigures, ingest: IngestFigures, memory: LoadReport['memory'], delay: LoopDelay, ledger: WriteLedger, after: string[], exit: { code: number | null; signal: NodeJS.Signals | null }): LoadReport {
  const requests = run.latencies.length;
  const byKind: LoadReport['by_kind'] = {};
  for (const kind of [...new Set(run.kinds)].sort()) {
    const of = Float64Array.from(run.latencies.filter((_, i) => run.kinds[i] === kind)).sort();
    byKind[kind] = { requests: of.length, ...latencyOf(of) };
  }
  const perSecond = new Float64Array(Math.max(1, Math.floor(run.seconds)));
  for (const at of run.at) if (at / 1000 < perSecond.length) perSecond[Math.floor(at / 1000)]++;
  perSecond.sort();
  return {
    corpus: `the cities (${CITIES_INDEX}, 5 shards, max_result_window ${CITIES_WINDOW}), plus the load's own writes to ${LOAD_IDS} ids`,
    connections: options.connections,
    seconds: Math.round(run.seconds * 10) / 10,
    warmup_seconds: options.warmupSeconds,
    requests,
    errors: errorCount(run) + ingest.failed,
    ingest,
    bulk_docs: options.bulkDocs ?? DEFAULT_BULK_DOCS,
    error_detail: { unexpected: run.unexpected, connection_errors: run.connectionErrors, timeouts: run.timeouts, samples: run.samples },
    throughput: { requests_per_second: Math.round(requests / run.seconds), per_second_min: perSecond[0], per_second_median: quantile(perSecond, 0.5) },
    latency: latencyOf(run.latencies.slice().sort()),
    by_kind: byKind,
    memory,
    event_loop_delay: delay,
    writes: { ids_written: ledger.size, live_at_end: ledger.live().length, without_answer: ledger.uncertain().length },
    after,
    server_exit: exit,
    machine: { node: process.version, platform: `${process.platform} ${process.arch}` },
  };
}

/** Whether the check passed, and why not. */
export function verdict(report: LoadReport): string[] {
  const failures: string[] = [];
  if (report.errors > 0) failures.push(`${report.errors} errors`);
  const stall = Math.round((report.event_loop_delay.max_ms - RESOLUTION_MS) * 100) / 100;
  if (stall > MAX_LOOP_DELAY_MS) failures.push(`the event loop was held up to ${stall} ms (limit ${MAX_LOOP_DELAY_MS} ms)`);
  failures.push(...report.after);
  return failures;
}

function markdown(report: LoadReport, failures: string[]): string {
  const rows = Object.entries(report.by_kind).map(([kind, k]) => `| ${kind} | ${k.requests} | ${k.p50_ms} | ${k.p99_ms} | ${k.max_ms} |`);
  const { start, end } = report.memory;
  const d = report.event_loop_delay;
  return [
    '# Load check',
    '',
    `${report.seconds} s of mixed searches and writes at ${report.connections} connections and a bulk loader beside them, after a ${report.warmup_seconds} s warm-up, on ${report.corpus}.`,
    `Node ${report.machine.node}, ${report.machine.platform}. Verdict: ${failures.length === 0 ? '**pass**' : `**fail**: ${failures.join('; ')}`}.`,
    '',
    '| figure | value |',
    '| --- | ---: |',
    `| requests | ${report.requests} |`,
    `| bulk loader (${INGEST_INDEX}, ${report.bulk_docs.toLocaleString('en')} cities a request, one at a time) | ${report.ingest.bulks} bulks, ${report.ingest.docs} documents, ${report.ingest.docs_per_second} docs/s, latency p50 / p99 / max ${report.ingest.latency.p50_ms} / ${report.ingest.latency.p99_ms} / ${report.ingest.latency.max_ms} ms, ${report.ingest.failed} failed |`,
    `| errors | ${report.errors} |`,
    `| throughput | ${report.throughput.requests_per_second} req/s (per second: min ${report.throughput.per_second_min}, median ${report.throughput.per_second_median}) |`,
    `| latency p50 / p99 / max | ${report.latency.p50_ms} / ${report.latency.p99_ms} / ${report.latency.max_ms} ms |`,
    `| RSS start → end | ${start.rss_mib} → ${end.rss_mib} MiB |`,
    `| RssAnon start → end | ${start.rss_anon_mib} → ${end.rss_anon_mib} MiB |`,
    `| live JS heap start → end (after a full collection) | ${start.heap_used_mib} → ${end.heap_used_mib} MiB |`,
    `| event-loop delay p50 / p99 / max (time between ticks of a ${RESOLUTION_MS} ms timer) | ${d.p50_ms} / ${d.p99_ms} / ${d.max_ms} ms (${d.count} samples) |`,
    `| longest stall (max − ${RESOLUTION_MS} ms) | ${Math.round((d.max_ms - RESOLUTION_MS) * 100) / 100} ms (limit ${MAX_LOOP_DELAY_MS} ms) |`,
    `| stalls over 30 ms (s after the server started: ms held) | ${d.stalls.map((s) => `${s.at_s}: ${s.ms}`).join(', ') || 'none'} |`,
    `| load documents written / live at the end (acknowledged) / written without an answer | ${report.writes.ids_written} / ${report.writes.live_at_end} / ${report.writes.without_answer} |`,
    '',
    '| request | answers | p50 ms | p99 ms | max ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}

/** The command line: returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '60' },
      connections: { type: 'string', default: '100' },
      // State the load builds up (deleted ids remembered for 60 s, as ES's index.gc_deletes; caches
      // filling to their caps) levels off after about 80 s of this mix: memory is compared after that.
      warmup: { type: 'string', default: '60' },
      'bulk-docs': { type: 'string', default: String(DEFAULT_BULK_DOCS) },
      out: { type: 'string', default: join(REPO_ROOT, 'bench/results') },
      'cpu-prof': { type: 'string' },
      'trace-gc': { type: 'boolean', default: false },
    },
  });
  const number = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${value}`);
    return n;
  };
  const log = (line: string) => console.error(`load: ${line}`);
  const result = await runLoadCheck({
    seconds: number('seconds', values.seconds!),
    connections: number('connections', values.connections!),
    warmupSeconds: number('warmup', values.warmup!),
    bulkDocs: number('bulk-docs', values['bulk-docs']!),
    traceGc: values['trace-gc'],
    cpuProfDir: values['cpu-prof'],
    log,
  });
  const failures = verdict(result);
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(join(values.out!, 'reliability-load.json'), JSON.stringify(result, null, 2) + '\n');
  const md = markdown(result, failures);
  writeFileSync(join(values.out!, 'reliability-load.md'), md);
  console.log(md);
  return failures.length === 0 ? 0 : 1;
}
