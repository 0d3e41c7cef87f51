/**
 * The paging page: pick an index, a sort and a page size, then go to any page by number, slider or
 * step buttons. Every page is fetched with both paging strategies, one after the other so that
 * neither slows the other; the hits shown are those sorted_runs gave, and both costs go to the chart.
 *
 * Pages are loaded one at a time: a page asked for while another loads waits, and only the latest
 * such wish is kept, so dragging the slider measures the pages it settles on without piling up.
 * The choices live in the URL's fragment (`#index=cities&sort=population:desc&size=10&page=7`).
 *
 * Over a front of a cluster (search.js's `isFront`), each page is asked for once, of the front, at
 * any depth (depth.js), and the page says how the front made it: warm or cold, its snapshot and
 * what it cost the cluster.
 */
import { drawCostChart, MEASURES, renderCostRows } from './chart.js';
import { pageCount as pagesOf } from './depth.js';
import { formatCount, formatMs, formatTime } from './format.js';
import { describeIndex, isFront, listIndices, searchPage, strategiesFor } from './search.js';

const SLIDER_SETTLE_MS = 150;
/** How many `_source` fields a hit shows besides its sort value. */
const SOURCE_FIELDS_SHOWN = 3;

const byId = (id) => document.getElementById(id);
const ui = {
  indexSelect: byId('index-select'),
  sortField: byId('sort-field'),
  sortOrder: byId('sort-order'),
  pageSize: byId('page-size'),
  jumpForm: byId('jump-form'),
  pageNumber: byId('page-number'),
  pageCount: byId('page-count'),
  depthSlider: byId('depth-slider'),
  firstPage: byId('first-page'),
  previousPage: byId('previous-page'),
  nextPage: byId('next-page'),
  lastPage: byId('last-page'),
  windowLimit: byId('window-limit'),
  error: byId('error'),
  hitsPanel: byId('hits-panel'),
  hitsHeading: byId('hits-heading'),
  hitsRange: byId('hits-range'),
  pageCost: byId('page-cost').tBodies[0],
  pageServed: byId('page-served'),
  agreement: byId('agreement'),
  sortColumn: byId('sort-column'),
  hits: byId('hits').tBodies[0],
  chart: byId('cost-chart'),
  chartCaption: byId('chart-caption'),
  costRows: byId('cost-table').tBodies[0],
  status: byId('status'),
};

/** What is asked for: the index, the sort and the page size. */
const query = { index: '', field: '', order: 'asc', size: 10 };
/** What is known of the index, and what is shown. */
const shown = { total: 0, maxResultWindow: 10000, page: 1, measurements: [], measure: 'tookMs' };
/** The page asked for while another loads (the latest only), and whether a load is running. */
const loading = { wanted: null, running: false };
/** Whether a pointer holds the slider's thumb: a page loaded meanwhile must not pull the thumb back. */
const slider = { held: false };
/** Where the page runs: on deeppage itself, or over a front (then one strategy, the front's). */
const server = { front: false, strategies: strategiesFor(false) };

const pageCount = () => pagesOf({ total: shown.total, size: query.size, maxResultWindow: shown.maxResultWindow }, server.front);

const fromOf = (page) => (page - 1) * query.size;
const clampPage = (page) => Math.min(pageCount(), Math.max(1, Math.trunc(page) || 1));
const sameQuery = (a, b) => a.index === b.index && a.field === b.field && a.order === b.order && a.size === b.size;

function requestPage(page) {
  loading.wanted = clampPage(page);
  if (!loading.running) void loadWantedPages();
}

async function loadWantedPages() {
  loading.running = true;
  ui.hitsPanel.setAttribute('aria-busy', 'true');
  try {
    while (loading.wanted !== null) {
      const page = loading.wanted;
      loading.wanted = null;
      await loadPage(page);
    }
  } finally {
    loading.running = false;
    ui.hitsPanel.setAttribute('aria-busy', 'false');
  }
}

/** Fetches `page` with each strategy in turn and shows it, unless the query changed meanwhile. */
async function loadPage(page) {
  const asked = { ...query };
  const from = fromOf(page);
  try {
    const answers = {};
    for (const { paging } of server.strategies) answers[paging] = await searchPage({ ...asked, from }, paging);
    if (!sameQuery(asked, query)) return;
    showAnswers(page, from, answers);
  } catch (error) {
    showError(error);
  }
}

function showAnswers(page, from, answers) {
  const costs = Object.fromEntries(Object.entries(answers).map(([paging, a]) => [paging, { tookMs: a.tookMs, wallMs: a.wallMs }]));
  // The hits shown are the first strategy's: sorted_runs, or the front's.
  const first = answers[server.strategies[0].paging];
  shown.page = page;
  shown.total = first.total;
  shown.measurements.push({ page, from, costs });
  showError(null);
  renderPager();
  renderHits(first.hits, from);
  renderPageCost(costs);
  renderServed(first.served);
  renderAgreement(answers);
  renderChart();
  writeFragment();
  const served = first.served ? ` (${first.served.page})` : '';
  ui.status.textContent = `Page ${formatCount(page)} of ${formatCount(pageCount())}: ${server.strategies.map(({ paging }) => `${paging} took ${formatMs(costs[paging].tookMs)}`).join(', ')}${served}.`;
}

function renderPager() {
  const pages = pageCount();
  const from = fromOf(shown.page);
  const last = Math.min(shown.total, from + query.size);
  ui.pageNumber.max = String(pages);
  ui.pageNumber.value = String(shown.page);
  ui.pageCount.textContent = `of ${formatCount(pages)}`;
  ui.depthSlider.max = String(pages);
  if (!slider.held) {
    ui.depthSlider.value = String(shown.page);
    ui.depthSlider.setAttribute('aria-valuetext', sliderText(shown.page));
  }
  for (const [button, off] of [[ui.firstPage, shown.page === 1], [ui.previousPage, shown.page === 1], [ui.nextPage, shown.page === pages], [ui.lastPage, shown.page === pages]]) {
    button.setAttribute('aria-disabled', String(off));
  }
  ui.hitsHeading.textContent = `Page ${formatCount(shown.page)} of ${formatCount(pages)}`;
  ui.hitsRange.textContent = last > from ? `Hits ${formatCount(from + 1)} to ${formatCount(last)} of ${formatCount(shown.total)}, from = ${formatCount(from)}` : `No hits (of ${formatCount(shown.total)})`;
  ui.windowLimit.textContent = windowLimitText(pages);
}

const sliderText = (page) => `page ${formatCount(page)} of ${formatCount(pageCount())}, from ${formatCount(fromOf(page))}`;

function windowLimitText(pages) {
  if (server.front) return `No depth limit: the front answers past the cluster's index.max_result_window = ${formatCount(shown.maxResultWindow)} hits.`;
  const limit = `Depth limit: index.max_result_window = ${formatCount(shown.maxResultWindow)} hits (from + size may not pass it).`;
  if (pages * query.size >= shown.total) return `${limit} Every page is within it.`;
  return `${limit} The last ${formatCount(shown.total - pages * query.size)} hits lie beyond it.`;
}

function renderHits(hits, from) {
  ui.sortColumn.textContent = query.field;
  const sourceSkipped = query.field.split('.')[0];
  const rows = hits.map((hit, i) => {
    const row = document.createElement('tr');
    const rank = Object.assign(document.createElement('td'), { textContent: formatCount(from + i + 1) });
    const id = Object.assign(document.createElement('td'), { className: 'hit-id', textContent: hit._id });
    const sortValue = Object.assign(document.createElement('td'), { className: 'sort-value', textContent: formatValue(hit.sort?.[0]) });
    sortValue.dataset.field = query.field;
    const source = document.createElement('td');
    source.append(...sourceSummary(hit._source ?? {}, sourceSkipped));
    row.append(rank, id, sortValue, source);
    return row;
  });
  ui.hits.replaceChildren(...rows);
}

function formatValue(value) {
  if (value === undefined || value === null) return 'missing';
  return Number.isInteger(value) ? formatCount(value) : String(value);
}

/** The first few top-level fields of `_source` with a plain value, as `name value` pairs. */
function sourceSummary(source, skipped) {
  return Object.entries(source)
    .filter(([name, value]) => name !== skipped && value !== null && typeof value !== 'object')
    .slice(0, SOURCE_FIELDS_SHOWN)
    .map(([name, value]) => {
      const pair = Object.assign(document.createElement('span'), { className: 'source-field' });
      pair.append(Object.assign(document.createElement('span'), { className: 'source-name', textContent: name }), ` ${value}`);
      return pair;
    });
}

function renderPageCost(costs) {
  const rows = server.strategies.map(({ paging }) => {
    const row = document.createElement('tr');
    const name = Object.assign(document.createElement('th'), { scope: 'row', className: `series-name series-${paging}`, textContent: paging });
    row.append(name, ...[costs[paging].tookMs, costs[paging].wallMs].map((ms) => Object.assign(document.createElement('td'), { textContent: formatMs(ms) })));
    return row;
  });
  ui.pageCost.replaceChildren(...rows);
}

/** How the front made the page; nothing on deeppage itself. */
function renderServed(served) {
  ui.pageServed.hidden = !server.front;
  if (!server.front) return;
  if (!served) {
    ui.pageServed.textContent = 'Passed through: the cluster answered this page itself.';
    return;
  }
  const how = served.page === 'warm' ? 'Warm: from the front\'s rank index' : served.page === 'cold' ? 'Cold: before the front\'s rank index was ready' : `${served.page}`;
  const snapshot = served.snapshot ? `, snapshot of ${formatTime(served.snapshot)}` : '';
  const requests = served.clusterRequests === undefined ? '' : `; ${formatCount(served.clusterRequests)} cluster ${served.clusterRequests === 1 ? 'request' : 'requests'}`;
  ui.pageServed.textContent = `${how}${snapshot}${requests}.`;
}

/** Both strategies must give the same page; the page says so, or shows where they differ. Over a front there is one. */
function renderAgreement(answers) {
  if (server.strategies.length < 2) {
    ui.agreement.textContent = '';
    return;
  }
  const [mine, theirs] = server.strategies.map(({ paging }) => answers[paging].hits.map((hit) => hit._id));
  const same = mine.length === theirs.length && mine.every((id, i) => id === theirs[i]);
  ui.agreement.textContent = same
    ? `Both strategies returned the same ${formatCount(mine.length)} hits.`
    : `The strategies disagree: sorted_runs gave ${mine.join(', ')}; top_k gave ${theirs.join(', ')}.`;
  ui.agreement.classList.toggle('error', !same);
}

function renderChart() {
  const view = { measurements: shown.measurements, measure: shown.measure, maxFrom: fromOf(pageCount()), currentFrom: shown.measurements.length > 0 ? fromOf(shown.page) : undefined, strategies: server.strategies };
  drawCostChart(ui.chart, view);
  renderCostRows(ui.costRows, shown.measurements, server.strategies);
  const pages = shown.measurements.length;
  ui.chartCaption.textContent = `${query.index}, sorted by ${query.field} ${query.order}, ${query.size} hits a page: ${formatCount(pages)} ${pages === 1 ? 'page' : 'pages'} measured, ${MEASURES[shown.measure].phrase} on the vertical axis.`;
}

function showError(error) {
  ui.error.textContent = error ? `Could not load the page: ${error.message}` : '';
}

function writeFragment() {
  const state = new URLSearchParams({ index: query.index, sort: `${query.field}:${query.order}`, size: String(query.size), page: String(shown.page) });
  history.replaceState(null, '', `#${state}`);
}

function readFragment() {
  const state = new URLSearchParams(location.hash.slice(1));
  const [field, order] = (state.get('sort') ?? '').split(':');
  return { index: state.get('index'), field, order, size: Number(state.get('size')), page: Number(state.get('page')) };
}

function fillSelect(select, values, selected) {
  select.replaceChildren(...values.map((value) => new Option(value, value, false, value === selected)));
}

/** Starts over on `index`: its sortable fields, count and result window, then the page asked for. */
async function openIndex(index, wanted = {}) {
  const described = await describeIndex(index);
  const fields = described.sortFields;
  if (fields.length === 0) throw new Error(`index [${index}] has no field a search can sort on`);
  query.index = index;
  shown.total = described.total;
  shown.maxResultWindow = described.maxResultWindow;
  query.field = fields.includes(wanted.field) ? wanted.field : fields[0];
  query.order = wanted.order === 'desc' ? 'desc' : 'asc';
  fillSelect(ui.sortField, fields, query.field);
  ui.sortOrder.value = query.order;
  startMeasuring(wanted.page ?? 1);
}

/** A new query: the chart's points were for the old one, so they go. */
function startMeasuring(page) {
  shown.measurements = [];
  shown.page = clampPage(page);
  requestPage(page);
}

function onQueryChange(change) {
  const depth = fromOf(shown.page);
  change();
  startMeasuring(Math.floor(depth / query.size) + 1);
}

function wireQueryControls() {
  ui.indexSelect.addEventListener('change', () =>
    openIndex(ui.indexSelect.value).catch((error) => {
      // The page still shows the index it showed before.
      ui.indexSelect.value = query.index;
      showError(error);
    }),
  );
  ui.sortField.addEventListener('change', () => onQueryChange(() => (query.field = ui.sortField.value)));
  ui.sortOrder.addEventListener('change', () => onQueryChange(() => (query.order = ui.sortOrder.value)));
  // A new page size keeps the depth: the page shown is the one holding the first hit shown before.
  ui.pageSize.addEventListener('change', () => onQueryChange(() => (query.size = Number(ui.pageSize.value))));
  for (const radio of document.querySelectorAll('input[name="measure"]')) {
    radio.addEventListener('change', () => {
      shown.measure = radio.value;
      renderChart();
    });
  }
}

function wirePager() {
  ui.jumpForm.addEventListener('submit', (event) => {
    event.preventDefault();
    requestPage(Number(ui.pageNumber.value));
  });
  let settle;
  // Dragging measures the pages the thumb rests on; the page where it is let go is asked for at once.
  ui.depthSlider.addEventListener('input', () => {
    const page = Number(ui.depthSlider.value);
    ui.pageNumber.value = String(page);
    ui.depthSlider.setAttribute('aria-valuetext', sliderText(page));
    clearTimeout(settle);
    settle = setTimeout(() => requestPage(page), SLIDER_SETTLE_MS);
  });
  ui.depthSlider.addEventListener('pointerdown', () => (slider.held = true));
  // On the window: the pointer may be let go anywhere.
  for (const type of ['pointerup', 'pointercancel']) window.addEventListener(type, () => (slider.held = false));
  ui.depthSlider.addEventListener('change', () => {
    clearTimeout(settle);
    requestPage(Number(ui.depthSlider.value));
  });
  const step = (button, target) => button.addEventListener('click', () => {
    if (button.getAttribute('aria-disabled') !== 'true') requestPage(target());
  });
  step(ui.firstPage, () => 1);
  step(ui.previousPage, () => shown.page - 1);
  step(ui.nextPage, () => shown.page + 1);
  step(ui.lastPage, () => pageCount());
}

/** Redraws the chart when its width changes (a rotated phone, a resized window). */
function watchChartWidth() {
  let width = 0;
  new ResizeObserver(([entry]) => {
    if (Math.round(entry.contentRect.width) === width) return;
    width = Math.round(entry.contentRect.width);
    if (query.index) renderChart();
  }).observe(ui.chart.parentElement);
}

/** Opens what the URL's fragment names, as far as it names an index, sort, size and page there are. */
async function openFragment(indices) {
  const wanted = readFragment();
  const index = indices.includes(wanted.index) ? wanted.index : indices[0];
  ui.indexSelect.value = index;
  if ([...ui.pageSize.options].some((o) => Number(o.value) === wanted.size)) query.size = wanted.size;
  ui.pageSize.value = String(query.size);
  await openIndex(index, wanted);
}

/** Over a front, the parts that speak of deeppage's two strategies give way to the front's (`data-server` in index.html). */
function showServer(front) {
  server.front = front;
  server.strategies = strategiesFor(front);
  for (const element of document.querySelectorAll('[data-server]')) element.hidden = element.dataset.server !== (front ? 'front' : 'engine');
}

async function start() {
  wireQueryControls();
  wirePager();
  watchChartWidth();
  const [indices, front] = await Promise.all([listIndices(), isFront()]);
  showServer(front);
  if (indices.length === 0) throw new Error('there is no index to page through; create one and reload');
  fillSelect(ui.indexSelect, indices, indices[0]);
  // A fragment typed or pasted into the address bar (the page's own updates replace it without this event).
  window.addEventListener('hashchange', () => openFragment(indices).catch(showError));
  await openFragment(indices);
}

start().catch((error) => {
  showError(error);
  ui.hitsPanel.setAttribute('aria-busy', 'false');
});
