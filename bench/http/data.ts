/**
 * The http suite's data, loaded into deeppage as a user would: the cities (seeded by the server's
 * first start, or the first n posted over `_bulk` in smoke runs) and the products, posted over
 * `_bulk` in batches with `POST /{index}/_refresh` after each, so every shard is built up from
 * many refreshed segments (deeppage merges runs of adjacent segments beyond 8 a shard).
 */
import { bulkBody, cities, products, type Corpus } from '../lib/corpus.ts';
import { esBulk, esCount, esOk, esRefresh } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { CITIES_INDEX, CITIES_WINDOW } from '../../src/seed/cities.ts';
import type { Target } from './page.ts';

/** A corpus as loaded on a server: the target deeppage pages are asked of, and how it got there. */
export interface Loaded {
  /** Short, for chart panels and table headings: `products 1M × 5 shards`. */
  label: string;
  target: Target;
  docs: number;
  shards: number;
  /** How the documents got in, for the notes. */
  loading: string;
  /** The documents, in the order they were loaded. */
  corpus: Corpus;
}

export const CITIES_SHARDS = 5;

/** Deeppage's cities, seeded at start or the first `n` posted now, with their populations ranked for the page check. */
export async function loadCities(url: string, load: 'seed' | number, log: (line: string) => void): Promise<Loaded> {
  const corpus = cities(load === 'seed' ? Infinity : load);
  let loading = "seeded by the server's first start (DEEPPAGE_SEED), one refresh at the end";
  if (load !== 'seed') {
    const batch = 5000;
    const ms = await bulkLoad(url, CITIES_INDEX, corpus, CITIES_SHARDS, batch);
    loading = `posted over _bulk in batches of ${batch}, POST /${CITIES_INDEX}/_refresh after each (${seconds(ms)} s)`;
  }
  const docs = await esCount(url, CITIES_INDEX);
  if (docs !== corpus.keys.length) throw new WrongAnswer(`${CITIES_INDEX}: _count is ${docs}, expected ${corpus.keys.length}`);
  log(`  cities: ${docs} documents, ${CITIES_SHARDS} shards`);
  return {
    label: `cities ${short(docs)} × ${CITIES_SHARDS} shards`,
    target: { name: 'deeppage', url, index: CITIES_INDEX, field: corpus.field, ranked: descending(corpus.keys) },
    docs,
    shards: CITIES_SHARDS,
    loading,
    corpus,
  };
}

/** `products(docs)` (bench/lib/corpus.ts) as `index`, posted over `_bulk` in batches of `batch`, a refresh after each. */
export async function loadProducts(url: string, index: string, docs: number, shards: number, batch: number, log: (line: string) => void): Promise<Loaded> {
  const corpus = products(docs);
  const ms = await bulkLoad(url, index, corpus, shards, batch);
  const count = await esCount(url, index);
  if (count !== docs) throw new WrongAnswer(`${index}: _count is ${count} after loading, expected ${docs}`);
  const rate = Math.round(docs / (ms / 1000));
  log(`  ${index}: ${docs} documents, ${shards} shards, loaded in ${seconds(ms)} s (${rate} docs/s, batches of ${batch}, a refresh after each)`);
  return {
    label: `products ${short(docs)} × ${shards} shards`,
    target: { name: 'deeppage', url, index, field: corpus.field, ranked: descending(corpus.keys) },
    docs,
    shards,
    loading: `products(${docs}) of bench/lib/corpus.ts, posted as NDJSON to POST /_bulk in ${Math.ceil(docs / batch)} batches of ${batch}, one in flight, each followed by POST /${index}/_refresh; ${seconds(ms)} s in all (${rate} docs/s), refresh_interval left at its default`,
    corpus,
  };
}

/** Creates `index` with a result window over all of `corpus` and posts it in batches, refreshing after each; returns the ms taken. */
async function bulkLoad(url: string, index: string, corpus: Corpus, shards: number, batch: number): Promise<number> {
  const n = corpus.keys.length;
  const window = index === CITIES_INDEX ? Math.max(CITIES_WINDOW, n) : n;
  await esOk(url, 'PUT', `/${encodeURIComponent(index)}`, JSON.stringify({ settings: { number_of_shards: shards, max_result_window: window }, mappings: corpus.mappings }));
  const started = performance.now();
  for (let at = 0; at < n; at += batch) {
    const to = Math.min(n, at + batch);
    await esBulk(url, '/_bulk', bulkBody(corpus, index, at, to), to - at);
    await esRefresh(url, index);
  }
  return performance.now() - started;
}

function descending(keys: Float64Array): Float64Array {
  return keys.slice().sort().reverse();
}

/** 135k, 1M, 3,000. */
export function short(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  return n.toLocaleString('en-US');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
