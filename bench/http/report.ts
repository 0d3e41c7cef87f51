/** The http suite's summary: throughput against the hello-world ceiling, and the from/size sweeps. */
import type { Chart } from '../lib/chart.ts';
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import type { SweepGroup } from './sweep.ts';
import type { LoadProfile, Throughput } from './throughput.ts';

export function throughputMarkdown(list: Throughput[], profile: LoadProfile): string {
  const ceiling = list.find((t) => t.endpoint.strategy === 'hono');
  const rows = list.map(({ endpoint, result }) => [
    endpoint.name,
    `\`${endpoint.method} ${endpoint.path}\``,
    count(result.rate.median),
    endpoint.docs ? count(result.rate.median * endpoint.docs) : '—',
    ms(result.latency.median),
    ms(result.p99),
    ceiling ? percent(result.rate.median / ceiling.result.rate.median) : '—',
  ]);
  return [
    '## Throughput',
    '',
    `autocannon in this process, ${profile.connections} connections, ${bound(profile.load)} per endpoint after ${bound(profile.warmup)} of warm-up;`,
    'each server is a child process. req/s is the median of the per-second request counts; latency is per request.',
    '"of hello-world" is req/s as a share of what a bare Hono app answering `{"hello":"world"}` managed in the',
    "same run: the framework's ceiling on this machine.",
    '',
    table(['endpoint', 'request', 'req/s', 'docs/s', 'latency p50 ms', 'p99 ms', 'of hello-world'], rows, 'llrrrrr'),
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

/** `checks` says, per target, what its pages were checked against. */
export function sweepMarkdown(rows: Row[], checks: Record<string, string>): string {
  const strategies = [...new Set(rows.map((r) => r.strategy))];
  const [local, ...remotes] = strategies;
  const out: string[] = [
    '## Paging over HTTP',
    '',
    '`GET /{index}/_search?from=F&size=S&sort={field}:desc`, one request at a time on one connection:',
    'median latency per page in ms (min, max and request counts in http.json). Every page was checked first:',
    '',
    ...Object.entries(checks).map(([target, check]) => `- ${target}: ${check}.`),
    '',
  ];
  for (const group of ['from', 'size'] as SweepGroup[]) {
    const own = rows.filter((r) => r.group === group);
    const xs = [...new Set(own.map((r) => Number(r.params[group])))];
    const at = (strategy: string, x: number) => own.find((r) => r.strategy === strategy && Number(r.params[group]) === x);
    const headers = [group, ...strategies.map((s) => `${s} ms`), ...remotes.map((s) => `${s} / ${local}`)];
    const lines = xs.map((x) => {
      const mine = at(local, x);
      return [
        count(x),
        ...strategies.map((s) => (at(s, x) ? ms(at(s, x)!.median) : '—')),
        ...remotes.map((s) => (at(s, x) && mine ? ratio(at(s, x)!.median / mine.median) : '—')),
      ];
    });
    out.push(`### ${group === 'from' ? 'from, at size 10' : 'size, at from 0'}`, '', table(headers, lines), '');
    if (group === 'from' && xs.length > 1) {
      const first = xs[0], last = xs[xs.length - 1];
      const ratios = strategies.map((s) => {
        const shallow = at(s, first), deep = at(s, last);
        return [s, shallow ? ms(shallow.median) : '—', deep ? ms(deep.median) : '—', shallow && deep ? ratio(deep.median / shallow.median) : '—'];
      });
      out.push(table(['target', `from ${count(first)} ms`, `from ${count(last)} ms`, 'deep / shallow'], ratios), '');
    }
  }
  return out.join('\n');
}

export function sweepCharts(rows: Row[]): Chart[] {
  const points = (group: SweepGroup) =>
    rows.filter((r) => r.group === group).map((r) => ({ x: Number(r.params[group]), y: r.median, series: r.strategy }));
  return [
    { name: 'from', title: 'One page over HTTP, size 10', x: { title: 'from', scale: 'symlog' }, y: { title: 'median ms per page' }, points: points('from') },
    { name: 'size', title: 'One page over HTTP, from 0', x: { title: 'size' }, y: { title: 'median ms per page' }, points: points('size') },
  ];
}
