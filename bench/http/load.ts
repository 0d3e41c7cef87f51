/**
 * One autocannon run in this process, bounded by a duration or a request count, refused when any
 * answer is not 2xx, any connection fails or any body fails its check; and {@link timeOne}, a
 * single timed request after an untimed one, for pages whose server state is set up before each.
 *
 * Both figures come from autocannon's per-response event. Latencies are its hrtime durations (ms
 * with µs resolution): its own histogram keeps whole milliseconds, too coarse for a sub-millisecond
 * page. Requests per second are counted here per interval, so that an interval without an answer
 * counts as 0 (autocannon's histogram leaves zeros out of its minimum but not of its median).
 */
import { quantile } from '../lib/format.ts';
import autocannon from 'autocannon';
import type { Timing } from '../lib/measure.ts';
import { WrongAnswer } from '../lib/suite.ts';

/** Run for a number of seconds, or until a number of answers. */
export type Bound = { seconds: number } | { requests: number };

export interface LoadSpec {
  /** The whole request URL, path and query included. */
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  bound: Bound;
  /**
   * The throughput sampling interval in ms (1000: per-second samples). Also autocannon's
   * `sampleInt`, at whose ticks it checks whether the run is over.
   */
  sampleMs: number;
  /** Every answer's body must pass this, or the run is refused. */
  verifyBody?: (body: string) => boolean;
}

export interface LoadResult {
  /** Answers per second, over the sampling intervals. */
  rate: Timing;
  /** Per-request latency in ms; `samples` is the number of answers. */
  latency: Timing;
  /** The 99th percentile of the latency, in ms. */
  p99: number;
  seconds: number;
  /** What the figures above were computed from, for joining runs ({@link joinLoads}). */
  raw: RawLoad;
}

/** One run's answers: each one's latency (ms, ascending) and the answers counted per sampling interval. */
export interface RawLoad {
  latencies: Float64Array;
  perInterval: Float64Array;
  intervalMs: number;
  /** From the start to the last answer, in ms. */
  spanMs: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const answered: number[] = []; // when each answer came, in ms from the start
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        body: spec.body,
        headers: spec.headers,
        connections: spec.connections,
        sampleInt: spec.sampleMs,
        timeout: 60,
        // Stop at the first failed connection or body check: the run is refused anyway.
        bailout: 1,
        ...('seconds' in spec.bound ? { duration: spec.bound.seconds } : { amount: spec.bound.requests }),
        ...(spec.verifyBody && { verifyBody: (body: string | Buffer | undefined) => spec.verifyBody!(String(body ?? '')) }),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status < 200 || status >= 300) return;
      latencies.push(ms);
      answered.push(performance.now() - started);
    });
  });
  const what = `${spec.method ?? 'GET'} ${spec.url}`;
  if (result.errors > 0) throw new WrongAnswer(`${what}: ${result.errors} failed connections (${result.timeouts} timeouts)`);
  if (result.non2xx > 0) throw new WrongAnswer(`${what}: ${result.non2xx} answers not 2xx (${statusCounts(result)})`);
  if (result.mismatches > 0) throw new WrongAnswer(`${what}: ${result.mismatches} answers failed the body check`);
  if (latencies.length === 0) throw new WrongAnswer(`${what}: no answers`);

  const spanMs = Math.max(answered[answered.length - 1], 1e-3);
  return summarize({ latencies: Float64Array.from(latencies).sort(), perInterval: perInterval(answered, spanMs, spec.sampleMs), intervalMs: spec.sampleMs, spanMs }, result.duration);
}

/**
 * Runs of the same request joined into one result, as if they were one run: every latency, every
 * whole sampling interval (runs made with the same `sampleMs`).
 */
export function joinLoads(runs: readonly LoadResult[]): LoadResult {
  const latencies = new Float64Array(runs.reduce((n, r) => n + r.raw.latencies.length, 0));
  const perInterval = new Float64Array(runs.reduce((n, r) => n + r.raw.perInterval.length, 0));
  let at = 0, atInterval = 0;
  for (const { raw } of runs) {
    latencies.set(raw.latencies, at);
    at += raw.latencies.length;
    perInterval.set(raw.perInterval, atInterval);
    atInterval += raw.perInterval.length;
  }
  const spanMs = runs.reduce((sum, r) => sum + r.raw.spanMs, 0);
  const seconds = Math.round(runs.reduce((sum, r) => sum + r.seconds, 0) * 1000) / 1000;
  return summarize({ latencies: latencies.sort(), perInterval, intervalMs: runs[0].raw.intervalMs, spanMs }, seconds);
}

/** Answers per second over a run: all its answers over the time to the last one. */
export function meanRate(result: LoadResult): number {
  return (result.raw.latencies.length * 1000) / result.raw.spanMs;
}

function summarize(raw: RawLoad, seconds: number): LoadResult {
  const sorted = raw.latencies;
  return {
    rate: perSecond(raw),
    latency: { median: round(quantile(sorted, 0.5)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]), samples: sorted.length },
    p99: round(quantile(sorted, 0.99)),
    seconds,
    raw,
  };
}

/** Answers in each whole interval up to the last answer (none when the run is shorter than one). */
function perInterval(answered: number[], spanMs: number, intervalMs: number): Float64Array {
  const counts = new Float64Array(Math.floor(spanMs / intervalMs));
  for (const at of answered) {
    const i = Math.floor(at / intervalMs);
    if (i < counts.length) counts[i]++;
  }
  return counts;
}

/** Answers per second in each whole interval, or over the whole span when it is shorter than one interval. */
function perSecond({ perInterval, intervalMs, latencies, spanMs }: RawLoad): Timing {
  if (perInterval.length === 0) {
    const rate = (latencies.length * 1000) / spanMs;
    return { median: rate, min: rate, max: rate, samples: 1 };
  }
  const counts = perInterval.slice().sort();
  const scale = 1000 / intervalMs;
  return { median: quantile(counts, 0.5) * scale, min: counts[0] * scale, max: counts[counts.length - 1] * scale, samples: counts.length };
}

/** Each status code and how many answers had it, for the message of a refused run. */
function statusCounts(result: autocannon.Result): string {
  return Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => `${code}: ${count}`).join(', ');
}

function round(ms: number): number {
  return Math.round(ms * 1e4) / 1e4;
}

export interface OneRequest {
  method?: 'GET' | 'POST';
  path: string;
  /** A JSON body, sent with `content-type: application/json`. */
  body?: string;
}

/**
 * One timed request on a fresh connection, after an untimed one on the same connection (which
 * takes the TCP handshake off the timed request): for a page whose state is set up just before it,
 * such as a page after `_cache/clear`. `base` is the URL without a path. Both answers must be 2xx
 * and the timed one's body must pass `verifyBody`; returns the timed request's latency in ms
 * (autocannon's hrtime duration, as {@link runLoad} reads it).
 */
export async function timeOne(base: string, headers: Record<string, string>, opening: OneRequest, timed: OneRequest, verifyBody?: (body: string) => boolean): Promise<number> {
  let timedNext = false;
  let latency: number | undefined;
  const failures: string[] = [];
  const what = `${timed.method ?? 'GET'} ${base}${timed.path}`;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        headers,
        connections: 1,
        amount: 2,
        // autocannon ends a run at its next sampling tick.
        sampleInt: 2,
        timeout: 60,
        bailout: 1,
        requests: [
          {
            method: opening.method ?? 'GET',
            path: opening.path,
            onResponse: (status: number) => {
              if (status < 200 || status >= 300) failures.push(`${opening.method ?? 'GET'} ${opening.path} answered ${status}`);
              timedNext = false;
            },
          },
          {
            method: timed.method ?? 'GET',
            path: timed.path,
            ...(timed.body !== undefined && { body: timed.body, headers: { ...headers, 'content-type': 'application/json' } }),
            onResponse: (status: number, body: string) => {
              if (status < 200 || status >= 300) failures.push(`answered ${status}: ${String(body).slice(0, 300)}`);
              else if (verifyBody && !verifyBody(String(body ?? ''))) failures.push(`the answer failed the body check: ${String(body).slice(0, 300)}`);
              timedNext = true;
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // autocannon calls a request's onResponse just before it emits the response's latency.
    instance.on('response', (_client, _status, _bytes, ms) => {
      if (timedNext) latency = ms;
    });
  });
  if (result.errors > 0) throw new WrongAnswer(`${what}: ${result.errors} failed connections (${result.timeouts} timeouts)`);
  if (failures.length > 0) throw new WrongAnswer(`${what}: ${failures[0]}`);
  if (latency === undefined) throw new WrongAnswer(`${what}: no answer`);
  return round(latency);
}
