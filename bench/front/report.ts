/**
 * The front suite's rows, tables, targets and chart, all from one run's measurements. A target
 * line reads PASS, FAIL or "not available" (when what it judges was not measured, and why).
 */
import { cpus } from 'node:os';
import type { Chart, Point } from '../lib/chart.ts';
import type { Timing } from '../lib/measure.ts';
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import type { KeyWalk, SlicedWalk } from './key-walk.ts';
import type { ProbeResult } from './pass-through.ts';
import type { Measured } from './rounds.ts';
import { RAISED_SAMPLES, type Cell, type ColdSeries, type PointResult, type RankIndexFigures, type SweepResult } from './sweep.ts';

export const SERIES = { cluster: 'cluster from/size (top_k, direct)', raised: 'cluster from/size, window raised', searchAfter: 'cluster search_after (direct)', warm: 'front warm', cold: 'front cold' };

/** The issue's targets (issue 38, "Targets"). */
export const TARGETS = {
  warmOverFirstPage: 2,
  buildDocsPerSecond: 200_000,
  bytesPerDoc: 16,
  addedMs: 0.5,
  addedShare: 0.1,
  /** The share applies to requests that take at least this long on the cluster. */
  slowMs: 5,
};

/** The cluster's own walks of a sort's keys: in one walk, and in slices side by side (or its refusal of `slice`). */
export interface ClusterWalks {
  single: KeyWalk;
  sliced: SlicedWalk | { refused: string };
}

export interface Outcome {
  sweeps: SweepResult[];
  walks: Map<string, ClusterWalks>;
  probes: ProbeResult[];
}

export function frontRows(outcome: Outcome): Row[] {
  const rows: Row[] = [];
  for (const s of outcome.sweeps) {
    const params = (p: PointResult) => ({ from: p.from, size: s.size, index: s.index, shards: s.shards, sort: s.key.label, docs: s.docs });
    for (const p of s.points) {
      if ('measured' in p.cluster) rows.push({ group: 'from', strategy: 'cluster', params: params(p), unit: 'ms', ...p.cluster.measured.timing });
      if ('measured' in p.searchAfter) rows.push({ group: 'from', strategy: 'cluster-search-after', params: params(p), unit: 'ms', ...p.searchAfter.measured.timing });
      if ('measured' in p.warm) rows.push({ group: 'from', strategy: 'front-warm', params: { ...params(p), ...markParams(p.warm.measured) }, unit: 'ms', ...p.warm.measured.timing });
      if ('measured' in p.cold) rows.push({ group: 'from', strategy: 'front-cold', params: { ...params(p), ...markParams(p.cold.measured) }, unit: 'ms', ...p.cold.measured.timing });
      if ('measured' in p.raised) rows.push({ group: 'from', strategy: 'cluster-window-raised', params: params(p), unit: 'ms', ...p.raised.measured });
    }
    const r = s.rankIndex;
    if ('documents' in r && r.documents > 0) {
      const at = { index: s.index, shards: s.shards, sort: s.key.label, documents: r.documents };
      rows.push(one('rank-index', 'front', at, 'bytes/doc', r.bytes / r.documents));
      if (r.buildMs > 0) rows.push(one('rank-index', 'front', at, 'docs/s', r.documents / (r.buildMs / 1000)));
    }
    const walk = outcome.walks.get(walkKey(s));
    if (walk) {
      const at = { index: s.index, shards: s.shards, sort: s.key.label, documents: walk.single.docs };
      rows.push(one('rank-index', 'cluster-key-walk', at, 'docs/s', walk.single.docs / (walk.single.ms / 1000)));
      if ('docs' in walk.sliced) rows.push(one('rank-index', 'cluster-key-walk-sliced', { ...at, slices: walk.sliced.slices }, 'docs/s', walk.sliced.docs / (walk.sliced.ms / 1000)));
    }
  }
  for (const { probe, direct, front, plain } of outcome.probes) {
    rows.push({ group: 'pass-through', strategy: 'direct', params: { probe: probe.name }, unit: 'ms', ...direct.timing });
    rows.push({ group: 'pass-through', strategy: 'front', params: { probe: probe.name }, unit: 'ms', ...front.timing });
    rows.push({ group: 'pass-through', strategy: 'plain-proxy', params: { probe: probe.name }, unit: 'ms', ...plain.timing });
  }
  return rows;
}

export function walkKey(s: { index: string; key: { label: string } }): string {
  return `${s.index} ${s.key.label}`;
}

function one(group: string, strategy: string, params: Row['params'], unit: Row['unit'], value: number): Row {
  const v = Math.round(value * 100) / 100;
  return { group, strategy, params, unit, median: v, min: v, max: v, samples: 1 };
}

function markParams(m: { states: Record<string, number>; clusterRequests: number[] }): Row['params'] {
  const states = Object.entries(m.states).map(([state, n]) => `${state} ×${n}`).join(', ');
  return { state: states, ...(m.clusterRequests.length > 0 && { cluster_requests: Math.max(...m.clusterRequests) }) };
}

export function frontChart(sweeps: SweepResult[]): Chart {
  const points: Point[] = [];
  for (const s of sweeps) {
    const column = `${s.shards} shards, ${s.key.label}`;
    for (const p of s.points) {
      if ('measured' in p.cluster) points.push({ x: p.from, y: p.cluster.measured.timing.median, series: SERIES.cluster, column });
      if ('measured' in p.searchAfter) points.push({ x: p.from, y: p.searchAfter.measured.timing.median, series: SERIES.searchAfter, column });
      if ('measured' in p.warm) points.push({ x: p.from, y: p.warm.measured.timing.median, series: SERIES.warm, column });
      if ('measured' in p.cold) points.push({ x: p.from, y: p.cold.measured.timing.median, series: SERIES.cold, column });
      if ('measured' in p.raised) points.push({ x: p.from, y: p.raised.measured.median, series: SERIES.raised, column });
    }
  }
  const docs = sweeps[0]?.docs ?? 0;
  return {
    name: 'from',
    title: `One page of 10 by from, ${count(docs)} documents: the cluster directly (refused past 10,000) and through the front`,
    x: { title: 'from', scale: 'symlog' },
    y: { title: 'median ms per page' },
    points,
  };
}

export function frontMarkdown(outcome: Outcome, context: { command: string; clusterCommand: string; mode: string }): string {
  const out: string[] = [];
  out.push('## Paging through the front', '');
  out.push(
    `The cluster is a stand-in: deeppage started as \`${context.clusterCommand}\` (every search, \`search_after\` included, is Elasticsearch's algorithm: each shard's top from + size, merged), ` +
      "its indices at the default `index.max_result_window` of 10,000. Each index and sort is swept on a front started for it. " +
      '`POST /{index}/_search {"from": F, "size": 10, "sort": [{key: order}]}`, one request at a time on one kept-alive connection per server. ' +
      `**${SERIES.cluster}** is the cluster asked directly; **${SERIES.warm}** the front once its rank index is built (\`GET /_front/stats\`: a rank index, none building); ` +
      `**${SERIES.cold}** the first request at that depth on a front without one. ` +
      `Past the window the cluster refuses from/size; **${SERIES.raised}** (in the same cell) is its own from/size there once \`index.max_result_window\` is raised to from + size, what applications do instead of a front (the median of ${RAISED_SAMPLES} pages after two untimed, with their min–max; the window put back after). ` +
      `**${SERIES.searchAfter}** is what a warm page asks of the cluster, asked directly: one \`search_after\` from rank from − 1 in a point in time of the cluster's (opened by the key walk below, \`track_total_hits: false\`), so **warm − search_after** is what the front adds to it. ` +
      "The cluster's two series and the warm front are timed in rounds side by side, after 10 untimed passes over every depth that warm all three up: a cell is the median over every request, with the range of the round medians in brackets; a cold cell is the median of its pages with their min–max. " +
      'Cluster requests come from each answer\'s `X-Deeppage-Cluster-Requests` (max over the timed answers), the state from its `X-Deeppage-Page` (`none`: the header was absent, the front passed the request through). ' +
      'Every page was checked before timing: the data set\'s sort values at every rank, and within the window the front\'s hits are the cluster\'s.',
    '',
  );
  for (const s of outcome.sweeps) out.push(...sweepSection(s, outcome.walks.get(walkKey(s))));
  out.push(...passThroughSection(outcome.probes));
  out.push(...targetsSection(outcome));
  out.push('## How to run it', '', '```sh', context.command, '```', '');
  return out.join('\n');
}

function sweepSection(s: SweepResult, walk: ClusterWalks | undefined): string[] {
  const out = [`### ${s.label}`, ''];
  out.push(`${count(s.docs)} documents (products of bench/lib/corpus.ts), ${s.shards} shards; the front started with \`${s.frontSettings.join(' ')}\`.`);
  if (s.unavailable) out.push('', `**Front columns not available:** ${s.unavailable}. Only the cluster was timed.`);
  out.push('');
  const first = clusterFirst(s);
  const rows = s.points.map((p) => [
    count(p.from),
    clusterCell(p),
    cell(p.searchAfter),
    cell(p.warm),
    coldCell(p.cold),
    'measured' in p.warm && first ? ratio(p.warm.measured.timing.median / first) : '—',
    'measured' in p.warm && 'measured' in p.searchAfter ? signed(p.warm.measured.timing.median - p.searchAfter.measured.timing.median) : '—',
    `${requestsOf(p.warm)} · ${requestsOf(p.cold)}`,
    `${statesOf(p.warm)} · ${statesOf(p.cold)}`,
  ]);
  const headers = ['from', `${SERIES.cluster} ms`, `${SERIES.searchAfter} ms`, `${SERIES.warm} ms`, `${SERIES.cold} ms`, 'warm / cluster from 0', 'warm − search_after ms', 'cluster requests warm · cold', 'state warm · cold'];
  out.push(table(headers, rows, 'rrrrrrrrl'), '');
  const r = s.rankIndex;
  if ('documents' in r) out.push(rankIndexLine(r, walk), '');
  else out.push(`Rank index: ${r.missing}.${walk ? ` ${walkLine(walk)}` : ''}`, '');
  out.push(`Cold pages: ${s.coldMethod}.`, '');
  return out;
}

function rankIndexLine(r: RankIndexFigures, walk: ClusterWalks | undefined): string {
  const perDoc = r.documents > 0 ? bytesPerDoc(r.bytes, r.documents) : '—';
  return (
    `Rank index (\`GET /_front/stats\` once warm): ${count(r.documents)} documents, ${count(r.bytes)} bytes (${perDoc} bytes/doc), ` +
    `built in ${count(r.buildMs)} ms (${r.buildMs > 0 ? rate(r.documents, r.buildMs) : '—'}; ${(r.wallMs / 1000).toFixed(1)} s from the first request to the stats showing it built), ${r.builds} build(s).` +
    (walk ? ` ${walkLine(walk)}` : '')
  );
}

function walkLine(walk: ClusterWalks): string {
  const sliced = 'docs' in walk.sliced ? `${rate(walk.sliced.docs, walk.sliced.ms)} in ${walk.sliced.slices} slices side by side (${walk.sliced.requests} requests)` : `slices refused (${walk.sliced.refused})`;
  return `The cluster's own walk of the sort keys (PIT, \`search_after\`, \`_source: false\`, 10,000 a request, bench/front/key-walk.ts): ${rate(walk.single.docs, walk.single.ms)} in one walk (${walk.single.requests} requests); ${sliced}.`;
}

function walkRates(walk: ClusterWalks): string {
  return `; the cluster's own key walk delivers ${rate(walk.single.docs, walk.single.ms)} in one walk${'docs' in walk.sliced ? `, ${rate(walk.sliced.docs, walk.sliced.ms)} in ${walk.sliced.slices} slices` : ''}`;
}

function passThroughSection(probes: ProbeResult[]): string[] {
  if (probes.length === 0) return [];
  const out = ['## Pass-through', ''];
  out.push(
    'Requests the front does not accelerate, sent to the cluster directly, through the front and through a plain Node proxy (bench/front/plain-proxy-server.ts: a `node:http` server piping each request to the cluster over a kept-alive pool, nothing else) in rounds side by side, after untimed requests that warm every process up; every answer checked, and the front\'s carried no `X-Deeppage-Page`. Median ms (round medians\' range). ' +
      `The client, the proxies and the cluster are processes on the same ${cpus().length} cores: through either proxy, a request crosses one more process and one more connection on them, and **plain proxy added** is what that alone costs here.`,
    '',
  );
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${ms(x)}`;
  const rows = probes.map(({ probe, direct, front, plain }) => {
    const added = front.timing.median - direct.timing.median;
    return [probe.name, cell({ measured: direct }), cell({ measured: front }), signed(added), `${added >= 0 ? '+' : ''}${((added / direct.timing.median) * 100).toFixed(1)} %`, cell({ measured: plain }), signed(plain.timing.median - direct.timing.median), String(direct.timing.samples), String(probe.warmup)];
  });
  out.push(table(['probe', 'direct ms', 'through the front ms', 'front added ms', 'front added', 'plain proxy ms', 'plain proxy added ms', 'timed requests each', 'untimed first'], rows), '');
  for (const { probe } of probes) out.push(`- **${probe.name}**: ${probe.what}`);
  out.push('');
  return out;
}

type Verdict = 'PASS' | 'FAIL' | 'not available';

function targetsSection(outcome: Outcome): string[] {
  const lines: string[] = [];
  const line = (verdict: Verdict, what: string, detail: string) => lines.push(`- **${verdict}** ${what}: ${detail}`);
  for (const s of outcome.sweeps) {
    const name = `(${s.shards} shards, ${s.key.label})`;
    const first = clusterFirst(s);
    const warm = s.points.filter((p) => 'measured' in p.warm).map((p) => ({ from: p.from, median: (p.warm as { measured: Measured }).measured.timing.median }));
    if (warm.length === 0 || !first) line('not available', `warm page ≤ ${TARGETS.warmOverFirstPage}× the cluster's own first page ${name}`, s.unavailable ?? 'no warm page measured');
    else {
      const worst = warm.reduce((a, b) => (b.median > a.median ? b : a));
      line(worst.median <= TARGETS.warmOverFirstPage * first ? 'PASS' : 'FAIL', `warm page ≤ ${TARGETS.warmOverFirstPage}× the cluster's own first page ${name}`, `slowest warm page ${ms(worst.median)} ms at from ${count(worst.from)}, ${ratio(worst.median / first)} the cluster's ${ms(first)} ms at from 0${warm.length < s.points.length ? ` (${s.points.length - warm.length} of ${s.points.length} depths not measured warm)` : ''}`);
    }
    const deepest = s.points.filter((p) => 'measured' in p.cluster).at(-1);
    const past = s.points.filter((p) => 'missing' in p.cluster && p.cluster.missing === 'refused');
    const cold = past.filter((p) => 'measured' in p.cold).map((p) => ({ from: p.from, median: (p.cold as { measured: ColdSeries }).measured.timing.median }));
    const answered = past.filter((p) => 'measured' in p.warm || 'measured' in p.cold).length;
    if (past.length > 0) line(answered === past.length ? 'PASS' : s.unavailable ? 'not available' : 'FAIL', `past the window, where the cluster refuses, the front answers ${name}`, `${answered} of ${past.length} depths past ${count(deepest ? deepest.from + s.size : 0)} answered${s.unavailable ? ` (${s.unavailable})` : ''}`);
    if (cold.length === 0 || !deepest) line('not available', `cold deep page ≤ the cluster's from/size at its deepest allowed from ${name}`, s.unavailable ?? 'no cold page past the window measured');
    else {
      const limit = (deepest.cluster as { measured: Measured }).measured.timing.median;
      const worst = cold.reduce((a, b) => (b.median > a.median ? b : a));
      line(worst.median <= limit ? 'PASS' : 'FAIL', `cold deep page ≤ the cluster's from/size at ${count(deepest.from)} ${name}`, `slowest cold page past the window ${ms(worst.median)} ms at from ${count(worst.from)}, against the cluster's ${ms(limit)} ms at from ${count(deepest.from)}`);
    }
    const beside = past.filter((p) => 'measured' in p.cold && 'measured' in p.raised).map((p) => ({ from: p.from, cold: (p.cold as { measured: ColdSeries }).measured.timing.median, raised: (p.raised as { measured: Timing }).measured.median }));
    if (beside.length > 0) {
      const slower = beside.filter((p) => p.cold > p.raised);
      line(slower.length === 0 ? 'PASS' : 'FAIL', `cold deep page no slower than the cluster's own from/size at that depth, window raised ${name}`, beside.map((p) => `${count(p.from)}: ${ms(p.cold)} against ${ms(p.raised)} ms`).join('; '));
    }
    const warmRequests = s.points.flatMap((p) => ('measured' in p.warm ? p.warm.measured.clusterRequests : []));
    if (warmRequests.length === 0) line('not available', `a warm page costs one cluster request ${name}`, s.unavailable ?? 'no X-Deeppage-Cluster-Requests on warm pages');
    else line(Math.max(...warmRequests) <= 1 ? 'PASS' : 'FAIL', `a warm page costs one cluster request ${name}`, `at most ${Math.max(...warmRequests)} over ${warmRequests.length} timed warm pages`);
    const coldRequests = s.points.flatMap((p) => ('measured' in p.cold ? p.cold.measured.clusterRequests.map((requests) => ({ from: p.from, requests })) : []));
    const distinct = new Set(Array.from(s.key.ranked)).size;
    // A keyword's step is up to three requests (a string between the bounds, moved to a value, counted).
    const steps = Math.ceil(Math.log2(Math.max(2, distinct))) * (typeof s.key.ranked[0] === 'string' ? 3 : 1);
    const window = deepest ? deepest.from + s.size : 0;
    const allowed = ({ from }: { from: number }) => steps + 2 + tieWalk(s.key.ranked, from, s.size, window);
    const over = coldRequests.filter((page) => page.requests > allowed(page));
    const most = coldRequests.reduce((a, b) => (b.requests > a.requests ? b : a), { from: 0, requests: 0 });
    if (coldRequests.length === 0) line('not available', `a cold page costs about log₂(key range) _count requests + one search (+ the walk inside a tie) ${name}`, s.unavailable ?? 'no X-Deeppage-Cluster-Requests on cold pages');
    else line(over.length === 0 ? 'PASS' : 'FAIL', `a cold page costs about log₂(key range) _count requests + one search (+ the walk inside a tie) ${name}`, `at most ${most.requests} cluster requests over ${coldRequests.length} cold pages (at from ${count(most.from)}, where ${allowed(most)} are allowed); ${count(distinct)} distinct keys: ⌈log₂⌉${steps > Math.ceil(Math.log2(Math.max(2, distinct))) ? ' × 3 a keyword step' : ''} + 2 searches for the least and greatest values + 1 search, and inside a tie larger than the window one walk request a window skipped + opening and closing its point in time${over.length > 0 ? `; over: ${over.map((page) => `${page.requests} at from ${count(page.from)} (${allowed(page)} allowed)`).join(', ')}` : ''}`);
    const r = s.rankIndex;
    const walk = outcome.walks.get(walkKey(s));
    if (!('documents' in r) || r.documents === 0) {
      line('not available', `rank index built at ≥ ${count(TARGETS.buildDocsPerSecond)} documents/s ${name}`, `${'missing' in r ? reason(r.missing) : 'no documents'}${walk ? walkRates(walk) : ''}`);
      line('not available', `rank index ≤ ${TARGETS.bytesPerDoc} bytes per document ${name}`, 'missing' in r ? reason(r.missing) : 'no documents');
    } else {
      const perSecond = r.buildMs > 0 ? r.documents / (r.buildMs / 1000) : Infinity;
      line(perSecond >= TARGETS.buildDocsPerSecond ? 'PASS' : 'FAIL', `rank index built at ≥ ${count(TARGETS.buildDocsPerSecond)} documents/s ${name}`, `${rate(r.documents, r.buildMs)}${walk ? walkRates(walk) : ''}`);
      const perDoc = r.bytes / r.documents;
      const numeric = typeof s.key.ranked[0] === 'number';
      line(perDoc <= TARGETS.bytesPerDoc ? 'PASS' : 'FAIL', `rank index ≤ ${TARGETS.bytesPerDoc} bytes per document ${name}`, `${bytesPerDoc(r.bytes, r.documents)} bytes/doc (${count(r.bytes)} bytes for ${count(r.documents)} documents)${numeric ? '' : '; the target is for one numeric or date key, a keyword key is shown for comparison'}`);
    }
  }
  for (const { probe, direct, front, plain } of outcome.probes) {
    const added = front.timing.median - direct.timing.median;
    const floor = plain.timing.median - direct.timing.median;
    const slow = direct.timing.median >= TARGETS.slowMs;
    const pass = added <= TARGETS.addedMs || (slow && added <= TARGETS.addedShare * direct.timing.median);
    line(pass ? 'PASS' : 'FAIL', `pass-through adds ≤ ${TARGETS.addedMs} ms, or ≤ ${TARGETS.addedShare * 100} % on a request of ≥ ${TARGETS.slowMs} ms (${probe.name})`, `${ms(direct.timing.median)} ms direct, ${ms(front.timing.median)} ms through the front: ${added >= 0 ? '+' : ''}${ms(added)} ms (${((added / direct.timing.median) * 100).toFixed(1)} %); a plain Node proxy adds ${floor >= 0 ? '+' : ''}${ms(floor)} ms here`);
  }
  return ['## Targets (issue 38), from this run', '', ...lines, ''];
}

/** A missing cell's why, without its verdict. */
function reason(missing: string): string {
  return missing.replace(/^not available: /, '');
}

function clusterFirst(s: SweepResult): number | undefined {
  const p = s.points.find((q) => q.from === 0);
  return p && 'measured' in p.cluster ? p.cluster.measured.timing.median : undefined;
}

function cell(c: Cell): string {
  if ('missing' in c) return c.missing === 'refused' ? 'refused' : c.missing.startsWith('not available') ? 'not available' : c.missing.startsWith('wrong') ? 'wrong answer' : c.missing;
  const rounds = c.measured.roundMedians;
  if (rounds.length < 2) return ms(c.measured.timing.median);
  return `${ms(c.measured.timing.median)} (${ms(Math.min(...rounds))}–${ms(Math.max(...rounds))})`;
}

/** The cluster's from/size; past the window, its refusal and what it costs with the window raised. */
function clusterCell(p: PointResult): string {
  if (!('measured' in p.raised)) return cell(p.cluster);
  const t = p.raised.measured;
  return `refused; window raised: ${t.samples < 2 ? ms(t.median) : `${ms(t.median)} (${ms(t.min)}–${ms(t.max)})`}`;
}

function coldCell(c: PointResult['cold']): string {
  if ('missing' in c) return cell(c);
  const t = c.measured.timing;
  return t.samples < 2 ? ms(t.median) : `${ms(t.median)} (${ms(t.min)}–${ms(t.max)})`;
}

function requestsOf(c: Cell | PointResult['cold']): string {
  if ('missing' in c || c.measured.clusterRequests.length === 0) return '—';
  return String(Math.max(...c.measured.clusterRequests));
}

function statesOf(c: Cell | PointResult['cold']): string {
  if ('missing' in c) return '—';
  return Object.entries(c.measured.states).map(([state, n]) => `${state} ×${n}`).join(', ');
}

/** Bytes per document, with as many decimals as it takes to tell it from a whole number it is not (16.00003, not 16.0). */
function bytesPerDoc(bytes: number, documents: number): string {
  const perDoc = bytes / documents;
  for (let digits = 1; digits < 8; digits++) if (Number(perDoc.toFixed(digits)) === perDoc || perDoc.toFixed(digits) !== Math.round(perDoc).toFixed(digits)) return perDoc.toFixed(digits);
  return String(perDoc);
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${ms(Math.abs(x))}`;
}

function rate(docs: number, ms: number): string {
  return `${count(docs / (ms / 1000))} documents/s`;
}

/**
 * The requests a cold page may spend walking inside a tie: none when the page starts within a window
 * of its value's first rank; else one a window of the ranks skipped inside it, and two for the point
 * in time the walk opens and closes.
 */
function tieWalk(ranked: ArrayLike<number | string>, from: number, size: number, window: number): number {
  if (from >= ranked.length) return 0;
  let first = from;
  while (first > 0 && ranked[first - 1] === ranked[from]) first--;
  const inside = from - first;
  return inside + size <= window ? 0 : Math.ceil(inside / window) + 2;
}
