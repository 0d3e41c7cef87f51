/**
 * The from/size sweep over HTTP on one corpus: one request at a time on one connection, every
 * series of a point measured right after the other in the same run, on the same server:
 *
 * - `deeppage GET /`: the empty `GET /` of the same server, beside every point of the from sweep
 *   (the baseline: a page at any depth should cost at most a few of these);
 * - `deeppage`: the page with the default `paging=sorted_runs`, in the warm state;
 * - `deeppage-top-k`: the same request with `&paging=top_k` (Elasticsearch's algorithm);
 * - `deeppage-cold`: the page right after `POST /{index}/_cache/clear` (from sweep only);
 * - with `--url`, `remote <host>` and `remote <host> GET /`: the same requests without `paging`.
 *
 * Nothing is timed before every page of every series has been checked (bench/http/page.ts): the two
 * strategies, warm and cold, must return the same `_id`s and sort values, and a remote holding the
 * same data the same sort values. The warm state: every point asked once, then no background run
 * build pending, repeated until a pass builds nothing (see {@link warm}).
 */
import type { Timing } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { esCount, esOk } from '../lib/es-client.ts';
import type { Loaded } from './data.ts';
import { timeCold, timeWarm, type PageBudget } from './page-timing.ts';
import { assertSamePage, checkedPage, pagePath, pageVerifier, type Page, type Target } from './page.ts';
import { clearRuns, nodeRuns, settled, warmRuns, type RunStats } from './runs-state.ts';

export type SweepGroup = 'from' | 'size';

export interface SweepPoint {
  from: number;
  size: number;
  /** The sweeps the point belongs to: from 0 at size 10 is in both. */
  groups: SweepGroup[];
}

/** The page size of the `from` sweep. */
export const PAGE = 10;
/** What `GET /` of deeppage must answer (its node info). */
const ROOT_MARK = '"tagline"';

export const SERIES = {
  local: 'deeppage',
  topK: 'deeppage-top-k',
  cold: 'deeppage-cold',
  root: (target: string) => `${target} GET /`,
};

/**
 * The from values for `docs` documents: the last page (docs − PAGE), after those of `froms` less
 * than half as deep (a from closer to it would add little and crowd the chart's axis).
 */
export function fromValues(froms: number[], docs: number): number[] {
  const last = Math.max(0, docs - PAGE);
  return [...froms.filter((f) => f * 2 <= last), last];
}

export function sweepPoints(froms: number[], sizes: number[]): SweepPoint[] {
  const points: SweepPoint[] = [];
  const point = (from: number, size: number): SweepPoint => {
    let p = points.find((q) => q.from === from && q.size === size);
    if (!p) points.push((p = { from, size, groups: [] }));
    return p;
  };
  for (const from of froms) point(from, PAGE).groups.push('from');
  for (const size of sizes) point(0, size).groups.push('size');
  return points;
}

/** An Elasticsearch-compatible endpoint swept beside a corpus, and the largest from + size it takes. */
export interface Remote {
  target: Target;
  window: number;
  /** Where the window figure came from. */
  windowSource: string;
}

export interface CorpusSweep {
  loaded: Loaded;
  remote?: Remote;
  points: SweepPoint[];
  budget: PageBudget;
  coldBudget: PageBudget;
}

export interface SweepResult {
  label: string;
  /** deeppage's index. */
  index: string;
  /** The series in the order of the tables' columns. */
  series: string[];
  rows: Row[];
  /** Per series: how its pages were checked. */
  checks: Record<string, string>;
  /** What state each series was measured in, and the runs the index held. */
  state: Record<string, unknown>;
  /** Points the remote was not asked (beyond its result window). */
  skipped: string[];
  /** The runs the index held in the warm state. */
  warmRuns: RunStats;
}

export async function sweepCorpus(job: CorpusSweep, log: (line: string) => void): Promise<SweepResult> {
  const { loaded, remote, points } = job;
  const local = loaded.target;
  const topK: Target = { ...local, name: SERIES.topK, paging: 'top_k' };
  const url = local.url;
  const total = await esCount(url, local.index);
  const remoteTotal = remote && (await esCount(remote.target.url, remote.target.index));
  const sameData = remote !== undefined && remoteTotal === total && remote.target.field === local.field;
  const remoteAsks = (p: SweepPoint) => remote !== undefined && p.from + p.size <= remote.window;

  // 1. Every page of every series, checked: the first asks (cold for shallow pages), top-k, and a page after _cache/clear.
  await checkRoot(local);
  if (remote) await checkRoot(remote.target);
  const pages = new Map<SweepPoint, Page>();
  for (const p of points) {
    const page = await checkedPage(local, p.from, p.size, total);
    pages.set(p, page);
    const path = pagePath(topK, p.from, p.size);
    assertSamePage(`${SERIES.topK}: GET ${path}`, await checkedPage(topK, p.from, p.size, total), `GET ${pagePath(local, p.from, p.size)}`, page, true);
    if (p.groups.includes('from')) {
      await settled(url);
      await clearRuns(url, local.index);
      const cold = await checkedPage({ ...local, name: SERIES.cold }, p.from, p.size, total);
      assertSamePage(`${SERIES.cold}: GET ${pagePath(local, p.from, p.size)} after POST /${local.index}/_cache/clear`, cold, 'the same request before it', page, true);
    }
    if (remote && remoteAsks(p)) {
      const theirs = await checkedPage(remote.target, p.from, p.size, remoteTotal!);
      if (sameData) assertSamePage(`${remote.target.name}: GET ${pagePath(remote.target, p.from, p.size)}`, theirs, 'deeppage', page, false);
    }
  }
  // 2. The warm state, whose pages must be the same again.
  const warmRuns = await warm(local, points, total, pages);
  log(`  ${loaded.label}: checked ${points.length} pages × ${remote ? 4 : 3} series; warm: ${warmRuns.count} sorted runs, ${mib(warmRuns.memory_size_in_bytes)} MiB`);

  // 3. Timing, point by point.
  const rows: Row[] = [];
  const rewarmed: string[] = [];
  const skipped: string[] = [];
  const params = (target: Target, p: SweepPoint, docs: number) => ({ from: p.from, size: p.size, index: target.index, sort: target.field, docs, corpus: loaded.label });
  const push = (groups: SweepGroup[], strategy: string, p: SweepPoint, target: Target, docs: number, timing: Timing, extra: Record<string, string> = {}) => {
    for (const group of groups) rows.push({ group, strategy, params: { ...params(target, p, docs), ...extra }, unit: 'ms', ...timing });
    log(`  from=${String(p.from).padEnd(7)} size=${String(p.size).padEnd(6)} ${strategy.padEnd(28)} p50 ${timing.median.toFixed(3)} ms (min ${timing.min.toFixed(3)}, max ${timing.max.toFixed(3)}, ${timing.samples} requests)`);
  };
  for (const p of points) {
    const page = pages.get(p)!;
    const verify = pageVerifier(page);
    const inFrom = p.groups.includes('from');
    if (inFrom) push(['from'], SERIES.root(local.name), p, local, total, await timeRoot(local, job.budget), { request: 'GET /' });
    push(p.groups, SERIES.local, p, local, total, await timeWarm(url, { path: pagePath(local, p.from, p.size) }, job.budget, verify));
    push(p.groups, SERIES.topK, p, local, total, await timeWarm(url, { path: pagePath(topK, p.from, p.size) }, job.budget, verify));
    if (remote) {
      if (inFrom) push(['from'], SERIES.root(remote.target.name), p, remote.target, remoteTotal!, await timeRoot(remote.target, job.budget), { request: 'GET /' });
      if (remoteAsks(p)) {
        const theirs = sameData ? verify : undefined;
        push(p.groups, remote.target.name, p, remote.target, remoteTotal!, await timeWarm(remote.target.url, { path: pagePath(remote.target, p.from, p.size) }, job.budget, theirs));
      } else skipped.push(`from=${p.from} size=${p.size}`);
    }
    if (inFrom) {
      push(['from'], SERIES.cold, p, local, total, await timeCold(url, local.index, { path: pagePath(local, p.from, p.size) }, job.coldBudget, verify));
      const again = await warm(local, points, total, pages);
      if (again.count !== warmRuns.count || again.memory_size_in_bytes !== warmRuns.memory_size_in_bytes) {
        rewarmed.push(`after from=${p.from}: ${again.count} runs, ${again.memory_size_in_bytes} bytes`);
      }
    }
  }
  const node = await nodeRuns(url);

  const series = [SERIES.root(local.name), SERIES.local, SERIES.topK, SERIES.cold, ...(remote ? [SERIES.root(remote.target.name), remote.target.name] : [])];
  const pageCheck = `${total} documents in ${local.index}; every page: status 200, hit count, ${local.field} non-increasing, ${local.field} at every rank equal to the data set's, sorted`;
  const checks: Record<string, string> = {
    [SERIES.root(local.name)]: `status 200 and deeppage's node info (${ROOT_MARK}), for every timed answer too`,
    [SERIES.local]: `${pageCheck}; the same again in the warm state; every timed answer names the page's first and last _id`,
    [SERIES.topK]: `${pageCheck}; the same _ids and sort values as deeppage's, hit for hit; every timed answer names the page's first and last _id`,
    [SERIES.cold]: `${pageCheck}; after POST /${local.index}/_cache/clear, the same _ids and sort values as the page before it; every timed answer names the page's first and last _id`,
  };
  if (remote) {
    checks[SERIES.root(remote.target.name)] = 'status 200 and a JSON answer';
    checks[remote.target.name] =
      `${remoteTotal} documents in ${remote.target.index}; every page: status 200, hit count, ${remote.target.field} non-increasing` +
      (sameData
        ? `; same count and sort field as deeppage's ${local.index}, and every page's sort values equal deeppage's (ids not compared: ties may break differently); every timed answer names deeppage's first and last _id`
        : `; the data differ from deeppage's (${remoteTotal} documents by ${remote.target.field}, deeppage ${total} by ${local.field}): shape compared only`) +
      (skipped.length > 0 ? `; not asked beyond its result window of ${remote.window} (${remote.windowSource}): ${skipped.join(', ')}` : '');
  }
  const state = {
    documents: total,
    shards: loaded.shards,
    loading: loaded.loading,
    warm:
      `${SERIES.local} and ${SERIES.topK}: every point of the corpus asked once with paging=sorted_runs (shallow first pages have their runs built in the background, deep ones build them on the request), ` +
      'then GET /_nodes/stats polled until background_builds and the run count stayed the same across two reads 20 ms apart, ' +
      `and that repeated until a pass built nothing: ${warmRuns.count} sorted runs for ${local.index}, ${warmRuns.memory_size_in_bytes} bytes. ` +
      'Re-established the same way after every cold series' +
      (rewarmed.length > 0 ? `, when it differed: ${rewarmed.join('; ')}` : ', and each time it held the same runs'),
    cold:
      `${SERIES.cold}: before each timed page, no background build pending (as above), POST /${local.index}/_cache/clear, GET /${local.index}/_stats showing 0 sorted runs, ` +
      'then on a new connection an untimed GET / and the timed page: a first page, whose runs are then built (shallow: in the background, deep: by the request)',
    runs_after: { count: node.count, memory_size_in_bytes: node.memory_size_in_bytes, limit_size_in_bytes: node.limit_size_in_bytes, evictions: node.evictions, background_builds: node.background_builds },
  };
  return { label: loaded.label, index: local.index, series, rows, checks, state, skipped, warmRuns };
}

/** Puts `local`'s index in the warm state (see {@link warmRuns}): every point asked, and checked against `pages`. */
function warm(local: Target, points: SweepPoint[], total: number, pages: Map<SweepPoint, Page>): Promise<RunStats> {
  return warmRuns(local.url, local.index, async (pass) => {
    for (const p of points) {
      const page = await checkedPage(local, p.from, p.size, total);
      assertSamePage(`${SERIES.local}: GET ${pagePath(local, p.from, p.size)} (warming, pass ${pass + 1})`, page, 'the first answer', pages.get(p)!, true);
    }
  });
}

async function checkRoot(target: Target): Promise<void> {
  const { body } = await esOk<Record<string, unknown>>(target.url, 'GET', '/');
  if (typeof body !== 'object' || body === null) throw new WrongAnswer(`${target.name}: GET / answered ${JSON.stringify(body)}`);
  if (target.name === SERIES.local && !JSON.stringify(body).includes(ROOT_MARK)) throw new WrongAnswer(`${target.name}: GET / answered ${JSON.stringify(body).slice(0, 300)}, without ${ROOT_MARK}`);
}

async function timeRoot(target: Target, budget: PageBudget): Promise<Timing> {
  return timeWarm(target.url, { path: '/' }, budget, target.name === SERIES.local ? (body) => body.includes(ROOT_MARK) : undefined);
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
