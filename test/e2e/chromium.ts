/**
 * Headless Chromium for the page's browser tests: whether it is installed (CI installs it; a test
 * file skips, saying why, where it is not), and a browser with a fresh profile and one page whose
 * console errors, page errors, failed requests and 4xx/5xx answers are collected as problems.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why a browser test cannot run here, or undefined when it can. */
export const chromiumMissing = existsSync(CHROMIUM) ? undefined : `skipped: ${CHROMIUM} is not installed; run \`apt-get install chromium\` (CI installs it)`;

export interface WatchedBrowser {
  browser: Browser;
  page: Page;
  /** What went wrong on the page so far, one line each. */
  problems: string[];
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export async function watchedBrowser(): Promise<WatchedBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'deeppage.chromium-'));
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, ignoreDefaultArgs: true, args: [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, 'about:blank'], pipe: true });
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`answer ${response.status()}: ${response.url()}`);
  });
  return {
    browser,
    page,
    problems,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
