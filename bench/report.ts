/**
 * Benchmark rows, and their two renderings: bench/results/kernels.json and kernels.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export type Suite = 'topk' | 'merge' | 'rank' | 'scan';
export type Impl = 'wasm' | 'js-heap' | 'js-quickselect' | 'js-sort' | 'js-reference';
export type Input = 'random' | 'ascending';

export interface Params {
  n?: number;
  k?: number;
  input?: Input;
  runs?: number;
  runLength?: number;
  rank?: number;
}

export interface Timing {
  median_ms: number;
  min_ms: number;
  max_ms: number;
}

export interface Row extends Timing {
  suite: Suite;
  impl: Impl;
  params: Params;
}

export interface Meta {
  node: string;
  date: string;
  command: string;
}

export const TOPK_PEERS: Impl[] = ['js-heap', 'js-quickselect', 'js-sort'];

/** Writes kernels.json and kernels.md into `dir`; returns the Markdown. */
export function writeReports(dir: URL, meta: Meta, rows: Row[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('kernels.json', dir), JSON.stringify({ node: meta.node, date: meta.date, rows }, null, 2) + '\n');
  const md = markdown(meta, rows);
  writeFileSync(new URL('kernels.md', dir), md);
  return md;
}

function markdown(meta: Meta, rows: Row[]): string {
  const cpu = cpus();
  const out: string[] = [
    '# deeppage kernel benchmark',
    '',
    `Node ${meta.node} · ${meta.date} · \`${meta.command}\` · ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}`,
    '',
    'Times are tinybench medians of per-call latency in ms (min–max in kernels.json). Keys are seeded random f64;',
    'order is descending (largest first). Speed-up = best JS peer / wasm; above 1 means wasm is faster.',
    '',
  ];
  const pick = (suite: Suite, impl: Impl, p: Params): Row | undefined =>
    rows.find((r) => r.suite === suite && r.impl === impl && sameParams(r.params, p));
  const scan = rows.find((r) => r.suite === 'scan' && r.impl === 'wasm');

  const topk = rows.filter((r) => r.suite === 'topk' && r.impl === 'wasm');
  if (topk.length > 0) {
    const n = topk[0].params.n ?? 0;
    out.push(`## topk (n = ${n.toLocaleString('en-US')})`, '');
    out.push('"ascending" is the same keys sorted ascending: with descending order every entry beats the threshold.');
    out.push('js-sort sorts the keys only (no ids): the native floor, not a full top-k.', '');
    out.push(`| k | input | wasm ms | ${TOPK_PEERS.map((p) => `${p} ms`).join(' | ')} | speed-up (best peer) | wasm / scan |`);
    out.push(`|---:|---|---:|${TOPK_PEERS.map(() => '---:|').join('')}---:|---:|`);
    for (const w of topk) {
      const peers = TOPK_PEERS.map((impl) => ({ impl, row: pick('topk', impl, w.params) }));
      const best = peers.filter((p) => p.row).sort((a, b) => a.row!.median_ms - b.row!.median_ms)[0];
      const speedup = best ? `${ratio(best.row!.median_ms / w.median_ms)} (${best.impl})` : '—';
      const floor = scan ? ratio(w.median_ms / scan.median_ms) : '—';
      out.push(`| ${fmtCount(w.params.k)} | ${w.params.input} | ${ms(w.median_ms)} | ${peers.map((p) => (p.row ? ms(p.row.median_ms) : '—')).join(' | ')} | ${speedup} | ${floor} |`);
    }
    out.push('', '### wasm topk: ascending / random', '');
    out.push('| k | random ms | ascending ms | ascending / random |', '|---:|---:|---:|---:|');
    for (const w of topk.filter((r) => r.params.input === 'random')) {
      const asc = pick('topk', 'wasm', { ...w.params, input: 'ascending' });
      out.push(`| ${fmtCount(w.params.k)} | ${ms(w.median_ms)} | ${asc ? ms(asc.median_ms) : '—'} | ${asc ? ratio(asc.median_ms / w.median_ms) : '—'} |`);
    }
    out.push('');
  }

  const merge = rows.filter((r) => r.suite === 'merge' && r.impl === 'wasm');
  if (merge.length > 0) {
    out.push('## merge (whole input, from 0)', '');
    out.push('| runs | runLength | items | wasm ms | wasm ns/item | js-heap ms | js-heap ns/item | speed-up |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const w of merge) {
      const items = (w.params.runs ?? 0) * (w.params.runLength ?? 0);
      const js = pick('merge', 'js-heap', w.params);
      const cells = js ? [ms(js.median_ms), nsPer(js.median_ms, items), ratio(js.median_ms / w.median_ms)] : ['—', '—', '—'];
      out.push(`| ${w.params.runs} | ${fmtCount(w.params.runLength)} | ${fmtCount(items)} | ${ms(w.median_ms)} | ${nsPer(w.median_ms, items)} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }

  const rank = rows.filter((r) => r.suite === 'rank' && r.impl === 'wasm');
  if (rank.length > 0) {
    out.push('## rank (per-run splits at a global rank)', '');
    out.push('js-heap merges from the start up to the rank, counting per run (what Elasticsearch does).', '');
    out.push('| runs | runLength | rank | wasm ms | js-heap ms | speed-up |', '|---:|---:|---:|---:|---:|---:|');
    for (const w of rank) {
      const js = pick('rank', 'js-heap', w.params);
      out.push(`| ${w.params.runs} | ${fmtCount(w.params.runLength)} | ${fmtCount(w.params.rank)} | ${ms(w.median_ms)} | ${js ? ms(js.median_ms) : '—'} | ${js ? ratio(js.median_ms / w.median_ms) : '—'} |`);
    }
    out.push('');
  }

  if (scan) {
    const n = scan.params.n ?? 0;
    out.push('## scan floor (wasm sumKeys, one scalar pass)', '');
    out.push('| n | wasm ms | GB/s |', '|---:|---:|---:|');
    out.push(`| ${fmtCount(n)} | ${ms(scan.median_ms)} | ${((n * 8) / (scan.median_ms * 1e6)).toFixed(1)} |`, '');
  }
  return out.join('\n');
}

function sameParams(a: Params, b: Params): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof Params)[]);
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2);
}

function ratio(x: number): string {
  return `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`;
}

function nsPer(msTotal: number, items: number): string {
  return ((msTotal * 1e6) / items).toFixed(1);
}

function fmtCount(x: number | undefined): string {
  return x === undefined ? '—' : x.toLocaleString('en-US');
}
