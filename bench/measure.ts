/**
 * One tinybench task at a time: warm up, sample, return the latency median/min/max in ms.
 * A fresh Bench per task keeps each task's warmup right before its run, and a GC before each
 * task keeps the previous task's garbage out of its samples.
 */
import { Bench } from 'tinybench';
import type { Timing } from './report.ts';

export interface Budget {
  /** Time budget per task in ms; sampling goes on until both this and `iterations` are met. */
  time: number;
  /** Minimum samples per task. */
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
}

export const QUICK: Budget = { time: 400, iterations: 5, warmupTime: 100, warmupIterations: 2 };
export const FULL: Budget = { time: 2000, iterations: 20, warmupTime: 500, warmupIterations: 5 };

/** A sink for results, so that no task's work is dead code. */
export let sink = 0;

/**
 * Times `fn` (its return value goes to the sink). `beforeEach` runs before every call, outside
 * the timed region: use it to restore inputs that `fn` mutates.
 */
export function measure(budget: Budget, fn: () => { length: number } | number, beforeEach?: () => void): Timing {
  globalThis.gc?.();
  const bench = new Bench({ ...budget, timestampProvider: 'hrtimeNow', throws: true });
  bench.add(
    'task',
    () => {
      const r = fn();
      sink ^= typeof r === 'number' ? r : r.length;
    },
    beforeEach ? { beforeEach, async: false } : { async: false },
  );
  bench.runSync();
  const result = bench.tasks[0].result;
  if (result.state === 'errored') throw result.error;
  if (result.state !== 'completed') throw new Error(`benchmark task ended in state ${result.state}`);
  const { p50, min, max } = result.latency;
  return { median_ms: round(p50), min_ms: round(min), max_ms: round(max) };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
