/**
 * HTTP suite: the real server as a child process, loaded by autocannon from this process.
 *
 * - Throughput at a fixed number of connections: a bare Hono app (the framework's ceiling), `GET /`,
 *   a shallow and a deep page of the cities (the deep one also with `paging=top_k`), taking turns
 *   in rounds so that each round's share of the ceiling is measured within seconds of it; then
 *   hello-world and the shallow page at 50 connections in rounds the same way (their p99 per round),
 *   and `_bulk` with 1,000 documents per request.
 * - The from/size sweep at one connection, per corpus: the cities, then the products posted over
 *   `_bulk` in refreshed batches (1M in 5 and in 32 shards in the full run), each with the empty
 *   `GET /` of the same server, the warm sorted runs, `paging=top_k` and the cold page after
 *   `_cache/clear` side by side (bench/http/sweep.ts); with `--url`, another
 *   Elasticsearch-compatible endpoint in the same run, beside the corpus that holds its data (the
 *   cities otherwise).
 * - Searches with a query on the cities, after their sweep: a filter and a `match`, as JSON bodies,
 *   warm, `paging=top_k` and cold (bench/http/queries.ts).
 *
 * Nothing is timed before its answers are checked; servers are stopped and their data removed
 * whatever happens.
 */
import { startCommandLine } from '../../scripts/start-command.ts';
import type { Mode, Suite, SuiteContext } from '../lib/suite.ts';
import { startDeeppage, startHello, withChild } from '../lib/child-server.ts';
import { esCount, esOk, esRequest } from '../lib/es-client.ts';
import { loadCities, loadProducts, type Loaded } from './data.ts';
import type { Target } from './page.ts';
import { querySweep } from './queries.ts';
import { queryMarkdown, sweepCharts, sweepMarkdown, throughputMarkdown } from './report.ts';
import type { PageBudget } from './page-timing.ts';
import { fromValues, sweepCorpus, sweepPoints, SERIES, type Remote, type SweepResult } from './sweep.ts';
import { bulkEndpoint, helloEndpoint, measureAlternating, measureThroughput, pageEndpoint, rootEndpoint, throughputRows, BULK_DOCS, type LoadProfile, type Throughput } from './throughput.ts';

/** Connections for the latency-under-load run of the shallow page. */
const BUSY_CONNECTIONS = 50;

/** The profile at {@link BUSY_CONNECTIONS}; a run bounded by requests asks for at least one per connection. */
function busy(profile: LoadProfile): LoadProfile {
  const atLeast = (bound: LoadProfile['load']) => ('requests' in bound ? { requests: Math.max(bound.requests, BUSY_CONNECTIONS) } : bound);
  return { ...profile, connections: BUSY_CONNECTIONS, warmup: atLeast(profile.warmup), load: atLeast(profile.load) };
}

interface ProductsRun {
  docs: number;
  shards: number;
  /** Documents per `_bulk` request, each followed by a refresh. */
  batch: number;
}

interface Profile {
  /** The cities deeppage serves: all of them, seeded at start, or the first n, posted over `_bulk`. */
  cities: 'seed' | number;
  /** Loaded one after the other, each index deleted once swept. */
  products: ProductsRun[];
  load: LoadProfile;
  /** The reads' throughput is measured in this many rounds, taking turns with the ceiling (a round each is load / rounds). */
  rounds: number;
  /** The from sweep's values below the last page; the last page (docs − 10) is added per corpus. */
  froms: number[];
  sizes: number[];
  page: PageBudget;
  cold: PageBudget;
}

const FROMS = [0, 100, 1_000, 10_000, 100_000];

const PROFILES: Record<Mode, Profile> = {
  full: {
    cities: 'seed',
    products: [
      { docs: 1_000_000, shards: 5, batch: 10_000 },
      { docs: 1_000_000, shards: 32, batch: 10_000 },
    ],
    load: { connections: 10, warmup: { seconds: 3 }, load: { seconds: 10 }, sampleMs: 1000 },
    rounds: 5,
    froms: FROMS,
    sizes: [10, 100, 1_000, 10_000],
    page: { ms: 3000, min: 20, max: 20_000 },
    cold: { ms: 4000, min: 15, max: 200 },
  },
  quick: {
    cities: 'seed',
    products: [{ docs: 100_000, shards: 5, batch: 10_000 }],
    load: { connections: 10, warmup: { seconds: 1 }, load: { seconds: 6 }, sampleMs: 1000 },
    rounds: 3,
    froms: FROMS,
    sizes: [10, 100, 1_000, 10_000],
    page: { ms: 500, min: 5, max: 2000 },
    cold: { ms: 800, min: 7, max: 40 },
  },
  // Enough cities for a deep page at from 9,990.
  smoke: {
    cities: 12_000,
    products: [{ docs: 3_000, shards: 5, batch: 500 }],
    load: { connections: 10, warmup: { requests: 10 }, load: { requests: 20 }, sampleMs: 100 },
    rounds: 2,
    froms: FROMS,
    sizes: [10, 1_000],
    page: { ms: 0, min: 5, max: 5 },
    cold: { ms: 0, min: 2, max: 2 },
  },
};

const DEEP_FROM = 9_990;
/** Elasticsearch's default `index.max_result_window`. */
const ES_WINDOW = 10_000;

export const httpSuite: Suite = {
  name: 'http',
  summary: 'the server over HTTP: req/s against a hello-world ceiling, the from/size sweep per corpus beside GET /, top-k and cold (also against --url), and a filter and a match on the cities',
  async run(ctx: SuiteContext) {
    const profile = PROFILES[ctx.mode];
    const log = ctx.log;
    // A remote that cannot answer should fail the run before anything is started.
    let remote: (Remote & { docs: number }) | undefined;
    if (ctx.remote) {
      const target: Target = { name: `remote ${new URL(ctx.remote.url).host}`, url: ctx.remote.url, index: ctx.remote.index, field: ctx.remote.sort };
      const docs = await esCount(target.url, target.index);
      remote = { target, docs, ...(await resultWindow(target)) };
      log(`remote: ${target.name.slice('remote '.length)}, ${target.index}, ${docs} documents, result window ${remote.window} (${remote.windowSource})`);
    }
    // The remote goes beside the products run(s) holding as many documents by price, or else beside the cities.
    const besideProducts = remote !== undefined && remote.target.field === 'price' && profile.products.some((run) => run.docs === remote!.docs);
    const remoteFor = (loaded: Loaded, isCities: boolean) =>
      remote && (besideProducts ? !isCities && loaded.docs === remote.docs : isCities) ? remote : undefined;

    // The ceiling runs beside deeppage until the throughput runs are over: they take turns with it.
    log('hello-world (bare Hono, child process)');
    const hello = await startHello(log);
    let helloRunning = true;
    const stopHello = async () => {
      if (helloRunning) await hello.stop();
      helloRunning = false;
    };
    log(`deeppage (child process, ${profile.cities === 'seed' ? 'seeded with the cities' : `${profile.cities} cities over _bulk`})`);
    try {
      return await withChild(startDeeppage({ seed: profile.cities === 'seed', log }), async (server) => {
        const cities = await loadCities(server.url, profile.cities, log);
        const local = cities.target;
        log(`throughput: hello-world and deeppage's reads, in ${profile.rounds} rounds`);
        const topK: Target = { ...local, name: SERIES.topK, paging: 'top_k' };
        const reads = [helloEndpoint(hello.url), rootEndpoint(server.url), pageEndpoint('shallow', local, 0, cities.docs), pageEndpoint('deep', local, DEEP_FROM, cities.docs), pageEndpoint('deep top-k', topK, DEEP_FROM, cities.docs)];
        const throughput: Throughput[] = await measureAlternating(reads, profile.load, profile.rounds, log);
        // Latency under more load: the shallow page at 50 connections, in rounds beside hello-world
        // at 50 (a slow spell of the machine then shows in both), before the bulk run (whose
        // index's refreshes and merges would otherwise still be running under it).
        log(`throughput: hello-world and the shallow page at ${BUSY_CONNECTIONS} connections, in ${profile.rounds} rounds`);
        const busyReads = [helloEndpoint(hello.url), pageEndpoint('shallow', local, 0, cities.docs)];
        throughput.push(...(await measureAlternating(busyReads, busy(profile.load), profile.rounds, log)));
        await stopHello();
        log('throughput: deeppage');
        throughput.push(await measureThroughput(bulkEndpoint(server.url), profile.load, log));

        const sweeps: SweepResult[] = [];
        const sweep = async (loaded: Loaded, isCities: boolean) => {
          const paired = remoteFor(loaded, isCities);
          log(`sweep: ${loaded.label}${paired ? `, beside ${paired.target.name}` : ''}`);
          const points = sweepPoints(fromValues(profile.froms, loaded.docs), profile.sizes);
          sweeps.push(await sweepCorpus({ loaded, remote: paired, points, budget: profile.page, coldBudget: profile.cold }, log));
        };
        await sweep(cities, true);
        log(`searches with a query: ${cities.label}`);
        const queries = await querySweep(cities, profile.page, profile.cold, log);
        for (const run of profile.products) {
          const index = run.shards === 5 ? 'products' : `products-${run.shards}shards`;
          log(`products: ${run.docs} documents into ${index} (${run.shards} shards) over _bulk`);
          const loaded = await loadProducts(server.url, index, run.docs, run.shards, run.batch, log);
          await sweep(loaded, false);
          await esOk(server.url, 'DELETE', `/${index}`);
        }

        const rows = [...throughput.flatMap((t) => throughputRows(t)), ...sweeps.flatMap((s) => s.rows), ...queries.rows];
        return {
          rows,
          markdown: [throughputMarkdown(throughput, profile.load), sweepMarkdown(sweeps), queryMarkdown(queries, sweeps[0])].join('\n'),
          charts: sweepCharts(sweeps),
          notes: {
            servers:
              `each a child process on 127.0.0.1: \`${startCommandLine()}\`, as npm start runs it (empty temporary data directory, no -E settings, so indices.sorted_runs.cache.size is its default, 10 % of memory up to 2 GiB) and bench/http/hello-server.ts (bare Hono on @hono/node-server, run through tsx with the same young generation), both running (one idle while the other is loaded) until the reads' throughput rounds are over; autocannon runs in this process, so load generator and server each have a core`,
            data: Object.fromEntries(sweeps.map((s) => [s.label, { documents: s.state.documents, shards: s.state.shards, loading: s.state.loading }])),
            throughput: {
              connections: profile.load.connections,
              warmup: profile.load.warmup,
              load: profile.load.load,
              rounds: `hello-world, GET /, shallow, deep and deep top-k: ${profile.rounds} rounds, each endpoint loaded in turn for load / ${profile.rounds} a round; req/s and latency join the rounds; share_of_hello_world is the median over the rounds of req/s (answers over the round's span) over hello-world's in the same round. Then one run each: the shallow page at 50 connections, then bulk`,
              corpus: cities.label,
              req_per_s: 'median, min and max of the per-second request counts',
              latency_ms: 'per request, from autocannon response events (µs resolution)',
              p99_ms: Object.fromEntries(throughput.map((t) => [t.endpoint.name, t.result.p99])),
              state: 'the cities before their sweep: shallow and deep pages (sorted_runs) build their runs during the warm-up run, then stay warm; deep top-k keeps no state',
              bulk: `every request is the same ${BULK_DOCS} products (bench/lib/corpus.ts products(${BULK_DOCS})) with ids p0…p${BULK_DOCS - 1}, NDJSON, application/x-ndjson: the first creates them, later ones overwrite them (index stays ${BULK_DOCS} documents)`,
            },
            sweep: {
              connections: 1,
              points: Object.fromEntries(sweeps.map((s) => [s.label, [...new Set(s.rows.map((r) => `from=${r.params.from} size=${r.params.size}`))]])),
              requests_per_point: `warm series and GET /: 3 warm-up requests (whose median estimates the cost), then about ${profile.page.ms} ms of requests, between ${profile.page.min} and ${profile.page.max}, on one connection; ${SERIES.cold}: one page per _cache/clear, until ${profile.cold.ms} ms of wall time, between ${profile.cold.min} and ${profile.cold.max} pages`,
              latency_ms: 'autocannon hrtime per request, from writing the request to the end of the answer',
              corpora: Object.fromEntries(sweeps.map((s) => [s.label, { checks: s.checks, state: s.state, ...(s.skipped.length > 0 && { remote_not_asked: s.skipped }) }])),
              ...(remote && { remote: { target: remote.target.name, index: remote.target.index, documents: remote.docs, result_window: remote.window, result_window_from: remote.windowSource, note: `no paging parameter and no cold series for the remote (its _cache/clear clears other caches); its own GET / beside every point` } }),
            },
            queries: { corpus: queries.label, searches: queries.searches, checks: queries.checks, state: queries.state },
            checks: [
              'hello-world: GET / answers {"hello":"world"}',
              'shallow, deep and deep top-k pages: checked as in the sweep before timing',
              'bulk: one request answers errors:false with 1,000 items before timing; every timed answer contains "errors":false; after the runs, _count of bench-bulk is 1,000',
              'every autocannon run: no non-2xx answers and no connection errors, or the suite refuses to report',
              'sweep: see sweep.corpora.<corpus>.checks; a wrong page stops the run',
            ],
          },
        };
      });
    } finally {
      await stopHello();
    }
  },
};

/**
 * The largest from + size the remote's index answers: `index.max_result_window` from its settings
 * (set, or among the defaults), the smallest over the indices it names; Elasticsearch's default
 * when its settings do not say.
 */
async function resultWindow(target: Target): Promise<{ window: number; windowSource: string }> {
  const answer = await esRequest(target.url, 'GET', `/${encodeURIComponent(target.index)}/_settings?include_defaults=true&flat_settings=true`);
  const windows: number[] = [];
  if (answer.status === 200 && typeof answer.json === 'object' && answer.json !== null) {
    for (const entry of Object.values(answer.json as Record<string, Record<string, unknown>>)) {
      const value = windowOf(entry?.settings) ?? windowOf(entry?.defaults);
      if (value !== undefined) windows.push(value);
    }
  }
  if (windows.length > 0) return { window: Math.min(...windows), windowSource: "the index's index.max_result_window" };
  return { window: ES_WINDOW, windowSource: `Elasticsearch's default: GET /${target.index}/_settings did not give index.max_result_window` };
}

/** `index.max_result_window` of flat (`{"index.max_result_window": "…"}`) or nested settings. */
function windowOf(settings: unknown): number | undefined {
  if (typeof settings !== 'object' || settings === null) return undefined;
  const flat = (settings as Record<string, unknown>)['index.max_result_window'];
  const nested = ((settings as Record<string, unknown>).index as Record<string, unknown> | undefined)?.max_result_window;
  const value = Number(flat ?? nested);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
