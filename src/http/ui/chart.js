/**
 * The cost chart: each measured page as a point at its depth (`from`, in hits) and its cost (in ms),
 * one series per paging strategy, drawn as inline SVG; and the same points as a table and a sentence,
 * for those who cannot see the chart.
 *
 * A measurement is `{ page, from, costs: { [paging]: { tookMs, wallMs } } }`; a view is
 * `{ measurements, measure: 'tookMs' | 'wallMs', maxFrom, currentFrom, strategies }`, `strategies`
 * being the page's (search.js's `strategiesFor`).
 */
import { formatCompact, formatCount, formatMs, formatTenths } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Space around the plot for tick labels and axis titles, in CSS pixels. */
const MARGIN = { left: 60, right: 18, top: 14, bottom: 50 };
const POINT_SIZE = 8;

export const MEASURES = Object.freeze({
  tookMs: { axis: 'took (ms)', phrase: 'took' },
  wallMs: { axis: 'wall time (ms)', phrase: 'wall time' },
});

function svgElement(name, attributes = {}, text) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** A step of 1, 2 or 5 times a power of ten that splits `max` into about `parts` parts. */
function niceStep(max, parts) {
  const rough = max / parts;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].find((m) => m * power >= rough) * power;
}

/** 0, step, 2 step, … up to `max` (multiplied, not summed, so that 0.1 steps stay exact enough to label). */
function ticks(max, step) {
  return Array.from({ length: Math.floor(max / step + 1e-9) + 1 }, (_, i) => i * step);
}

/** Maps `[d0, d1]` onto `[r0, r1]`. */
const linear = ([d0, d1], [r0, r1]) => (value) => r0 + ((value - d0) / (d1 - d0)) * (r1 - r0);

const costsOf = ({ measurements, measure, strategies }) => measurements.flatMap((m) => strategies.map(({ paging }) => m.costs[paging][measure]));

/** The plot's frame and scales for this view at this width. */
function layout(view, width, height) {
  const costs = costsOf(view);
  const costMax = Math.max(1, ...costs);
  const costStep = niceStep(costMax, 4);
  const costTop = Math.ceil(costMax / costStep) * costStep;
  const depthMax = Math.max(1, view.maxFrom);
  const frame = { left: MARGIN.left, right: width - MARGIN.right, top: MARGIN.top, bottom: height - MARGIN.bottom };
  return {
    frame,
    depthMax,
    costStep,
    costTop,
    x: linear([0, depthMax], [frame.left, frame.right]),
    y: linear([0, costTop], [frame.bottom, frame.top]),
  };
}

function depthAxis({ frame, depthMax, x }) {
  const parts = Math.max(2, Math.floor((frame.right - frame.left) / 90));
  const group = svgElement('g', { class: 'axis' });
  for (const value of ticks(depthMax, niceStep(depthMax, parts))) {
    group.append(svgElement('line', { x1: x(value), x2: x(value), y1: frame.bottom, y2: frame.bottom + 5 }));
    group.append(svgElement('text', { x: x(value), y: frame.bottom + 18, 'text-anchor': 'middle' }, formatCompact(value)));
  }
  group.append(svgElement('line', { x1: frame.left, x2: frame.right, y1: frame.bottom, y2: frame.bottom }));
  group.append(svgElement('text', { class: 'axis-title', x: (frame.left + frame.right) / 2, y: frame.bottom + 40, 'text-anchor': 'middle' }, 'depth: from (hits skipped)'));
  return group;
}

function costAxis({ frame, costStep, costTop, y }, measure) {
  const group = svgElement('g', { class: 'axis' });
  for (const value of ticks(costTop, costStep)) {
    group.append(svgElement('line', { class: 'grid', x1: frame.left, x2: frame.right, y1: y(value), y2: y(value) }));
    group.append(svgElement('text', { x: frame.left - 8, y: y(value) + 4, 'text-anchor': 'end' }, formatTenths(value)));
  }
  group.append(svgElement('line', { x1: frame.left, x2: frame.left, y1: frame.top, y2: frame.bottom }));
  const middle = (frame.top + frame.bottom) / 2;
  group.append(svgElement('text', { class: 'axis-title', x: 14, y: middle, 'text-anchor': 'middle', transform: `rotate(-90 14 ${middle})` }, `cost: ${MEASURES[measure].axis}`));
  return group;
}

/** sorted_runs as circles, top_k as squares: the shape tells them apart without the colour. */
function point(paging, cx, cy) {
  const half = POINT_SIZE / 2;
  return paging === 'top_k'
    ? svgElement('rect', { x: cx - half, y: cy - half, width: POINT_SIZE, height: POINT_SIZE })
    : svgElement('circle', { cx, cy, r: half });
}

function series({ x, y }, view, { paging, label }) {
  const group = svgElement('g', { class: `series series-${paging}` });
  for (const m of view.measurements) {
    const cost = m.costs[paging][view.measure];
    const marker = point(paging, x(m.from), y(cost));
    marker.append(svgElement('title', {}, `${label}: page ${formatCount(m.page)} (from ${formatCount(m.from)}), ${MEASURES[view.measure].phrase} ${formatMs(cost)}`));
    group.append(marker);
  }
  return group;
}

function currentDepth({ frame, x }, from) {
  return svgElement('line', { class: 'current-depth', x1: x(from), x2: x(from), y1: frame.top, y2: frame.bottom });
}

/** Draws `view` into `svg` at the size the page gives it, so that its text is as large as the page's. */
export function drawCostChart(svg, view) {
  const width = Math.max(280, Math.round(svg.getBoundingClientRect().width) || 640);
  const height = Math.round(Math.min(340, Math.max(240, width * 0.55)));
  const scales = layout(view, width, height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('height', String(height));
  const title = svgElement('title', { id: 'cost-chart-title' }, `Cost against depth, ${MEASURES[view.measure].phrase} in milliseconds`);
  const desc = svgElement('desc', { id: 'cost-chart-desc' }, describeCostChart(view));
  const parts = [title, desc, costAxis(scales, view.measure), depthAxis(scales)];
  if (view.currentFrom !== undefined) parts.push(currentDepth(scales, view.currentFrom));
  // sorted_runs last, on top: its points sit low, where top_k's would hide them.
  parts.push(...[...view.strategies].reverse().map((strategy) => series(scales, view, strategy)));
  svg.replaceChildren(...parts);
}

/** The chart in a sentence: how many pages, and each strategy's cheapest and dearest page. */
export function describeCostChart({ measurements, measure, strategies }) {
  if (measurements.length === 0) return 'No pages measured yet.';
  const { phrase } = MEASURES[measure];
  const pages = `${formatCount(measurements.length)} ${measurements.length === 1 ? 'page' : 'pages'} measured.`;
  const extremes = strategies.map(({ paging, label }) => {
    const sorted = [...measurements].sort((a, b) => a.costs[paging][measure] - b.costs[paging][measure]);
    const [low, high] = [sorted[0], sorted[sorted.length - 1]];
    const at = (m) => `${formatMs(m.costs[paging][measure])} at from ${formatCount(m.from)}`;
    return `${label}: ${phrase} from ${at(low)} to ${at(high)}.`;
  });
  return [pages, ...extremes].join(' ');
}

/** One row per measured page, by depth: page, from, then took and wall time for each strategy. */
export function renderCostRows(tbody, measurements, strategies) {
  const rows = [...measurements]
    .sort((a, b) => a.from - b.from)
    .map((m) => {
      const row = document.createElement('tr');
      const header = document.createElement('th');
      header.scope = 'row';
      header.textContent = formatCount(m.page);
      const cells = [formatCount(m.from), ...strategies.flatMap(({ paging }) => [formatMs(m.costs[paging].tookMs), formatMs(m.costs[paging].wallMs)])];
      row.append(header, ...cells.map((text) => Object.assign(document.createElement('td'), { textContent: text })));
      return row;
    });
  tbody.replaceChildren(...rows);
}
