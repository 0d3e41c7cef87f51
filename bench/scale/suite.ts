/**
 * Scale suite: the real server loads `items(n)` over `_bulk` (n = 10,000,000 in the full run), then
 * what n documents cost: ingest rate, disk and anonymous resident memory per document, a restart
 * (SIGTERM, then a start on the same data directory, timed to `GET /` and to a checked page at the
 * deepest offset), and the page cost at from 0, 1,000,000 and n − 10, before and after the restart.
 *
 * Every page is checked against the corpus's own order (sort values at ranks from… exactly), and
 * `_count` must equal n, before anything is reported.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCommandLine } from '../../scripts/start-command.ts';
import { bulkLoad } from '../ingest/bulk-load.ts';
import { diskOf } from '../ingest/footprint.ts';
import { checkedPage, type Target } from '../http/page.ts';
import { startDeeppage, withChild, type ChildServer } from '../lib/child-server.ts';
import { items } from '../lib/corpus.ts';
import { esCount, esCreateIndex, esOk } from '../lib/es-client.ts';
import { quantile } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer, type Mode, type Suite, type SuiteContext } from '../lib/suite.ts';
import { anonymousMemory } from './memory.ts';
import { scaleMarkdown } from './report.ts';

/**
 * `settleMs`: how long the server is left alone before its memory is read, at start, after the load
 * and after the restart. Five seconds covers the background work a load leaves (seals, merges,
 * flushes) and then the idle collection (src/idle-memory.ts), which waits for a quiet second.
 */
const PROFILES: Record<Mode, { docs: number; settleMs: number; pages: number }> = {
  full: { docs: 10_000_000, settleMs: 5000, pages: 30 },
  quick: { docs: 1_000_000, settleMs: 5000, pages: 15 },
  smoke: { docs: 3_000, settleMs: 100, pages: 3 },
};

const INDEX = 'items';
const SHARDS = 5;
const BATCH = 10_000;
const SIZE = 10;

export const scaleSuite: Suite = {
  name: 'scale',
  summary: 'load millions of small documents, restart, and page at any depth: ingest, restart time, disk and memory per document',
  async run(ctx: SuiteContext) {
    const { docs, settleMs, pages } = PROFILES[ctx.mode];
    const corpus = items(docs);
    const ranked = corpus.keys.slice().sort().reverse();
    const froms = [...new Set([0, Math.min(1_000_000, Math.floor(docs / 2)), docs - SIZE])];
    const dataDir = mkdtempSync(join(tmpdir(), 'deeppage.bench-scale-'));
    const rows: Row[] = [];
    const one = (value: number) => ({ median: value, min: value, max: value, samples: 1 });
    const add = (group: string, measure: string, unit: Row['unit'], value: number, params: Record<string, unknown> = {}) =>
      rows.push({ group, strategy: 'deeppage', params: { measure, docs, shards: SHARDS, ...params }, unit, ...one(value) });

    /** The page at `from`, checked, then timed `pages` times (the first answer after a start is timed on its own). */
    const pageCosts = async (server: ChildServer, when: string) => {
      const target: Target = { name: 'deeppage', url: server.url, index: INDEX, field: corpus.field, ranked };
      for (const from of froms) {
        const started = performance.now();
        await checkedPage(target, from, SIZE, docs);
        const first = performance.now() - started;
        const times = new Float64Array(pages);
        for (let i = 0; i < pages; i++) {
          const t = performance.now();
          await checkedPage(target, from, SIZE, docs);
          times[i] = performance.now() - t;
        }
        times.sort();
        rows.push({ group: 'page', strategy: 'deeppage', params: { when, from, size: SIZE, docs, shards: SHARDS }, unit: 'ms', median: quantile(times, 0.5), min: times[0], max: times[pages - 1], samples: pages });
        rows.push({ group: 'page', strategy: 'deeppage', params: { when, from, size: SIZE, docs, shards: SHARDS, first: 'yes' }, unit: 'ms', ...one(first) });
        ctx.log(`  ${when}: from ${from}: first ${first.toFixed(1)} ms, then median ${quantile(times, 0.5).toFixed(2)} ms`);
      }
    };

    try {
      ctx.log(`deeppage (child process, started empty), ${corpus.name}`);
      await withChild(startDeeppage({ seed: false, log: ctx.log, dataDir }), async (server) => {
        await sleep(settleMs);
        const empty = anonymousMemory(server.pid);
        await esCreateIndex(server.url, INDEX, SHARDS, corpus.mappings);
        await esOk(server.url, 'PUT', `/${INDEX}/_settings`, JSON.stringify({ index: { max_result_window: docs } }));
        const bar = ctx.progress(`ingest ${corpus.name}`, docs);
        const load = await bulkLoad(server.url, corpus, INDEX, BATCH, bar).finally(() => bar.stop());
        const counted = await esCount(server.url, INDEX);
        if (counted !== docs) throw new WrongAnswer(`${INDEX}: _count is ${counted} after loading ${docs} documents`);
        add('ingest', 'overall', 'docs/s', (docs * 1000) / load.ms, { batch: BATCH });
        await sleep(settleMs);
        const loaded = anonymousMemory(server.pid);
        add('memory', 'rss_anon_empty', 'bytes', empty);
        add('memory', 'rss_anon_loaded', 'bytes', loaded);
        add('memory', 'rss_anon_loaded', 'bytes/doc', loaded / docs);
        ctx.log(`  ingest ${Math.round((docs * 1000) / load.ms)} docs/s; RssAnon ${mib(empty)} → ${mib(loaded)} MiB (${(loaded / docs).toFixed(0)} bytes/doc)`);
        await pageCosts(server, 'loaded');
      });
      // The child stopped with SIGTERM (a clean shutdown flushes); what a restart finds is on disk.
      const disk = diskOf(dataDir);
      add('disk', 'allocated', 'bytes', disk.allocated);
      add('disk', 'allocated', 'bytes/doc', disk.allocated / docs);

      const started = performance.now();
      await withChild(startDeeppage({ seed: false, log: ctx.log, dataDir }), async (server) => {
        const listening = performance.now() - started;
        await esOk(server.url, 'GET', '/');
        const root = performance.now() - started;
        const target: Target = { name: 'deeppage', url: server.url, index: INDEX, field: corpus.field, ranked };
        await checkedPage(target, docs - SIZE, SIZE, docs);
        const deepest = performance.now() - started;
        add('restart', 'listening', 'ms', listening);
        add('restart', 'root', 'ms', root);
        add('restart', 'deepest_page', 'ms', deepest, { from: docs - SIZE });
        ctx.log(`  restart: listening after ${listening.toFixed(0)} ms, GET / ${root.toFixed(0)} ms, checked page at ${docs - SIZE} ${deepest.toFixed(0)} ms`);
        await sleep(settleMs);
        const restarted = anonymousMemory(server.pid);
        add('memory', 'rss_anon_restarted', 'bytes', restarted);
        add('memory', 'rss_anon_restarted', 'bytes/doc', restarted / docs);
        ctx.log(`  after the restart: RssAnon ${mib(restarted)} MiB (${(restarted / docs).toFixed(0)} bytes/doc)`);
        await pageCosts(server, 'restarted');
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    return {
      rows,
      markdown: scaleMarkdown(rows, corpus.name),
      charts: [],
      notes: {
        data: `${corpus.name}: bench/lib/corpus.ts items(${docs}), { price: double, category: keyword, stock: integer } with ids i0…, mappings ${JSON.stringify(corpus.mappings)}`,
        server: `\`${startCommandLine()}\` as a child process (npm start without npm; the restart is timed from spawning it, the sources already compiled), DEEPPAGE_SEED=false, a temporary data directory (removed afterwards)`,
        load: `POST /_bulk in batches of ${BATCH}, one in flight, the next body built while it is; then index.max_result_window = ${docs}`,
        memory: `RssAnon from /proc/<pid>/status (anonymous resident memory: LMDB's mapped file pages are left out), ${settleMs} ms after start, after the load, and after the restart`,
        restart: 'SIGTERM (the server flushes every shard and exits 0), then a new child on the same data directory: ms from spawning it to its listening line, to GET / answered, and to a checked page at the deepest offset',
        pages: `GET /${INDEX}/_search?from=F&size=${SIZE}&sort=price:desc; the first answer after the load or restart timed alone, then ${pages} more (median, min, max); every answer checked against the corpus order`,
      },
    };
  },
};

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}
