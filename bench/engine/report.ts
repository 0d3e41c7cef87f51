/**
 * The engine suite's summary and charts. Every ratio is a peer's median over deeppage's at the same
 * point of the same run: above 1 means deeppage is faster.
 */
import type { Chart, Point } from '../lib/chart.ts';
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import type { Strategy } from './strategy.ts';

const OURS = 'deeppage';

/** Where the rows came from: corpus and shard count, in run order. */
function setups(rows: Row[]): { corpus: string; docs: number; shards: number }[] {
  const seen = new Map<string, { corpus: string; docs: number; shards: number }>();
  for (const r of rows) {
    const key = `${r.params.corpus}/${r.params.shards}`;
    if (!seen.has(key)) seen.set(key, { corpus: String(r.params.corpus), docs: Number(r.params.docs), shards: Number(r.params.shards) });
  }
  return [...seen.values()];
}

/** What the deeppage series measure, in the report. */
export const DEEPPAGE_STATES =
  '`deeppage` is the warm state: every segment keeps its sorted run (built by the deep pages of the checks, or between requests after a shallow one, and waited for before timing). `deeppage-cold` is a first page under the sort, right after `_cache/clear`: top-k where the page reaches less than half of a segment, a whole sort of the segment beyond, and pivots on the sort key (no sort) where that would sort 65,536 documents or more. `deeppage-top-k` is Elasticsearch\'s algorithm on the same engine (`paging=top_k`).';

export function engineMarkdown(rows: Row[], strategies: Strategy[]): string {
  const out: string[] = [];
  out.push('Median ms per page, in process (min–max and sample counts in engine.json). Sorted by one numeric field, descending; match_all.');
  out.push('Ratios are each peer over deeppage at the same point of this run: above 1 means deeppage is faster.', '');
  const described = strategies.flatMap((s) => {
    const checked = s.ties === 'exact' ? 'ids equal the reference' : 'keys equal the reference';
    const cold = rows.some((r) => r.strategy === `${s.name}-cold`);
    return [[s.name, s.description, checked], ...(cold ? [[`${s.name}-cold`, `the same after \`_cache/clear\` before every page: what a first page costs, before any sorted run`, checked]] : [])];
  });
  out.push(table(['strategy', 'what one page does', 'checked'], described), '');
  out.push(DEEPPAGE_STATES, '');
  if (rows.some((r) => r.strategy === 'sqlite-keyset')) {
    out.push('`sqlite-keyset` is not a `from`/`size` page: it seeks past a hit the client already holds, so reaching depth `from` means having fetched the page before it. It is here as the floor a client can reach when it pages strictly forward.', '');
  }
  for (const setup of setups(rows)) {
    const here = rows.filter((r) => r.params.corpus === setup.corpus && r.params.shards === setup.shards);
    const names = [...new Set(here.map((r) => r.strategy))];
    const peers = names.filter((name) => name !== OURS);
    out.push(`## ${setup.corpus}: ${count(setup.docs)} documents, ${setup.shards} shard${setup.shards === 1 ? '' : 's'}`, '');
    for (const group of ['from', 'size', 'after'] as const) {
      const points = here.filter((r) => r.group === group && r.strategy === OURS);
      if (points.length === 0) continue;
      const other = group === 'size' ? 'from' : 'size';
      const what = group === 'after' ? '`search_after` the hit before `from`, over a point in time' : `${group} sweep`;
      out.push(`${what} (${other} = ${points[0].params[other]}):`, '');
      const lines = points.map((p) => {
        const at = (name: string) => here.find((r) => r.group === group && r.strategy === name && r.params.from === p.params.from && r.params.size === p.params.size);
        return [
          count(p.params[group === 'after' ? 'from' : group]),
          ...names.map((name) => (at(name) ? ms(at(name)!.median) : '—')),
          ...peers.map((name) => (at(name) ? ratio(at(name)!.median / p.median) : '—')),
        ];
      });
      const shown = names.filter((name) => here.some((r) => r.group === group && r.strategy === name));
      const shownPeers = peers.filter((name) => shown.includes(name));
      out.push(table([group === 'after' ? 'position' : group, ...shown.map((n) => `${n} ms`), ...shownPeers.map((n) => `${n} / ${OURS}`)], lines.map((line) => [line[0], ...shown.map((n) => line[1 + names.indexOf(n)]), ...shownPeers.map((n) => line[1 + names.length + peers.indexOf(n)])])), '');
    }
  }
  return out.join('\n');
}

/** Cost vs from and vs size for the synthetic corpora (a panel per document and shard count), and the same for the cities. */
export function engineCharts(rows: Row[]): Chart[] {
  const points = (group: 'from' | 'size', cities: boolean): Point[] =>
    rows
      .filter((r) => r.group === group && (r.params.corpus === 'cities') === cities)
      .map((r) => ({
        x: Number(r.params[group]),
        y: r.median,
        series: r.strategy,
        ...(!cities && { row: `${count(r.params.docs)} docs`, column: `${r.params.shards} shard${r.params.shards === 1 ? '' : 's'}` }),
      }));
  const charts: Chart[] = [];
  const add = (chart: Chart) => chart.points.length > 0 && charts.push(chart);
  add({ name: 'from', title: 'One page of 10: cost vs from (products)', x: { title: 'from', scale: 'symlog' }, y: { title: 'median ms per page' }, points: points('from', false) });
  add({ name: 'size', title: 'One page from 0: cost vs size (products)', x: { title: 'size' }, y: { title: 'median ms per page' }, points: points('size', false) });
  add({ name: 'cities-from', title: 'Cities by population, 5 shards: cost vs from', x: { title: 'from', scale: 'symlog' }, y: { title: 'median ms per page' }, points: points('from', true) });
  add({ name: 'cities-size', title: 'Cities by population, 5 shards: cost vs size', x: { title: 'size' }, y: { title: 'median ms per page' }, points: points('size', true) });
  return charts;
}
