/**
 * Log-log line charts, one line per strategy, rendered to SVG by vega-lite and vega's headless
 * renderer: no browser and no canvas package (vega estimates text widths).
 *
 * @example
 * await renderChart({ name: 'from', title: 'Cost vs from', x: { title: 'from' }, y: { title: 'ms' },
 *   points: [{ x: 10, y: 0.2, series: 'deeppage' }, { x: 1000, y: 0.3, series: 'deeppage' }] });
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface Point {
  x: number;
  y: number;
  /** One line per series: a strategy or peer. */
  series: string;
  /** Optional small-multiple panels, e.g. the document count (rows) and the shard count (columns). */
  row?: string;
  column?: string;
}

export interface Chart {
  /** The file is `<suite>-<name>.svg`. */
  name: string;
  title: string;
  x: {
    title: string;
    /** `symlog` keeps 0 on a log-like axis (for `from = 0`); the default is `log`. */
    scale?: 'log' | 'symlog';
  };
  y: { title: string };
  points: Point[];
}

/** 0, 10, 100, 1k, 10k, 100k, 1M: d3's `~s` would put a shared prefix on a whole axis (`0k` for 100). */
const SHORT_NUMBER = "datum.value >= 1e6 ? format(datum.value / 1e6, '~r') + 'M' : datum.value >= 1e3 ? format(datum.value / 1e3, '~r') + 'k' : format(datum.value, '~r')";

export async function renderChart(chart: Chart): Promise<string> {
  const rows = distinct(chart.points.map((p) => p.row));
  const columns = distinct(chart.points.map((p) => p.column));
  const facets = rows.length > 0 || columns.length > 0;
  // Ticks at the measured x values only: the sweeps are powers of ten, and a log axis would add 20, 30, 200…
  const ticks = distinct(chart.points.map((p) => p.x)).sort((a, b) => a - b);
  const layer = {
    mark: { type: 'line' as const, point: true, strokeWidth: 1.5 },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative' as const,
        title: chart.x.title,
        scale: chart.x.scale === 'symlog' ? { type: 'symlog' as const } : { type: 'log' as const },
        axis: { labelExpr: SHORT_NUMBER, labelFlush: true, labelOverlap: false, values: ticks },
      },
      y: { field: 'y', type: 'quantitative' as const, title: chart.y.title, scale: { type: 'log' as const }, axis: { format: '~g' } },
      color: { field: 'series', type: 'nominal' as const, title: null, legend: { orient: 'bottom' as const, columns: 4, labelLimit: 320 } },
      tooltip: [{ field: 'series' }, { field: 'x' }, { field: 'y' }],
    },
  };
  const base = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    background: 'white',
    data: { values: chart.points },
    config: { font: 'sans-serif', axis: { grid: true, gridOpacity: 0.4 } },
  };
  const spec: TopLevelSpec = facets
    ? ({
        ...base,
        facet: {
          ...(rows.length > 0 && { row: { field: 'row', type: 'nominal', title: null, sort: rows } }),
          ...(columns.length > 0 && { column: { field: 'column', type: 'nominal', title: null, sort: columns } }),
        },
        spec: { width: 220, height: 170, ...layer },
        resolve: { scale: { y: 'shared' } },
      } as TopLevelSpec)
    : ({ ...base, width: 420, height: 280, ...layer } as TopLevelSpec);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg + '\n';
}

/** The defined values, each once, in order of first appearance. */
function distinct<T>(values: (T | undefined)[]): T[] {
  return [...new Set(values.filter((v): v is T => v !== undefined))];
}
