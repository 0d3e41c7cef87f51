/**
 * The paging page at `/_deeppage/` in headless Chromium over a front (`-E front.hosts=…`) before a
 * stand-in cluster whose index has a small `max_result_window`: the page knows the front, offers
 * every page of the hits, past the window, shows each page's hits in the cluster's order and how
 * the front made it (passed through, cold, warm with its snapshot, the cluster requests), and plots
 * the front's one series. The same page on the cluster itself stays as it was: the window limits it,
 * both strategies are asked, and nothing speaks of a front.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get install chromium`); never downloads one.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, watchedBrowser, type WatchedBrowser } from './chromium.ts';
import { killAll, start, type Started } from '../front/processes.ts';

const WINDOW = 20;
const DOCS = 55;
/** Document `i` holds `n = (i * 7) % DOCS`: every value once, in an order unlike the ids'. */
const valueOf = (id: number) => (id * 7) % DOCS;
/** The ids a page of 10 sorted by `n` ascending holds, from `from`. */
const idsAt = (from: number) => Array.from({ length: DOCS }, (_, id) => id).sort((a, b) => valueOf(a) - valueOf(b)).slice(from, from + 10).map(String);

const missing = chromiumMissing;
if (missing) console.warn(`ui-front-browser.test.ts ${missing}`);

describe.skipIf(missing !== undefined)(missing ?? 'the paging page over a front, in headless Chromium', () => {
  let cluster: Started;
  let front: Started;
  let watched: WatchedBrowser | undefined;
  let page: Page;
  /** Console errors, uncaught exceptions, failed requests and error answers, as the page met them. */
  let problems: string[] = [];

  beforeAll(async () => {
    cluster = await start(['-E', 'search.paging=top_k']);
    front = await start(['-E', `front.hosts=${cluster.url}`]);
    const made = await fetch(`${cluster.url}/products`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 2, max_result_window: WINDOW }, mappings: { properties: { n: { type: 'long' } } } }) });
    expect(made.status).toBe(200);
    const lines = Array.from({ length: DOCS }, (_, id) => `{"index":{"_id":"${id}"}}\n{"n":${valueOf(id)}}\n`).join('');
    await fetch(`${cluster.url}/products/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
    watched = await watchedBrowser();
    ({ page, problems } = watched);
  }, 120_000);

  afterAll(async () => {
    await watched?.close();
    await killAll();
  });

  const waitForPage = (number: number) =>
    page.waitForFunction(
      (wanted) => document.getElementById('hits-panel')!.getAttribute('aria-busy') === 'false' && (document.getElementById('page-number') as HTMLInputElement).value === String(wanted),
      { timeout: 15_000 },
      number,
    );
  const goTo = async (number: number) => {
    await page.$eval('#page-number', (input, n) => ((input as HTMLInputElement).value = String(n)), number);
    await page.click('#jump-form button[type="submit"]');
    await waitForPage(number);
  };
  const text = (selector: string) => page.$eval(selector, (element) => (element as HTMLElement).innerText);
  const visible = (selector: string) => page.$eval(selector, (element) => (element as HTMLElement).checkVisibility());
  const shownIds = () => page.$$eval('#hits tbody .hit-id', (cells) => cells.map((c) => c.textContent));
  const frontBuilding = async () => ((await (await fetch(`${front.url}/_front/stats`)).json()) as { rank_indices: { building: number } }).rank_indices.building;

  it('knows the front and offers every page of the hits, past the cluster window', async () => {
    await page.goto(`${front.url}/_deeppage/#index=products&sort=n:asc&size=10&page=1`, { waitUntil: 'networkidle0' });
    await waitForPage(1);
    expect(await text('#page-count')).toBe('of 6');
    expect(await text('#window-limit')).toBe(`No depth limit: the front answers past the cluster's index.max_result_window = ${WINDOW} hits.`);
    expect(await shownIds()).toEqual(idsAt(0));
    // The first page of a sort: the front leaves it to the cluster.
    expect(await text('#page-served')).toBe('Passed through: the cluster answered this page itself.');
    expect(await visible('li[data-server="front"]')).toBe(true);
    expect(await visible('li[data-server="engine"]')).toBe(false);
    expect(await text('#agreement')).toBe('');
    expect(problems).toEqual([]);
  });

  it('shows a page past the window in the cluster order, cold and then warm, with its snapshot and cluster requests', async () => {
    await goTo(6);
    expect(await shownIds()).toEqual(idsAt(50));
    expect(await text('#hits-heading')).toBe('Page 6 of 6');
    expect(await text('#page-served')).toMatch(/^(Cold: before the front's rank index was ready|Warm: from the front's rank index, snapshot of .+); \d+ cluster requests?\.$/);

    for (let i = 0; i < 200 && (await frontBuilding()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await goTo(4);
    expect(await shownIds()).toEqual(idsAt(30));
    expect(await text('#page-served')).toMatch(/^Warm: from the front's rank index, snapshot of .+\d.+; 1 cluster request\.$/);

    expect(await page.$$eval('#cost-chart .series-front > *', (marks) => marks.length)).toBe(3);
    expect(await page.$$eval('#cost-chart .series-sorted_runs, #cost-chart .series-top_k', (groups) => groups.length)).toBe(0);
    expect(await page.$$eval('#cost-table tbody tr', (rows) => rows.map((row) => row.children.length))).toEqual([4, 4, 4]);
    expect(await page.$eval('#cost-chart desc', (desc) => desc.textContent)).toMatch(/^3 pages measured\. front \(deeppage\): took from /);
    expect(problems).toEqual([]);
  });

  it('on the cluster itself, keeps to the window and asks both strategies, with nothing of a front', async () => {
    await page.goto(`${cluster.url}/_deeppage/#index=products&sort=n:asc&size=10&page=2`, { waitUntil: 'networkidle0' });
    await waitForPage(2);
    expect(await text('#page-count')).toBe('of 2');
    expect(await text('#window-limit')).toMatch(/^Depth limit: index\.max_result_window = 20 hits/);
    expect(await shownIds()).toEqual(idsAt(10));
    expect(await visible('#page-served')).toBe(false);
    expect(await visible('li[data-server="front"]')).toBe(false);
    expect(await visible('li[data-server="engine"]')).toBe(true);
    expect(await text('#agreement')).toMatch(/^Both strategies returned the same 10 hits\.$/);
    expect(await page.$$eval('#cost-table tbody tr', (rows) => rows.map((row) => row.children.length))).toEqual([6]);
    expect(problems).toEqual([]);
  });
});
