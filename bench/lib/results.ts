/**
 * What every suite produces, and how it is written: `<suite>.json` (the rows, with the machine and
 * Node version), `<suite>.md` (the suite's summary) and one SVG per chart.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, totalmem } from 'node:os';
import type { Chart } from './chart.ts';
import { renderChart } from './chart.ts';

export type ParamValue = number | string;
export type Params = Record<string, ParamValue>;

/** The unit of a row's median/min/max. Latencies are ms; throughputs are per second; a share is a fraction (0.5 is half). */
export type Unit = 'ms' | 'req/s' | 'docs/s' | 'bytes' | 'bytes/doc' | 'share of hello-world';

export interface Row {
  /** A suite's part, e.g. `from` (the from sweep) or `topk`. */
  group: string;
  /** Who answered: deeppage's own strategy or a peer, e.g. `deeppage`, `es-style-js`, `orama`. */
  strategy: string;
  params: Params;
  unit: Unit;
  median: number;
  min: number;
  max: number;
  /** How many measurements the median is of. */
  samples: number;
}

export interface Machine {
  cpus: number;
  cpu: string;
  memory_bytes: number;
  platform: string;
  arch: string;
}

export interface SuiteOutput {
  rows: Row[];
  /** The Markdown summary, without the header the runner adds. */
  markdown: string;
  charts: Chart[];
  /** Anything a reader needs to reproduce or judge the rows: data sets, seeds, checks done. */
  notes?: Record<string, unknown>;
}

export interface RunInfo {
  suite: string;
  command: string;
  mode: 'full' | 'quick' | 'smoke';
  date: string;
  node: string;
  machine: Machine;
}

export function machine(): Machine {
  const list = cpus();
  return { cpus: list.length, cpu: list[0]?.model.trim() ?? 'unknown', memory_bytes: totalmem(), platform: platform(), arch: arch() };
}

/** Writes `<suite>.json`, `<suite>.md` and the charts into `dir`; returns the file names written. */
export async function writeSuite(dir: string, info: RunInfo, output: SuiteOutput): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const put = (name: string, text: string) => {
    writeFileSync(`${dir}/${name}`, text);
    files.push(name);
  };
  put(`${info.suite}.json`, JSON.stringify({ ...info, notes: output.notes ?? {}, rows: output.rows }, null, 1) + '\n');
  const m = info.machine;
  const header = [
    `# deeppage benchmark: ${info.suite}`,
    '',
    `\`${info.command}\` · ${info.date.slice(0, 10)} · Node ${info.node} · ${m.cpus} × ${m.cpu} · ${(m.memory_bytes / 2 ** 30).toFixed(0)} GiB`,
    '',
  ];
  const charts = output.charts.map((c) => `![${c.title}](${info.suite}-${c.name}.svg)`);
  put(`${info.suite}.md`, [...header, ...(charts.length ? [charts.join('\n'), ''] : []), output.markdown.trimEnd(), ''].join('\n'));
  for (const chart of output.charts) put(`${info.suite}-${chart.name}.svg`, await renderChart(chart));
  return files;
}
