/**
 * Requests per second and latency at a fixed number of connections, for the hello-world ceiling
 * and deeppage's shallow page, deep page and bulk ingest. Each endpoint prepares and checks one
 * answer of its own before a warm-up run and the timed run.
 */
import { bulkBody, products } from '../lib/corpus.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { esBulk, esCount, esCreateIndex, esOk, esRefresh } from '../lib/es-client.ts';
import type { Timing } from '../lib/measure.ts';
import { quantile } from '../lib/format.ts';
import { joinLoads, meanRate, runLoad, type Bound, type LoadResult } from './load.ts';
import { checkedPage, pagePath, type Target } from './page.ts';

export interface Endpoint {
  name: string;
  /** Who answers: `hono` (the bare framework) or `deeppage`. */
  strategy: string;
  url: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Documents written per request (bulk). */
  docs?: number;
  /** Sets up what the endpoint needs and checks one answer; throws WrongAnswer. */
  prepare(): Promise<void>;
  /** Every timed answer's body must pass this. */
  verifyBody?(body: string): boolean;
  /** Checks the server's state after the timed run. */
  verifyAfter?(): Promise<void>;
}

export interface LoadProfile {
  connections: number;
  warmup: Bound;
  load: Bound;
  sampleMs: number;
}

export interface Throughput {
  endpoint: Endpoint;
  result: LoadResult;
  connections: number;
  /**
   * Measured in rounds beside the ceiling ({@link measureAlternating}): req/s as a share of the
   * ceiling's in the same round, over the rounds.
   */
  ofCeiling?: Timing;
  /** Measured in rounds: each round's p99 latency (ms), over the rounds (`result.p99` pools them all). */
  roundP99?: Timing;
}

export async function measureThroughput(endpoint: Endpoint, profile: LoadProfile, log: (line: string) => void): Promise<Throughput> {
  await endpoint.prepare();
  const spec = loadSpec(endpoint, profile);
  await warmUp(endpoint, profile);
  const result = await runLoad({ ...spec, bound: profile.load });
  await endpoint.verifyAfter?.();
  log(`  ${endpoint.name.padEnd(11)} ${summary(endpoint, result, profile.connections)}`);
  return { endpoint, result, connections: profile.connections };
}

/**
 * The ceiling (the first endpoint) and the others measured in turns, `rounds` times over, each
 * round a share of the profile's load; each endpoint's result joins its rounds, and its share of
 * the ceiling is taken round by round. This machine's speed drifts by tens of percent within
 * minutes, so a ceiling measured once, before the others, says little about their share of it;
 * a round takes seconds.
 */
export async function measureAlternating(endpoints: readonly Endpoint[], profile: LoadProfile, rounds: number, log: (line: string) => void): Promise<Throughput[]> {
  for (const endpoint of endpoints) {
    await endpoint.prepare();
    await warmUp(endpoint, profile);
  }
  // A round bounded by requests asks for at least one per connection (autocannon refuses fewer).
  const bound: Bound = 'seconds' in profile.load ? { seconds: profile.load.seconds / rounds } : { requests: Math.max(profile.connections, Math.ceil(profile.load.requests / rounds)) };
  const runs = endpoints.map((): LoadResult[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, endpoint] of endpoints.entries()) runs[i].push(await runLoad({ ...loadSpec(endpoint, profile), bound }));
    log(`  round ${round + 1} of ${rounds}: ${endpoints.map((e, i) => `${e.name} ${meanRate(runs[i][round]).toFixed(0)}`).join(', ')} req/s`);
  }
  for (const endpoint of endpoints) await endpoint.verifyAfter?.();
  const ceiling = runs[0].map(meanRate);
  return endpoints.map((endpoint, i) => {
    const result = joinLoads(runs[i]);
    const shares = Float64Array.from(runs[i], (run, round) => meanRate(run) / ceiling[round]).sort();
    const ofCeiling = { median: quantile(shares, 0.5), min: shares[0], max: shares[shares.length - 1], samples: shares.length };
    const p99s = Float64Array.from(runs[i], (run) => run.p99).sort();
    const roundP99 = { median: quantile(p99s, 0.5), min: p99s[0], max: p99s[p99s.length - 1], samples: p99s.length };
    const share = i === 0 ? '' : `; ${(ofCeiling.median * 100).toFixed(0)} % of ${endpoints[0].name} (rounds ${(ofCeiling.min * 100).toFixed(0)}–${(ofCeiling.max * 100).toFixed(0)} %)`;
    log(`  ${endpoint.name.padEnd(11)} ${summary(endpoint, result, profile.connections)}${share}; p99 by round ${roundP99.median.toFixed(2)} ms (${roundP99.min.toFixed(2)}–${roundP99.max.toFixed(2)})`);
    return { endpoint, result, connections: profile.connections, roundP99, ...(i > 0 && { ofCeiling }) };
  });
}

function loadSpec(endpoint: Endpoint, profile: LoadProfile) {
  return {
    url: endpoint.url + endpoint.path,
    method: endpoint.method,
    body: endpoint.body,
    headers: endpoint.headers,
    connections: profile.connections,
    sampleMs: profile.sampleMs,
    verifyBody: endpoint.verifyBody,
  };
}

/** Warm-up answers are thrown away, so their sampling interval does not matter: a short one ends the run on time. */
async function warmUp(endpoint: Endpoint, profile: LoadProfile): Promise<void> {
  await runLoad({ ...loadSpec(endpoint, profile), bound: profile.warmup, sampleMs: 100 });
}

function summary(endpoint: Endpoint, result: LoadResult, connections: number): string {
  const docs = endpoint.docs ? `, ${Math.round(result.rate.median * endpoint.docs)} docs/s` : '';
  return `${result.rate.median.toFixed(0)} req/s${docs}, latency p50 ${result.latency.median.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms (${result.latency.samples} requests in ${result.seconds} s, ${connections} connections)`;
}

export function throughputRows({ endpoint, result, connections, ofCeiling, roundP99 }: Throughput): Row[] {
  const params = { endpoint: endpoint.name, request: `${endpoint.method} ${endpoint.path}`, connections };
  const row = { group: 'throughput', strategy: endpoint.strategy, params };
  const rows: Row[] = [
    { ...row, unit: 'req/s', ...result.rate },
    { ...row, unit: 'ms', ...result.latency },
  ];
  if (ofCeiling) rows.push({ ...row, unit: 'share of hello-world', ...ofCeiling });
  // Each round's p99, over the rounds (the `ms` row above is over all requests).
  if (roundP99) rows.push({ ...row, params: { ...params, statistic: 'p99 by round' }, unit: 'ms', ...roundP99 });
  if (endpoint.docs) {
    const { median, min, max, samples } = result.rate;
    rows.push({ ...row, unit: 'docs/s', median: median * endpoint.docs, min: min * endpoint.docs, max: max * endpoint.docs, samples });
  }
  return rows;
}

export function helloEndpoint(url: string): Endpoint {
  return {
    name: 'hello-world',
    strategy: 'hono',
    url,
    method: 'GET',
    path: '/',
    async prepare() {
      const { body } = await esOk<{ hello?: string }>(url, 'GET', '/');
      if (body.hello !== 'world') throw new WrongAnswer(`hello-world: GET / answered ${JSON.stringify(body)}`);
    },
  };
}

/** deeppage's `GET /`: the node's name, version and tagline, what every client asks first. */
export function rootEndpoint(url: string): Endpoint {
  return {
    name: 'GET /',
    strategy: 'deeppage',
    url,
    method: 'GET',
    path: '/',
    async prepare() {
      const { body } = await esOk<{ tagline?: string }>(url, 'GET', '/');
      if (body.tagline !== 'You Know, for Search') throw new WrongAnswer(`deeppage: GET / answered ${JSON.stringify(body)}`);
    },
  };
}

/** Page `from` of 10 on `target`, which holds `total` documents. */
export function pageEndpoint(name: string, target: Target, from: number, total: number): Endpoint {
  return {
    name,
    strategy: target.name,
    url: target.url,
    method: 'GET',
    path: pagePath(target, from, 10),
    async prepare() {
      await checkedPage(target, from, 10, total);
    },
  };
}

export const BULK_INDEX = 'bench-bulk';
export const BULK_DOCS = 1000;

/**
 * One `_bulk` body of BULK_DOCS products with ids p0…p(BULK_DOCS − 1), sent on every request: the
 * first creates the documents, every later one overwrites them, so the index stays BULK_DOCS big.
 */
export function bulkEndpoint(url: string): Endpoint {
  const corpus = products(BULK_DOCS);
  const path = `/${BULK_INDEX}/_bulk`;
  const body = bulkBody(corpus, BULK_INDEX, 0, BULK_DOCS);
  return {
    name: 'bulk',
    strategy: 'deeppage',
    url,
    method: 'POST',
    path,
    body,
    headers: { 'content-type': 'application/x-ndjson' },
    docs: BULK_DOCS,
    async prepare() {
      await esCreateIndex(url, BULK_INDEX, 5, corpus.mappings);
      await esBulk(url, path, body, BULK_DOCS);
    },
    verifyBody: (answer) => answer.includes('"errors":false'),
    async verifyAfter() {
      await esRefresh(url, BULK_INDEX);
      const count = await esCount(url, BULK_INDEX);
      if (count !== BULK_DOCS) throw new WrongAnswer(`${BULK_INDEX}: _count is ${count} after the bulk runs, expected ${BULK_DOCS} (every request overwrites the same ids)`);
    },
  };
}
