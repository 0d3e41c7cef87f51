/**
 * The from/size sweep over HTTP: one page at a time on one connection, on deeppage and, with
 * `--url`, on another Elasticsearch-compatible endpoint, point by point in the same run.
 *
 * Every page of every target is checked before anything is timed (bench/http/page.ts). When the
 * remote holds the same data as deeppage (the same `_count`, sorted by the same field), each of its
 * pages must also carry deeppage's sort values; otherwise only the shape is compared.
 */
import type { Row } from '../lib/results.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { esCount, withoutCredentials } from '../lib/es-client.ts';
import { runLoad } from './load.ts';
import { checkedPage, pagePath, type Target } from './page.ts';

export type SweepGroup = 'from' | 'size';

export interface SweepPoint {
  from: number;
  size: number;
  /** The sweeps the point belongs to: from 0 at size 10 is in both. */
  groups: SweepGroup[];
}

/**
 * Each point's load: a warm-up of WARMUP requests, which also estimates the page's cost, then about
 * `ms` of requests, at least `min` and at most `max` of them.
 */
export interface PageBudget {
  ms: number;
  min: number;
  max: number;
}

/** The page size of the `from` sweep. */
export const PAGE = 10;
const WARMUP = 3;
const SAMPLE_MS = 50;

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

export interface SweepResult {
  rows: Row[];
  /** Per target: its document count and how its pages were checked. */
  checks: Record<string, string>;
}

/** Sweeps `targets` (deeppage first) over `points`. */
export async function sweep(targets: Target[], points: SweepPoint[], budget: PageBudget, log: (line: string) => void): Promise<SweepResult> {
  const [local, ...remotes] = targets;
  const pages = new Map<Target, number[][]>();
  const totals = new Map<Target, number>();
  const checks: Record<string, string> = {};
  for (const target of targets) {
    const total = await esCount(target.url, target.index);
    const checked: number[][] = [];
    for (const { from, size } of points) checked.push(await checkedPage(target, from, size, total));
    pages.set(target, checked);
    totals.set(target, total);
    checks[target.name] = `${total} documents in ${target.index}; every page: status 200, hit count, ${target.field} non-increasing${target.ranked ? `, ${target.field} at every rank equal to the data set's, sorted` : ''}`;
  }
  for (const remote of remotes) {
    const same = totals.get(remote) === totals.get(local) && remote.field === local.field;
    if (same) assertSamePages(remote, pages.get(remote)!, pages.get(local)!, points);
    checks[remote.name] += same
      ? `; same data as deeppage, and every page's sort values equal deeppage's`
      : `; the data differ from deeppage's (${totals.get(remote)} documents by ${remote.field}, deeppage ${totals.get(local)} by ${local.field}): shape compared only`;
  }
  log(`  checked ${points.length} pages on ${targets.map((t) => t.name).join(', ')}`);

  const rows: Row[] = [];
  for (const { from, size, groups } of points) {
    for (const target of targets) {
      const { url: base, headers } = withoutCredentials(target.url);
      const url = base + pagePath(target, from, size);
      const warm = await runLoad({ url, headers, connections: 1, bound: { requests: WARMUP }, sampleMs: SAMPLE_MS });
      const requests = Math.min(budget.max, Math.max(budget.min, Math.round(budget.ms / warm.latency.median)));
      const { latency } = await runLoad({ url, headers, connections: 1, bound: { requests }, sampleMs: SAMPLE_MS });
      for (const group of groups) rows.push({ group, strategy: target.name, params: { from, size, index: target.index, sort: target.field }, unit: 'ms', ...latency });
      log(`  from=${String(from).padEnd(5)} size=${String(size).padEnd(5)} ${target.name.padEnd(24)} p50 ${latency.median.toFixed(3)} ms (min ${latency.min.toFixed(3)}, max ${latency.max.toFixed(3)}, ${latency.samples} requests)`);
    }
  }
  return { rows, checks };
}

function assertSamePages(remote: Target, got: number[][], want: number[][], points: SweepPoint[]): void {
  for (const [i, { from, size }] of points.entries()) {
    const a = got[i], b = want[i];
    const at = a.findIndex((v, j) => v !== b[j]);
    if (at >= 0 || a.length !== b.length) {
      const rank = from + (at >= 0 ? at : Math.min(a.length, b.length));
      throw new WrongAnswer(`${remote.name}: page from=${from} size=${size} differs from deeppage's at rank ${rank}: ${a[rank - from]} vs ${b[rank - from]}`);
    }
  }
}
