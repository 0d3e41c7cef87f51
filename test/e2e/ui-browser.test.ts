/**
 * The paging page at `/_deeppage/` in headless Chromium against the real server with the cities:
 * it loads cleanly, every control is reached and worked with the keyboard, the last page by
 * population shows the cities a plain `_search` puts there, the chart has both strategies' points,
 * and a phone-sized screen does not scroll sideways. Screenshots go to docs/ for the README.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get install chromium`); never downloads one.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, watchedBrowser, type WatchedBrowser } from './chromium.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

/**
 * Screenshots go to a temporary folder, and over the README's pictures in docs/ only when asked
 * (`UPDATE_SCREENSHOTS=1 npx vitest run test/e2e/ui-browser.test.ts`), so a test run changes no
 * tracked file.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs') : join(tmpdir(), 'deeppage-ui-screenshots');
const PAGE_SIZE = 10;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true };

const missing = chromiumMissing;
if (missing) console.warn(`ui-browser.test.ts ${missing}`);

type Hit = { _id: string; _source: { name: string } };

/** `n` as the page may write it in the browser's locale: digits with any grouping separator. */
const grouped = (n: number) => [...String(n)].join('\\D?');

describe.skipIf(missing !== undefined)(missing ?? 'the paging page in headless Chromium', () => {
  // Made in beforeAll: a skipped suite's body still runs, and its afterAll would not.
  let data: ReturnType<typeof tempDir>;
  let server: RunningServer;
  let watched: WatchedBrowser | undefined;
  let page: Page;
  /** Console errors, uncaught exceptions, failed requests and error answers, as the page met them. */
  let problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    data = tempDir();
    server = await startServer({ dataDir: data.dir, port: 0, seed: true });
    watched = await watchedBrowser();
    ({ page, problems } = watched);
  }, 120_000);

  afterAll(async () => {
    await watched?.close();
    await server?.close();
    data?.remove();
  });

  /** The ids and names `_search` puts on the page starting at `from`, and the hit count. */
  const expectedPage = async (from: number) => {
    const res = await fetch(`${server.url}/cities/_search?size=${PAGE_SIZE}&from=${from}&sort=population:desc&track_total_hits=true`);
    const body = (await res.json()) as { hits: { total: { value: number }; hits: Hit[] } };
    return { total: body.hits.total.value, ids: body.hits.hits.map((h) => h._id), names: body.hits.hits.map((h) => h._source.name) };
  };

  /** Waits until the page has finished loading and shows page `number`. */
  const waitForPage = (number: number) =>
    page.waitForFunction(
      (wanted) => document.getElementById('hits-panel')!.getAttribute('aria-busy') === 'false' && (document.getElementById('page-number') as HTMLInputElement).value === String(wanted),
      { timeout: 15_000 },
      number,
    );

  const shownIds = () => page.$$eval('#hits tbody .hit-id', (cells) => cells.map((c) => c.textContent));
  const points = (paging: string) => page.$$eval(`#cost-chart .series-${paging} > *`, (marks) => marks.length);

  /** Focuses `selector` with the keyboard's Tab, as a keyboard user reaches it. */
  const tabTo = async (selector: string) => {
    for (let presses = 0; presses < 40; presses++) {
      if (await page.$eval(selector, (element) => element === document.activeElement)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  };

  const typePage = async (number: number) => {
    await tabTo('#page-number');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(String(number));
    await page.keyboard.press('Enter');
    await waitForPage(number);
  };

  it('loads with no errors, and every control is reached by Tab with a visible focus ring', async () => {
    await page.setViewport(DESKTOP);
    await page.goto(`${server.url}/_deeppage/`, { waitUntil: 'networkidle0' });
    await waitForPage(1);
    expect(await page.$eval('meta[name="viewport"]', (meta) => meta.getAttribute('content'))).toContain('width=device-width');

    const reached = new Map<string, string>();
    for (let presses = 0; presses < 30; presses++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        return { key: element.id || `${element.tagName.toLowerCase()}:${element.getAttribute('name') ?? ''}`, outline: getComputedStyle(element).outlineStyle };
      });
      reached.set(focused.key, focused.outline);
    }
    const controls = ['index-select', 'sort-field', 'sort-order', 'page-size', 'page-number', 'button:', 'depth-slider', 'first-page', 'previous-page', 'next-page', 'last-page', 'input:measure', 'summary:'];
    for (const control of controls) {
      expect(reached.has(control), `Tab reaches ${control}`).toBe(true);
      expect(reached.get(control), `${control} shows its focus`).not.toBe('none');
    }
    expect(problems).toEqual([]);
  });

  it('sorts the cities by population, descending, with the keyboard and jumps to the last page', async () => {
    await tabTo('#index-select');
    expect(await page.$eval('#index-select', (select) => (select as HTMLSelectElement).value)).toBe('cities');
    await tabTo('#sort-field');
    await page.keyboard.type('population');
    await tabTo('#sort-order');
    await page.keyboard.type('desc');
    await page.waitForFunction(() => document.getElementById('chart-caption')!.textContent!.includes('population desc'));
    await waitForPage(1);
    const first = await expectedPage(0);
    expect(await shownIds()).toEqual(first.ids);

    const last = Math.ceil(first.total / PAGE_SIZE);
    await typePage(last);
    const expected = await expectedPage((last - 1) * PAGE_SIZE);
    expect(expected.ids.length).toBeGreaterThan(0);
    expect(await shownIds()).toEqual(expected.ids);
    const rows = await page.$$eval('#hits tbody tr', (trs) => trs.map((tr) => tr.textContent));
    expected.names.forEach((name, i) => expect(rows[i]).toContain(name));
    expect(await page.$eval('#hits-heading', (h) => h.textContent)).toMatch(new RegExp(`^Page ${grouped(last)} of ${grouped(last)}$`));
    expect(await page.$eval('#agreement', (p) => p.textContent)).toMatch(/^Both strategies returned the same/);
    expect(await page.$eval('#window-limit', (p) => p.textContent)).toMatch(new RegExp(`max_result_window = ${grouped(200_000)} hits`));
  });

  it('plots both strategies for each page visited, with a table of the points', async () => {
    const last = Number(await page.$eval('#page-number', (input) => (input as HTMLInputElement).value));
    // Deeper and deeper pages: by number, then one step back on the slider with the arrow key.
    for (const fraction of [0.25, 0.5, 0.75]) await typePage(Math.round(last * fraction));
    await tabTo('#depth-slider');
    await page.keyboard.press('End');
    await waitForPage(last);
    await page.keyboard.press('ArrowLeft');
    await waitForPage(last - 1);
    await tabTo('#last-page');
    await page.keyboard.press('Enter');
    await waitForPage(last);

    const visited = 8; // page 1, the last, three by number, the last by End, one back, the last by the button
    expect(await points('sorted_runs')).toBe(visited);
    expect(await points('top_k')).toBe(visited);
    expect(await page.$$eval('#cost-table tbody tr', (rows) => rows.length)).toBe(visited);
    const description = await page.$eval('#cost-chart desc', (desc) => desc.textContent);
    expect(description).toMatch(/8 pages measured\. sorted_runs \(deeppage\): took from .* top_k \(Elasticsearch\): took from /);
    expect(await page.$eval('#cost-chart', (svg) => svg.getAttribute('aria-describedby'))).toBe('cost-chart-desc');
    const axisTitles = await page.$$eval('#cost-chart .axis-title', (texts) => texts.map((t) => t.textContent));
    expect(axisTitles).toEqual(['cost: took (ms)', 'depth: from (hits skipped)']);

    // The radio group switches the plotted measure with the arrow keys.
    await tabTo('input[name="measure"]:checked');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#cost-chart .axis-title')!.textContent === 'cost: wall time (ms)');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('#cost-chart .axis-title')!.textContent === 'cost: took (ms)');

    await page.evaluate(() => (document.activeElement as HTMLElement).blur());
    await page.screenshot({ path: join(SCREENSHOTS, 'ui-desktop.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('goes to the depth the slider is dragged to', async () => {
    const last = Number(await page.$eval('#depth-slider', (input) => (input as HTMLInputElement).max));
    const track = (await (await page.$('#depth-slider'))!.boundingBox())!;
    const y = track.y + track.height / 2;
    await page.mouse.move(track.x + track.width - 4, y);
    await page.mouse.down();
    for (const fraction of [0.8, 0.65, 0.5]) {
      await page.mouse.move(track.x + track.width * fraction, y, { steps: 8 });
      await new Promise((resolve) => setTimeout(resolve, 250)); // long enough for the page to load where the thumb rests
    }
    await page.mouse.up();
    const held = Number(await page.$eval('#depth-slider', (input) => (input as HTMLInputElement).value));
    expect(held / last).toBeGreaterThan(0.4);
    expect(held / last).toBeLessThan(0.6);
    await waitForPage(held);
    expect(await shownIds()).toEqual((await expectedPage((held - 1) * PAGE_SIZE)).ids);
    expect(problems).toEqual([]);
  });

  it('fits a phone screen without scrolling sideways', async () => {
    await page.setViewport(PHONE);
    await page.reload({ waitUntil: 'networkidle0' });
    // The fragment keeps the page shown before the reload.
    await waitForPage(Number(new URL(page.url()).hash.match(/page=(\d+)/)![1]));
    const last = Number(await page.$eval('#depth-slider', (input) => (input as HTMLInputElement).max));
    for (const fraction of [0.2, 0.6]) await typePage(Math.round(last * fraction));
    await typePage(last);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth, chart: document.getElementById('cost-chart')!.getBoundingClientRect().width }));
    expect(widths.screen).toBe(PHONE.width);
    expect(widths.page).toBeLessThanOrEqual(widths.screen);
    expect(widths.chart).toBeLessThanOrEqual(widths.screen);
    await page.evaluate(() => (document.activeElement as HTMLElement).blur());
    await page.screenshot({ path: join(SCREENSHOTS, 'ui-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
