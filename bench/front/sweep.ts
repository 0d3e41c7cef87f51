/**
 * The from sweep of one index and sort, size 10, on a fresh front before the stand-in cluster:
 *
 * 1. the front is asked a page at from > 0: an answer with `X-Deeppage-Page` starts its rank index
 *    in the background, one without it means the acceleration is not there (the front columns are
 *    then "not available", and only the cluster is timed);
 * 2. the warm state: `GET /_front/stats` polled until a rank index is built and none is building;
 *    its documents, bytes and build time are read then, before anything else is built;
 * 3. every page checked: the cluster's (the data set's sort values at every rank, or its 400 past
 *    the window; its search_after page the same hits) and the front's (the same, and within the
 *    window the cluster's very hits);
 * 4. per from, in rounds side by side (bench/front/rounds.ts), after 10 untimed passes over every
 *    depth that warm all of them up: the cluster's from/size, the one `search_after` a warm page
 *    asks of the cluster (asked directly in the key walk's point in time), and the warm front;
 * 5. per from, cold pages, each the first request at that depth on a front without a rank index.
 *
 * A front page that is wrong is not timed: its cell says why.
 */
import type { Timing } from '../lib/measure.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, Call, Connection } from './client.ts';
import { withFront, type FrontProcess } from './front-process.ts';
import { searchAfterCall, type Positions } from './key-walk.ts';
import { frontMark, isWindowRefusal, namesPage, pageCall, pageDifference, readPage, type Page, type SortKey } from './pages.ts';
import { inRounds, summary, type Measured, type RoundBudget } from './rounds.ts';
import { frontStats, quiet, refreshFront, waitFor, warmed, type FrontStats } from './servers.ts';

/** Untimed passes over every depth before the warm rounds. */
const WARMUP_PASSES = 10;

export interface SweepJob {
  clusterUrl: string;
  cluster: Connection;
  index: string;
  shards: number;
  key: SortKey;
  /** The cluster's own point in time and positions, for the page a warm rank index asks, asked directly. */
  positions?: Positions;
  froms: number[];
  size: number;
  rounds: RoundBudget;
  coldSamples: number;
  /** Past this long on a depth's cold pages (ms), the depth gets no more. */
  coldBudgetMs: number;
  /** How long a rank index may take to build, in ms. */
  buildTimeoutMs: number;
  log(line: string): void;
}

/** A series at a point: measured, or why not (`refused`, `not available: …`, `wrong answer: …`). */
export type Cell = { measured: Measured } | { missing: string };

export interface ColdSeries {
  timing: Timing;
  states: Record<string, number>;
  clusterRequests: number[];
}

export interface PointResult {
  from: number;
  cluster: Cell;
  /** The cluster's `search_after` in its own point in time from rank from − 1: what a warm page asks of it. */
  searchAfter: Cell;
  warm: Cell;
  cold: { measured: ColdSeries } | { missing: string };
  /**
   * Past the window: the cluster's own from/size with `index.max_result_window` raised to let it
   * (what applications do instead of a front), a few pages after an untimed one.
   */
  raised: { measured: Timing } | { missing: string };
}

export interface RankIndexFigures {
  documents: number;
  bytes: number;
  builds: number;
  /** `build_time_in_millis` of the stats. */
  buildMs: number;
  /** From the request that started the build to the stats showing it built, in ms. */
  wallMs: number;
}

export interface SweepResult {
  label: string;
  index: string;
  shards: number;
  docs: number;
  key: SortKey;
  size: number;
  points: PointResult[];
  /** Why the front columns are not available, when they are not. */
  unavailable?: string;
  rankIndex: RankIndexFigures | { missing: string };
  frontSettings: string[];
  /** How the cold pages were brought about. */
  coldMethod: string;
}

const NOT_ACCELERATED = 'the front passed the page through (no X-Deeppage-Page header): no acceleration';

export async function sweepFront(job: SweepJob): Promise<SweepResult> {
  const { key, size, log } = job;
  const label = `${job.index}, ${job.shards} shards, sort ${key.label}`;
  return withFront(job.clusterUrl, log, async (front) => {
    // 1. Is the page accelerated? (A from > 0 so that a rank index is started.)
    const trigger = pageCall(job.index, key, Math.min(10, job.froms.find((f) => f > 0) ?? 10), size);
    const triggered = performance.now();
    const first = await front.connection.send(trigger);
    const accelerated = frontMark(first.headers).page !== undefined;
    const unavailable = accelerated ? undefined : NOT_ACCELERATED;
    log(`  ${label}: ${accelerated ? `the front accelerates the page (X-Deeppage-Page: ${frontMark(first.headers).page})` : unavailable}`);

    // 2. The warm state.
    let rankIndex: SweepResult['rankIndex'] = { missing: `not available: ${unavailable}` };
    if (accelerated) {
      const ready = await waitFor(front.connection, warmed, job.buildTimeoutMs);
      const wallMs = performance.now() - triggered;
      rankIndex = ready ? figures(ready, wallMs) : await missingStats(front.connection, job.buildTimeoutMs);
      if (ready) await quiet(front.connection, job.buildTimeoutMs);
      // Without the stats, the page's own X-Deeppage-Page says when its rank index is there.
      if (!ready && (await frontStats(front.connection)) === undefined && !(await answersWarm(front.connection, trigger, job.buildTimeoutMs))) {
        log(`  the page at from ${JSON.parse(trigger.body!).from} did not answer warm within ${job.buildTimeoutMs / 1000} s`);
      }
      if ('documents' in rankIndex) log(`  rank index: ${rankIndex.documents} documents, ${rankIndex.bytes} bytes, built in ${rankIndex.buildMs} ms (${(wallMs / 1000).toFixed(1)} s from the first request)`);
      else log(`  rank index: ${rankIndex.missing}`);
    }

    // 3. Every page checked.
    const checked = new Map<number, { cluster: Page | 'refused'; searchAfter?: Page; front?: Page | string }>();
    for (const from of job.froms) {
      const call = pageCall(job.index, key, from, size);
      const direct = await job.cluster.send(call);
      let cluster: Page | 'refused';
      if (isWindowRefusal(direct)) cluster = 'refused';
      else {
        const page = readPage(direct, key, from, size);
        if (typeof page === 'string') throw new WrongAnswer(`the cluster: ${call.path} ${call.body}: ${page}`);
        cluster = page;
      }
      let searchAfter: Page | undefined;
      if (job.positions) {
        const after = searchAfterCall(job.positions, key, from, size);
        const page = readPage(await job.cluster.send(after), key, from, size);
        if (typeof page === 'string') throw new WrongAnswer(`the cluster: search_after in its point in time from rank ${from - 1}: ${page}`);
        const differs = cluster !== 'refused' && pageDifference(page, cluster);
        if (differs) throw new WrongAnswer(`the cluster: search_after in its point in time from rank ${from - 1}: ${differs} of its from/size`);
        searchAfter = page;
      }
      let frontPage: Page | string | undefined;
      if (accelerated) {
        const answer = await front.connection.send(call);
        frontPage = readPage(answer, key, from, size);
        if (typeof frontPage !== 'string' && cluster !== 'refused') frontPage = pageDifference(frontPage, cluster) ?? frontPage;
        if (typeof frontPage === 'string') log(`  from=${from}: the front's page is wrong: ${frontPage}`);
      }
      checked.set(from, { cluster, searchAfter, front: frontPage });
    }

    // 4. The cluster and the warm front, in rounds, once every process is warm: WARMUP_PASSES untimed
    // passes over every depth first (the first depth timed would otherwise pay for the JIT).
    for (let pass = 0; pass < WARMUP_PASSES; pass++) {
      for (const from of job.froms) {
        const call = pageCall(job.index, key, from, size);
        const { cluster, searchAfter, front: frontPage } = checked.get(from)!;
        if (cluster !== 'refused') await job.cluster.send(call);
        if (searchAfter) await job.cluster.send(searchAfterCall(job.positions!, key, from, size));
        if (typeof frontPage === 'object') await front.connection.send(call);
      }
    }
    const points: PointResult[] = [];
    for (const from of job.froms) {
      const call = pageCall(job.index, key, from, size);
      const { cluster, searchAfter, front: frontPage } = checked.get(from)!;
      const contenders = [];
      if (cluster !== 'refused') contenders.push({ name: 'cluster', connection: job.cluster, call, verify: namesPage(cluster) });
      if (searchAfter) contenders.push({ name: 'search_after', connection: job.cluster, call: searchAfterCall(job.positions!, key, from, size), verify: namesPage(searchAfter) });
      const frontOk = typeof frontPage === 'object';
      if (frontOk) contenders.push({ name: 'front', connection: front.connection, call, verify: namesPage(frontPage) });
      const measured = contenders.length > 0 ? await inRounds(contenders, job.rounds) : new Map<string, Measured>();
      const point: PointResult = {
        from,
        cluster: cluster === 'refused' ? { missing: 'refused' } : { measured: measured.get('cluster')! },
        searchAfter: searchAfter ? { measured: measured.get('search_after')! } : { missing: 'not measured' },
        warm: frontOk ? { measured: measured.get('front')! } : { missing: unavailable ? `not available: ${unavailable}` : typeof frontPage === 'string' ? `wrong answer: ${frontPage}` : 'not available: no rank index was built' },
        cold: { missing: unavailable ? `not available: ${unavailable}` : 'not measured' },
        raised: { missing: cluster === 'refused' ? 'not measured' : 'within the window' },
      };
      points.push(point);
      log(`  from=${String(from).padEnd(7)} cluster ${cellLine(point.cluster)} · search_after ${cellLine(point.searchAfter)} · front warm ${cellLine(point.warm)}`);
    }

    // 5. Cold pages.
    let coldMethod = 'not measured: the acceleration is not available';
    if (accelerated) {
      const cold = new ColdPages(front, job);
      for (const point of points) {
        const page = checked.get(point.from)!.front;
        if (typeof page === 'string') point.cold = { missing: `wrong answer: ${page}` };
        else point.cold = await cold.measure(point.from);
        log(`  from=${String(point.from).padEnd(7)} front cold ${'measured' in point.cold ? `p50 ${point.cold.measured.timing.median.toFixed(3)} ms (${point.cold.measured.timing.samples} pages)` : point.cold.missing}`);
      }
      coldMethod = cold.method();
    }

    // 6. The cluster's own from/size past its window, the window raised for each depth.
    await raisedWindow(job, points.filter((p) => 'missing' in p.cluster && p.cluster.missing === 'refused'));
    return { label, index: job.index, shards: job.shards, docs: key.ranked.length, key, size, points, unavailable, rankIndex, frontSettings: front.settings, coldMethod };
  });
}

async function answersWarm(front: Connection, call: Call, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (frontMark((await front.send(call)).headers).page === 'warm') return true;
    await sleep(200);
  }
  return false;
}

function figures(stats: FrontStats, wallMs: number): RankIndexFigures {
  const r = stats.rank_indices;
  return { documents: r.documents, bytes: r.bytes, builds: r.builds, buildMs: r.build_time_in_millis, wallMs };
}

async function missingStats(front: Connection, timeoutMs: number): Promise<{ missing: string }> {
  const stats = await frontStats(front);
  if (stats === undefined) return { missing: 'not available: GET /_front/stats is not answered by the front' };
  return { missing: `not available: no rank index built within ${timeoutMs / 1000} s (stats: ${JSON.stringify(stats.rank_indices)})` };
}

function cellLine(cell: Cell): string {
  if ('missing' in cell) return cell.missing.startsWith('not available') ? 'not available' : cell.missing;
  const { timing, states } = cell.measured;
  return `p50 ${timing.median.toFixed(3)} ms (${timing.samples} requests${states.none === timing.samples ? '' : `, ${JSON.stringify(states)}`})`;
}

/** Pages timed at each depth with the window raised, after two untimed. */
export const RAISED_SAMPLES = 3;

/**
 * Each depth's page from the cluster's own from/size, `index.max_result_window` raised to from + size
 * for it (and put back to the default after): checked against the data set, once more untimed, then timed.
 */
async function raisedWindow(job: SweepJob, points: PointResult[]): Promise<void> {
  if (points.length === 0) return;
  const settings = (window: number | null): Call => ({ method: 'PUT', path: `/${encodeURIComponent(job.index)}/_settings`, body: JSON.stringify({ index: { max_result_window: window } }) });
  try {
    for (const point of points) {
      const set = await job.cluster.send(settings(point.from + job.size));
      if (set.status !== 200) {
        point.raised = { missing: `not measured: the cluster refused the window of ${point.from + job.size}: ${set.status}` };
        continue;
      }
      const call = pageCall(job.index, job.key, point.from, job.size);
      const page = readPage(await job.cluster.send(call), job.key, point.from, job.size);
      if (typeof page === 'string') throw new WrongAnswer(`the cluster, window raised: ${call.path} ${call.body}: ${page}`);
      // One more untimed: the first page at a new window warms what the depth needs.
      await job.cluster.send(call);
      const ms: number[] = [];
      for (let i = 0; i < RAISED_SAMPLES; i++) ms.push((await job.cluster.send(call)).ms);
      point.raised = { measured: summary(ms) };
      job.log(`  from=${String(point.from).padEnd(7)} cluster, window raised p50 ${point.raised.measured.median.toFixed(3)} ms (${ms.length} pages)`);
    }
  } finally {
    await job.cluster.send(settings(null));
  }
}

/**
 * The first request at a depth on a front without a rank index: after `POST /_front/_refresh` (with
 * no build running before it), or, if the front then still answers warm or does not take the
 * refresh, on a new front process warmed up by requests that build nothing (`GET /`, `_count`, the
 * page at from 0). Each page's answer is checked against the data set; its state is what its
 * `X-Deeppage-Page` says.
 */
const SETTLE_MS = 1000;
/** The warm-up's cold page: a search of at least this many documents, paged past the window at WARM_FROM. */
const WARM_MATCHES = 15_000;
const WARM_FROM = 12_000;

class ColdPages {
  private how: 'refresh' | 'process' = 'refresh';
  private readonly switched: string[] = [];

  constructor(
    private readonly front: FrontProcess,
    private readonly job: SweepJob,
  ) {}

  method(): string {
    return this.how === 'refresh'
      ? 'once GET /_front/stats showed no build running and no cluster request made for 1 s, POST /_front/_refresh, then the page, then POST /_front/_refresh again (to drop the build the page started)'
      : `a new front process per page (the old one stopped), 1 s for the cluster to settle, then 20 × GET /, 20 × _count and 5 × the page at from 0 to warm the new process up (none builds a rank index), then one cold page of another search (the documents priced up to a bound that holds ${WARM_MATCHES.toLocaleString('en-US')} or more (all but a page's worth of a smaller data set), at from ${WARM_FROM.toLocaleString('en-US')}, under the same sort), so that the new process has run the cold path's code once, as a front up for a while has; once its rank index was built and the front quiet, the page (${this.switched.join('; ')})`;
  }

  async measure(from: number): Promise<{ measured: ColdSeries } | { missing: string }> {
    const { job } = this;
    const call = pageCall(job.index, job.key, from, job.size);
    const ms: number[] = [];
    const states: Record<string, number> = {};
    const requests: number[] = [];
    if (this.how === 'refresh' && (await frontStats(this.front.connection)) === undefined) this.switch('the front does not answer GET /_front/stats, so a build running cannot be waited for');
    const started = performance.now();
    // The budget cuts a depth's pages to one when every page waits for a slow build to end.
    while (ms.length < (performance.now() - started < job.coldBudgetMs ? job.coldSamples : 1)) {
      let answer: Answer;
      if (this.how === 'refresh') {
        if (!(await quiet(this.front.connection, job.buildTimeoutMs))) return { missing: `not measured: the front's requests to the cluster did not end within ${job.buildTimeoutMs / 1000} s` };
        if (!(await refreshFront(this.front.connection))) {
          this.switch('the front does not answer POST /_front/_refresh');
          continue;
        }
        answer = await this.front.connection.send(call);
        // A page the front passes through (from 0, say) says nothing about the refresh; a warm one does.
        const page = frontMark(answer.headers).page;
        if (page === 'warm') {
          this.switch(`after POST /_front/_refresh the page at from ${from} answered warm`);
          continue;
        }
        // Drops the rank index this page started building, if the front drops one under way.
        await refreshFront(this.front.connection);
      } else {
        await this.front.restart();
        // The old front's last walk request may still be running on the cluster.
        await sleep(SETTLE_MS);
        await this.warmUp();
        await this.warmColdPath();
        if (!(await quiet(this.front.connection, job.buildTimeoutMs))) return { missing: `not measured: the warm-up's rank index was not built within ${job.buildTimeoutMs / 1000} s` };
        answer = await this.front.connection.send(call);
      }
      const page = readPage(answer, job.key, from, job.size);
      if (typeof page === 'string') return { missing: `wrong answer: ${page}` };
      const mark = frontMark(answer.headers);
      states[mark.page ?? 'none'] = (states[mark.page ?? 'none'] ?? 0) + 1;
      if (mark.clusterRequests !== undefined) requests.push(mark.clusterRequests);
      ms.push(answer.ms);
    }
    return { measured: { timing: summary(ms), states, clusterRequests: requests } };
  }

  private switch(why: string): void {
    this.how = 'process';
    this.switched.push(why);
    this.job.log(`  cold pages: ${why}; a new front process per cold page from now on`);
  }

  /**
   * One cold page of another search past the window: the documents priced up to a bound that holds at
   * least WARM_MATCHES of them (found on the cluster directly), at WARM_FROM under the job's sort.
   */
  private async warmColdPath(): Promise<void> {
    const { job } = this;
    // A smaller data set (the smoke run's) takes every document but one page's worth, still past the window.
    const matches = Math.min(WARM_MATCHES, job.key.ranked.length);
    const from = Math.min(WARM_FROM, matches - job.size);
    const path = `/${encodeURIComponent(job.index)}/_search`;
    const first = await job.cluster.send({ method: 'POST', path, body: JSON.stringify({ size: 1, sort: [{ price: 'asc' }], _source: false }) });
    const least = (JSON.parse(first.body) as { hits: { hits: { sort: [number] }[] } }).hits.hits[0].sort[0];
    let bound = least + 1;
    for (let doubled = 0; ; doubled++) {
      const counted = await job.cluster.send({ method: 'POST', path: `/${encodeURIComponent(job.index)}/_count`, body: JSON.stringify({ query: { range: { price: { lte: bound } } } }) });
      const { count } = JSON.parse(counted.body) as { count: number };
      if (count >= matches) break;
      if (doubled === 64) throw new WrongAnswer(`warming up a new front: no price bound holds ${matches} documents`);
      bound = least + (bound - least) * 2;
    }
    const body = JSON.stringify({ query: { range: { price: { lte: bound } } }, from, size: job.size, sort: [{ [job.key.field]: job.key.order }] });
    const answer = await this.front.connection.send({ method: 'POST', path, body });
    if (answer.status !== 200 || frontMark(answer.headers).page !== 'cold') throw new WrongAnswer(`warming up a new front: its cold page answered ${answer.status} (${frontMark(answer.headers).page ?? 'no X-Deeppage-Page'}): ${answer.body.slice(0, 200)}`);
  }

  private async warmUp(): Promise<void> {
    const { job } = this;
    const connection = this.front.connection;
    const calls = [
      ...Array.from({ length: 20 }, () => ({ method: 'GET' as const, path: '/' })),
      ...Array.from({ length: 20 }, () => ({ method: 'GET' as const, path: `/${encodeURIComponent(job.index)}/_count` })),
      ...Array.from({ length: 5 }, () => pageCall(job.index, job.key, 0, job.size)),
    ];
    for (const call of calls) {
      const answer = await connection.send(call);
      if (answer.status !== 200) throw new WrongAnswer(`warming up a new front: ${call.method} ${call.path} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    }
  }
}
