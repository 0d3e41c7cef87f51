/**
 * The server's own event-loop delay, for the load check (scripts/reliability/load.ts) and for anyone
 * watching a running node: `npm start` samples the loop with `perf_hooks.monitorEventLoopDelay`
 * every {@link RESOLUTION_MS} ms, and on SIGUSR2 prints what it measured since the last SIGUSR2 (or
 * the start) as one line on stderr, then starts a new window:
 *
 *     kill -USR2 <pid>
 *     deeppage: event loop delay {"count":5987,"min_ms":10.01,"mean_ms":10.4,"p50_ms":10.1,"p99_ms":14.2,"max_ms":31.5,"window_ms":60012,"heap_used_mib":88.1,"heap_collected":false}
 *
 * Each sample is the time between two ticks of a 10 ms timer, so an idle loop reads 10 ms and a
 * callback that holds the loop for 50 ms reads 50 to 60 ms. `heap_used_mib` is V8's heap in use;
 * when Node runs with `--expose-gc` (the load check starts it so) a full collection comes first,
 * after the window's figures are taken and before the next window starts (its pause counted in
 * neither), so that it is the live heap: what a leak would make grow.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export const RESOLUTION_MS = 10;
/** What the line printed on SIGUSR2 starts with; the JSON follows it. */
export const LOOP_DELAY_LINE = 'deeppage: event loop delay ';

export interface LoopDelay {
  /** Samples in the window. */
  count: number;
  min_ms: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** How long the window lasted. */
  window_ms: number;
  heap_used_mib: number;
  /** Whether a full collection ran before the heap was measured. */
  heap_collected: boolean;
  /** The window's longest stalls over {@link STALL_MS}: when (seconds since the process started) and how long the loop was held, longest first. */
  stalls: { at_s: number; ms: number }[];
}

/** Stalls at least this long are listed with when they happened (a timer late by this much). */
const STALL_MS = 30;
const STALLS_KEPT = 5;

/** Starts sampling and answers SIGUSR2 with the window's figures on stderr. */
export function reportLoopDelayOnSignal(): void {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let since = performance.now();
  // The histogram says how long, not when: a timer of our own notes when the longest stalls came.
  let stalls: LoopDelay['stalls'] = [];
  let last = performance.now();
  setInterval(() => {
    const now = performance.now(), late = now - last - RESOLUTION_MS;
    last = now;
    if (late < STALL_MS) return;
    stalls.push({ at_s: Math.round(now / 10) / 100, ms: Math.round(late * 10) / 10 });
    stalls = stalls.sort((a, b) => b.ms - a.ms).slice(0, STALLS_KEPT);
  }, RESOLUTION_MS).unref();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const figures: LoopDelay = {
      count: histogram.count,
      min_ms: ms(histogram.count > 0 ? histogram.min : 0),
      mean_ms: ms(histogram.count > 0 ? histogram.mean : 0),
      p50_ms: ms(histogram.percentile(50)),
      p99_ms: ms(histogram.percentile(99)),
      max_ms: ms(histogram.max),
      window_ms: Math.round(performance.now() - since),
      heap_used_mib: 0,
      heap_collected: typeof globalThis.gc === 'function',
      stalls,
    };
    globalThis.gc?.();
    figures.heap_used_mib = Math.round(getHeapStatistics().used_heap_size / 2 ** 20 * 10) / 10;
    console.error(LOOP_DELAY_LINE + JSON.stringify(figures));
    // The next window starts once the timer has ticked after the collection (up to 130 ms for a
    // full one): reset at once, that late tick, the measurement's own, would open the next window.
    setTimeout(() => {
      histogram.reset();
      stalls = [];
      since = performance.now();
    }, 2 * RESOLUTION_MS);
  });
}
