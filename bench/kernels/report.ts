/**
 * The kernel suite's summary: top-k, merge and rank against the JS peers, and the scan floor.
 */
import { count as fmtCount, ms, ratio } from '../lib/format.ts';
import type { Chart } from '../lib/chart.ts';
import type { Params, Row } from '../lib/results.ts';

export type Group = 'topk' | 'merge' | 'rank' | 'scan';
export type Impl = 'wasm' | 'js-heap' | 'js-quickselect' | 'js-sort';
export type Input = 'random' | 'ascending';

export const TOPK_PEERS: Impl[] = ['js-heap', 'js-quickselect', 'js-sort'];

export function kernelsMarkdown(rows: Row[]): string {
  const out: string[] = [
    'Times are tinybench medians of per-call latency in ms (min–max in kernels.json). Keys are seeded random f64;',
    'order is descending (largest first). Speed-up = best JS peer / wasm; above 1 means wasm is faster.',
    '',
  ];
  const pick = (group: Group, impl: Impl, p: Params): Row | undefined =>
    rows.find((r) => r.group === group && r.strategy === impl && sameParams(r.params, p));
  const scan = rows.find((r) => r.group === 'scan' && r.strategy === 'wasm');

  const topk = rows.filter((r) => r.group === 'topk' && r.strategy === 'wasm');
  if (topk.length > 0) {
    const n = Number(topk[0].params.n);
    out.push(`## topk (n = ${n.toLocaleString('en-US')})`, '');
    out.push('"ascending" is the same keys sorted ascending: with descending order every entry beats the threshold.');
    out.push('js-sort sorts the keys only (no ids): the native floor, not a full top-k.', '');
    out.push(`| k | input | wasm ms | ${TOPK_PEERS.map((p) => `${p} ms`).join(' | ')} | speed-up (best peer) | wasm / scan |`);
    out.push(`|---:|---|---:|${TOPK_PEERS.map(() => '---:|').join('')}---:|---:|`);
    for (const w of topk) {
      const peers = TOPK_PEERS.map((impl) => ({ impl, row: pick('topk', impl, w.params) }));
      const best = peers.filter((p) => p.row).sort((a, b) => a.row!.median - b.row!.median)[0];
      const speedup = best ? `${ratio(best.row!.median / w.median)} (${best.impl})` : '—';
      const floor = scan ? ratio(w.median / scan.median) : '—';
      out.push(`| ${fmtCount(w.params.k)} | ${w.params.input} | ${ms(w.median)} | ${peers.map((p) => (p.row ? ms(p.row.median) : '—')).join(' | ')} | ${speedup} | ${floor} |`);
    }
    out.push('', '### wasm topk: ascending / random', '');
    out.push('| k | random ms | ascending ms | ascending / random |', '|---:|---:|---:|---:|');
    for (const w of topk.filter((r) => r.params.input === 'random')) {
      const asc = pick('topk', 'wasm', { ...w.params, input: 'ascending' });
      out.push(`| ${fmtCount(w.params.k)} | ${ms(w.median)} | ${asc ? ms(asc.median) : '—'} | ${asc ? ratio(asc.median / w.median) : '—'} |`);
    }
    out.push('');
  }

  const merge = rows.filter((r) => r.group === 'merge' && r.strategy === 'wasm');
  if (merge.length > 0) {
    out.push('## merge (whole input, from 0)', '');
    out.push('| runs | runLength | items | wasm ms | wasm ns/item | js-heap ms | js-heap ns/item | speed-up |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const w of merge) {
      const items = Number(w.params.runs) * Number(w.params.runLength);
      const js = pick('merge', 'js-heap', w.params);
      const cells = js ? [ms(js.median), nsPer(js.median, items), ratio(js.median / w.median)] : ['—', '—', '—'];
      out.push(`| ${w.params.runs} | ${fmtCount(w.params.runLength)} | ${fmtCount(items)} | ${ms(w.median)} | ${nsPer(w.median, items)} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }

  const rank = rows.filter((r) => r.group === 'rank' && r.strategy === 'wasm');
  if (rank.length > 0) {
    out.push('## rank (per-run splits at a global rank)', '');
    out.push('js-heap merges from the start up to the rank, counting per run (what Elasticsearch does).', '');
    out.push('| runs | runLength | rank | wasm ms | js-heap ms | speed-up |', '|---:|---:|---:|---:|---:|---:|');
    for (const w of rank) {
      const js = pick('rank', 'js-heap', w.params);
      out.push(`| ${w.params.runs} | ${fmtCount(w.params.runLength)} | ${fmtCount(w.params.rank)} | ${ms(w.median)} | ${js ? ms(js.median) : '—'} | ${js ? ratio(js.median / w.median) : '—'} |`);
    }
    out.push('');
  }

  if (scan) {
    const n = Number(scan.params.n);
    out.push('## scan floor (wasm sumKeys, one scalar pass)', '');
    out.push('| n | wasm ms | GB/s |', '|---:|---:|---:|');
    out.push(`| ${fmtCount(n)} | ${ms(scan.median)} | ${((n * 8) / (scan.median * 1e6)).toFixed(1)} |`, '');
  }
  return out.join('\n');
}

function sameParams(a: Params, b: Params): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

function nsPer(msTotal: number, items: number): string {
  return ((msTotal * 1e6) / items).toFixed(1);
}


/** Top-k cost against k on random keys, one line per implementation. */
export function topkChart(rows: Row[]): Chart {
  const topk = rows.filter((r) => r.group === 'topk' && r.params.input === 'random');
  return {
    name: 'topk',
    title: `Top-k of ${fmtCount(topk[0]?.params.n)} random f64 keys`,
    x: { title: 'k' },
    y: { title: 'median ms' },
    points: topk.map((r) => ({ x: Number(r.params.k), y: r.median, series: r.strategy })),
  };
}
