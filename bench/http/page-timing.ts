/**
 * One request at a time on one connection, in the two states the HTTP sweeps measure: warm (the
 * same request again and again) and cold (each request right after `POST /{index}/_cache/clear`,
 * no background run build pending). Every answer must be 2xx and pass the body check.
 */
import { quantile } from '../lib/format.ts';
import type { Timing } from '../lib/measure.ts';
import { withoutCredentials } from '../lib/es-client.ts';
import { runLoad, timeOne, type OneRequest } from './load.ts';
import { clearRuns, settled } from './runs-state.ts';

/**
 * A series' load at a point. Warm series: a warm-up of WARMUP requests, which also estimates the
 * page's cost, then about `ms` of requests, at least `min` and at most `max` of them. The cold
 * series: pages (each after its `_cache/clear`) until `ms` of wall time has gone, at least `min`
 * and at most `max` of them.
 */
export interface PageBudget {
  ms: number;
  min: number;
  max: number;
}

const WARMUP = 3;
/** autocannon ends a run at its next sampling tick: a short interval wastes no time. */
const SAMPLE_MS = 10;

/** The request to `url` (a base URL, credentials allowed), a warm-up that estimates the cost, then the budget's worth. */
export async function timeWarm(url: string, request: OneRequest, budget: PageBudget, verifyBody?: (body: string) => boolean): Promise<Timing> {
  const { url: base, headers } = withoutCredentials(url);
  const spec = {
    url: base + request.path,
    method: request.method,
    body: request.body,
    headers: request.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    connections: 1,
    sampleMs: SAMPLE_MS,
    verifyBody,
  };
  const warmup = await runLoad({ ...spec, bound: { requests: WARMUP } });
  // The fastest warm-up request estimates the cost: a slow first answer (a new connection, a GC) would cut the count.
  const requests = Math.min(budget.max, Math.max(budget.min, Math.round(budget.ms / warmup.latency.min)));
  return (await runLoad({ ...spec, bound: { requests } })).latency;
}

/**
 * The request after `_cache/clear` of `index` on `url`, within the budget: before each, no build
 * pending, the clear, then on a new connection an untimed `GET /` and the timed request.
 */
export async function timeCold(url: string, index: string, request: OneRequest, budget: PageBudget, verifyBody?: (body: string) => boolean): Promise<Timing> {
  const { url: base, headers } = withoutCredentials(url);
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < budget.max && (samples.length < budget.min || performance.now() - started < budget.ms)) {
    await settled(url);
    await clearRuns(url, index);
    samples.push(await timeOne(base, headers, { path: '/' }, request, verifyBody));
  }
  const sorted = Float64Array.from(samples).sort();
  return { median: round(quantile(sorted, 0.5)), min: sorted[0], max: sorted[sorted.length - 1], samples: sorted.length };
}

function round(ms: number): number {
  return Math.round(ms * 1e4) / 1e4;
}
