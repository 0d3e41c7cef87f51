/** The http suite's summary: throughput against the hello-world ceiling, and the from/size sweep per corpus. */
import type { Chart } from '../lib/chart.ts';
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import type { QuerySweepResult } from './queries.ts';
import { SERIES, type SweepGroup, type SweepResult } from './sweep.ts';
import type { LoadProfile, Throughput } from './throughput.ts';

export function throughputMarkdown(list: Throughput[], profile: LoadProfile): string {
  const ceiling = list.find((t) => t.endpoint.strategy === 'hono');
  const share = ({ result, ofCeiling }: Throughput) => {
    if (ofCeiling) return `${percent(ofCeiling.median)} (${percent(ofCeiling.min)}–${percent(ofCeiling.max)})`;
    return ceiling && ceiling.result !== result ? `${percent(result.rate.median / ceiling.result.rate.median)} †` : '—';
  };
  const rows = list.map((t) => [
    t.endpoint.name,
    String(t.connections),
    `\`${t.endpoint.method} ${t.endpoint.path}\``,
    count(t.result.rate.median),
    t.endpoint.docs ? count(t.result.rate.median * t.endpoint.docs) : '—',
    ms(t.result.latency.median),
    ms(t.result.p99),
    t.roundP99 ? `${ms(t.roundP99.median)} (${ms(t.roundP99.min)}–${ms(t.roundP99.max)})` : '—',
    share(t),
  ]);
  return [
    '## Throughput',
    '',
    `autocannon in this process, ${profile.connections} connections unless the table says otherwise, ${bound(profile.load)} per endpoint after ${bound(profile.warmup)} of warm-up;`,
    'each server is a child process. req/s is the median of the per-second request counts; latency is per request.',
    '"of hello-world" is req/s as a share of what a bare Hono app answering `{"hello":"world"}` managed: the',
    "framework's ceiling on this machine. Endpoints with a range beside their share were measured in rounds, taking",
    'turns with the ceiling: the share is the median over the rounds of the share in each (the range in brackets),',
    'and beside the p99 of all their requests is the median over the rounds of each round\'s p99.',
    '† marks a share of a ceiling measured minutes apart (this machine\'s speed drifts by tens of percent within minutes).',
    '',
    table(['endpoint', 'connections', 'request', 'req/s', 'docs/s', 'latency p50 ms', 'p99 ms', 'p99 ms by round', 'of hello-world'], rows, 'lrlrrrrrr'),
    '',
  ].join('\n');
}

/** A share with two significant figures: `100 %`, `3.1 %`, `0.12 %`. */
function percent(x: number): string {
  return `${Number((x * 100).toPrecision(2))} %`;
}

function bound(b: LoadProfile['load']): string {
  return 'seconds' in b ? `${b.seconds} s` : `${b.requests} requests`;
}

/**
 * Per corpus: the from sweep (every series, the ratios to the empty `GET /` beside it, top-k and
 * the remote against deeppage, deep against shallow) and the size sweep.
 */
export function sweepMarkdown(results: SweepResult[]): string {
  const out: string[] = [
    '## Paging over HTTP',
    '',
    '`GET /{index}/_search?from=F&size=S&sort={field}:desc`, `_source` included, one request at a time on one connection,',
    'every series of a point measured right after the other on the same server: median latency in ms (min, max and',
    'request counts in http.json). `deeppage` is the default `paging=sorted_runs` in the warm state, `deeppage-top-k` the',
    "same request with `&paging=top_k` (Elasticsearch's algorithm: each shard's top from + size, merged),",
    '`deeppage-cold` the page right after `POST /{index}/_cache/clear`, and `deeppage GET /` an empty `GET /` of the',
    'same server, measured beside every point: the target is a page at any depth for at most 3× that. Every page was',
    'checked before timing (the checks and states are in http.json, under notes.sweep).',
    '',
  ];
  for (const result of results) out.push(...corpusMarkdown(result));
  return out.join('\n');
}

function corpusMarkdown({ label, series, rows, state, skipped, warmRuns }: SweepResult): string[] {
  const rootName = series[0];
  const remotes = series.filter((s) => s.startsWith('remote ') && !s.endsWith(' GET /'));
  const at = (group: SweepGroup, strategy: string, x: number) => rows.find((r) => r.group === group && r.strategy === strategy && Number(r.params[group]) === x);
  const cell = (row: Row | undefined) => (row ? ms(row.median) : '—');
  const over = (a: Row | undefined, b: Row | undefined) => (a && b ? ratio(a.median / b.median) : '—');
  const xs = (group: SweepGroup) => [...new Set(rows.filter((r) => r.group === group).map((r) => Number(r.params[group])))];

  const out = [`### ${label}`, '', `${state.documents} documents; ${String(state.loading)}.`, ''];
  const froms = xs('from');
  const fromHeaders = [
    'from',
    ...series.map((s) => `${s} ms`),
    'deeppage / GET /',
    'cold / GET /',
    `top-k / deeppage`,
    ...remotes.map((s) => `${s} / deeppage`),
  ];
  const fromLines = froms.map((x) => {
    const root = at('from', rootName, x), mine = at('from', SERIES.local, x);
    return [
      count(x),
      ...series.map((s) => cell(at('from', s, x))),
      over(mine, root),
      over(at('from', SERIES.cold, x), root),
      over(at('from', SERIES.topK, x), mine),
      ...remotes.map((s) => over(at('from', s, x), mine)),
    ];
  });
  out.push('#### from, at size 10', '', table(fromHeaders, fromLines), '');

  if (froms.length > 1) {
    const first = froms[0], last = froms[froms.length - 1];
    const deepShallow = series.filter((s) => !s.endsWith(' GET /')).map((s) => {
      const shallow = at('from', s, first), deep = at('from', s, last);
      return [s, cell(shallow), cell(deep), over(deep, shallow)];
    });
    out.push(table(['series', `from ${count(first)} ms`, `from ${count(last)} ms`, 'last page / first page'], deepShallow), '');
    const ratios = froms
      .map((x) => ({ x, mine: at('from', SERIES.local, x), root: at('from', rootName, x) }))
      .filter((r) => r.mine && r.root)
      .map((r) => ({ x: r.x, ratio: r.mine!.median / r.root!.median }));
    if (ratios.length > 0) {
      const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
      out.push(`deeppage / GET /: at most ${ratio(worst.ratio)} (at from = ${count(worst.x)}).`, '');
    }
  }
  out.push(
    `Warm state: every point asked once, then no background run build pending, until a pass built nothing: ${count(warmRuns.count)} sorted runs, ` +
      `${bytes(warmRuns.memory_size_in_bytes)}, re-established after each cold series. Cold: no build pending, \`_cache/clear\`, 0 runs ` +
      'left, then the timed page (only that request timed).',
    '',
  );
  if (skipped.length > 0) out.push(`Not asked of ${remotes.join(', ')}, beyond its result window: ${skipped.join(', ')}.`, '');

  const sizes = xs('size');
  if (sizes.length > 0) {
    const sizeSeries = series.filter((s) => rows.some((r) => r.group === 'size' && r.strategy === s));
    const lines = sizes.map((x) => {
      const mine = at('size', SERIES.local, x);
      return [count(x), ...sizeSeries.map((s) => cell(at('size', s, x))), over(at('size', SERIES.topK, x), mine), ...remotes.map((s) => over(at('size', s, x), mine))];
    });
    out.push('#### size, at from 0', '', table(['size', ...sizeSeries.map((s) => `${s} ms`), 'top-k / deeppage', ...remotes.map((s) => `${s} / deeppage`)], lines), '');
  }
  return out;
}

/**
 * Searches with a query over HTTP: each page in the three series, against the `match_all` first
 * page of the same corpus's sweep (the sweep's warm `deeppage` at from 0, sorted by the field).
 */
export function queryMarkdown(result: QuerySweepResult, sweep: SweepResult | undefined): string {
  const { rows } = result;
  const base = sweep?.rows.find((r) => r.group === 'from' && r.strategy === SERIES.local && r.params.from === 0);
  const at = (strategy: string, search: string, from: unknown) => rows.find((r) => r.strategy === strategy && r.params.search === search && r.params.from === from);
  const cell = (row: Row | undefined) => (row ? ms(row.median) : '—');
  const over = (a: Row | undefined, b: Row | undefined) => (a && b ? ratio(a.median / b.median) : '—');
  const lines = rows
    .filter((r) => r.strategy === SERIES.local)
    .map((r) => {
      const search = String(r.params.search);
      const depth = r.params.depth === 'last' ? `last (${count(r.params.from)})` : count(r.params.from);
      return [search, depth, cell(r), cell(at(SERIES.topK, search, r.params.from)), cell(at(SERIES.cold, search, r.params.from)), over(r, base), over(at(SERIES.topK, search, r.params.from), r), over(at(SERIES.cold, search, r.params.from), r)];
    });
  return [
    `## Searches with a query over HTTP: ${result.label}`,
    '',
    '`POST /{index}/_search` with a JSON body (`from`, `size` 10 and the request below), `_source` included, one request at a time on one connection. `deeppage`: the default paging,',
    `warm (the search asked before, no run build pending); \`${SERIES.topK}\`: \`?paging=top_k\`; \`${SERIES.cold}\`: right after \`_cache/clear\`. Every page was checked first (http.json, notes.queries).`,
    base ? `\`deeppage / match_all\`: over the \`match_all\` first page of the cities' sweep (\`deeppage\` at from 0 by ${String(base.params.sort)}, ${ms(base.median)} ms).` : '',
    '',
    table(['search', 'request', 'matches'], result.searches.map((s) => [s.name, `\`${s.request}\``, count(s.matches)]), 'llr'),
    '',
    table(['search', 'from', `${SERIES.local} ms`, `${SERIES.topK} ms`, `${SERIES.cold} ms`, `${SERIES.local} / match_all`, 'top-k / deeppage', 'cold / deeppage'], lines),
    '',
  ].join('\n');
}

/** Per corpus, cost against from and against size, log-log: `from-<index>.svg`, `size-<index>.svg`. */
export function sweepCharts(results: SweepResult[]): Chart[] {
  return results.flatMap(({ label, index, rows }) => {
    const points = (group: SweepGroup) => rows.filter((r) => r.group === group).map((r) => ({ x: Number(r.params[group]), y: r.median, series: r.strategy }));
    return [
      { name: `from-${index}`, title: `${label}: one request over HTTP, size 10`, x: { title: 'from', scale: 'symlog' as const }, y: { title: 'median ms per request' }, points: points('from') },
      { name: `size-${index}`, title: `${label}: one page over HTTP, from 0`, x: { title: 'size' }, y: { title: 'median ms per page' }, points: points('size') },
    ];
  });
}

/** 36 KiB, 11.4 MiB. */
function bytes(n: number): string {
  return n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`;
}
