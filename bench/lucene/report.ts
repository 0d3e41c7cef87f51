/** The lucene suite's rows and Markdown: per index, the new searches and the warm ones, both peers and their ratio side by side. */
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Timing } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import type { Case } from './cases.ts';
import type { LoadedIndex } from './load.ts';
import type { CaseTiming, NewResult, PeerName, WarmResult } from './sampling.ts';

export interface CaseResult {
  kase: Case;
  fresh: NewResult;
  warm: WarmResult;
}

export interface IndexResult {
  label: string;
  docs: number;
  shards: number;
  loads: Record<PeerName, LoadedIndex>;
  cases: CaseResult[];
  /** `GET /` of each peer, sampled as the warm searches are. */
  floor: CaseTiming[];
}

/**
 * Issue 39's targets beside Lucene: every new search at least 2× faster than Lucene, a new filter's
 * last page at least 5×.
 */
function target(kase: Case): number {
  return kase.page === 'last' ? 5 : 2;
}

export function indexRows(result: IndexResult): Row[] {
  const rows: Row[] = [];
  for (const { kase, fresh, warm } of result.cases) {
    const params = { corpus: result.label, docs: result.docs, shards: result.shards, search: kase.name, page: kase.page };
    for (const t of fresh.timings) rows.push({ group: 'new', strategy: t.peer, params: { ...params, matches: `${fresh.matches[0]}–${fresh.matches[1]}`, request: JSON.stringify(kase.fresh[0].body) }, unit: 'ms', ...t.timing });
    for (const t of warm.timings) rows.push({ group: 'warm', strategy: t.peer, params: { ...params, matches: warm.matches, request: JSON.stringify(kase.warm.body) }, unit: 'ms', ...t.timing });
  }
  for (const t of result.floor) rows.push({ group: 'floor', strategy: t.peer, params: { corpus: result.label, docs: result.docs, shards: result.shards, request: 'GET /' }, unit: 'ms', ...t.timing });
  return rows;
}

export function indexMarkdown(result: IndexResult): string {
  const timing = (t: Timing) => `${ms(t.median)} (${ms(t.min)}–${ms(t.max)}, ${t.samples})`;
  const of = (timings: CaseTiming[], peer: PeerName) => timings.find((t) => t.peer === peer)!;
  const ratioOf = (timings: CaseTiming[]) => of(timings, 'lucene').timing.median / of(timings, 'deeppage').timing.median;
  const segments = (load: LoadedIndex) => {
    const total = load.segments.reduce((a, b) => a + b, 0);
    return `${count(total)} segments (${Math.min(...load.segments)}–${Math.max(...load.segments)} a shard), loaded in ${(load.ms / 1000).toFixed(1)} s`;
  };
  const newRows = result.cases.map(({ kase, fresh }) => {
    const r = ratioOf(fresh.timings);
    return [
      kase.name,
      kase.page,
      fresh.matches[0] === fresh.matches[1] ? count(fresh.matches[0]) : `${count(fresh.matches[0])}–${count(fresh.matches[1])}`,
      timing(of(fresh.timings, 'lucene').timing),
      timing(of(fresh.timings, 'deeppage').timing),
      ratio(r),
      `≥ ${target(kase)}×: ${r >= target(kase) ? 'met' : 'not met'}`,
      cpu(of(fresh.timings, 'lucene').cpuPer100),
      cpu(of(fresh.timings, 'deeppage').cpuPer100),
    ];
  });
  const warmRows = result.cases.map(({ kase, warm }) => [
    kase.name,
    kase.page,
    count(warm.matches),
    timing(of(warm.timings, 'lucene').timing),
    timing(of(warm.timings, 'deeppage').timing),
    ratio(ratioOf(warm.timings)),
  ]);
  warmRows.push(['empty `GET /` (the HTTP floor)', '', '', timing(of(result.floor, 'lucene').timing), timing(of(result.floor, 'deeppage').timing), ratio(ratioOf(result.floor))]);
  const scoreErrors = result.cases.flatMap(({ fresh, warm }) => [fresh.scoreError, warm.scoreError]).filter((e): e is number => e !== undefined);
  return [
    `### ${result.label}`,
    '',
    `Lucene: ${segments(result.loads.lucene)}. deeppage: ${segments(result.loads.deeppage)}.`,
    '',
    'New searches (each sample a search never asked before on either peer; ms: median (min–max, samples); the ratio is Lucene / deeppage, above 1× deeppage is faster; CPU is each process\'s user + system time over the case, background work included, per 100 new searches):',
    '',
    table(['search', 'page', 'matches', 'Lucene ms', 'deeppage ms', 'Lucene / deeppage', 'issue 39 target', 'Lucene CPU s / 100', 'deeppage CPU s / 100'], newRows, 'llrrrrlrr'),
    '',
    'Warm searches (the same search asked again and again):',
    '',
    table(['search', 'page', 'matches', 'Lucene ms', 'deeppage ms', 'Lucene / deeppage'], warmRows, 'llrrrr'),
    '',
    `Scores: deeppage's equal Lucene's × 2.2 on every page of the matches, hit for hit, the largest relative difference ${scoreErrors.length > 0 ? Math.max(...scoreErrors).toExponential(1) : '—'}.`,
    '',
  ].join('\n');
}

function cpu(seconds: number | undefined): string {
  return seconds === undefined || Number.isNaN(seconds) ? '—' : seconds.toFixed(2);
}
