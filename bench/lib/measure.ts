/**
 * One tinybench task at a time: warm up, sample, return the latency median/min/max in ms.
 * A fresh Bench per task keeps each task's warmup right before its run, and a GC before each
 * task (with `--expose-gc`) keeps the previous task's garbage out of its samples.
 */
import { Bench } from 'tinybench';

export interface Budget {
  /** Time budget per task in ms; sampling goes on until both this and `iterations` are met. */
  time: number;
  /** Minimum samples per task. */
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
}

/** A measured latency in ms. */
export interface Timing {
  median: number;
  min: number;
  max: number;
  samples: number;
}

export const QUICK: Budget = { time: 400, iterations: 5, warmupTime: 100, warmupIterations: 2 };
export const FULL: Budget = { time: 2000, iterations: 20, warmupTime: 500, warmupIterations: 5 };
/** For the test suite's smoke run: the code paths, not the numbers. */
export const SMOKE: Budget = { time: 0, iterations: 2, warmupTime: 0, warmupIterations: 1 };

/** A sink for results, so that no task's work is dead code. */
export let sink = 0;

type Result = { length: number } | number;

function consume(r: Result): void {
  sink ^= typeof r === 'number' ? r : r.length;
}

/**
 * Times `fn` (its return value goes to the sink). `beforeEach` runs before every call, outside
 * the timed region: use it to restore inputs that `fn` mutates.
 */
export function measure(budget: Budget, fn: () => Result, beforeEach?: () => void): Timing {
  globalThis.gc?.();
  const bench = new Bench({ ...budget, timestampProvider: 'hrtimeNow', throws: true });
  bench.add('task', () => consume(fn()), beforeEach ? { beforeEach, async: false } : { async: false });
  bench.runSync();
  return timing(bench);
}

/** {@link measure} for a function that returns a promise (each call is awaited before the next). */
export async function measureAsync(budget: Budget, fn: () => Promise<Result>): Promise<Timing> {
  globalThis.gc?.();
  const bench = new Bench({ ...budget, timestampProvider: 'hrtimeNow', throws: true });
  bench.add('task', async () => consume(await fn()), { async: true });
  await bench.run();
  return timing(bench);
}

function timing(bench: Bench): Timing {
  const result = bench.tasks[0].result;
  if (result.state === 'errored') throw result.error;
  if (result.state !== 'completed') throw new Error(`benchmark task ended in state ${result.state}`);
  const { p50, min, max, samplesCount } = result.latency;
  return { median: round(p50), min: round(min), max: round(max), samples: samplesCount };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
