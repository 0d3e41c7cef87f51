/**
 * Gives memory back once the node goes quiet after heavy work, as the JVM's G1 does with its
 * periodic collections (JEP 346, "promptly return unused committed memory").
 *
 * A bulk load leaves V8's young generation grown to its most (2 × 64 MB with `npm start`'s
 * `--max-semi-space-size=64`) and the load's garbage in the old one, and V8 keeps both resident
 * while nothing runs: on 1,000,000 small documents the server held 390 bytes a document after the
 * load against 120 after a restart on the same data. So every {@link CHECK_MS} the event loop's
 * utilization is read; once it has stayed under {@link QUIET_UTILIZATION} for {@link QUIET_CHECKS}
 * checks in a row, and V8's heap and the memory it tracks outside it (array buffers) have grown by
 * {@link GROWTH_BYTES} or more since the last collection, one full collection runs that also
 * shrinks the young generation. It pauses the loop (about 0.2 s on a million documents), and it only
 * ever runs on a loop that has been idle for a second.
 *
 * The collection is the inspector's `HeapProfiler.collectGarbage`, through a session on this very
 * process (no port is opened): neither `gc()` under `--expose-gc` nor its options shrink the young
 * generation in Node 20's V8, and the inspector's collection does. Then, on glibc, the C allocator
 * gives back the pages the freed array buffers leave among live ones (malloc-trim.ts). Without koffi
 * (an optional dependency) there is no trim: the collection runs all the same, and `log` is told
 * so once, the first time a trim would have run.
 *
 * Work that frees its buffers at once (a flush encodes segments into buffers of megabytes) leaves
 * V8's heap as it was, and glibc's free pages behind: so, on glibc, anonymous resident memory
 * grown by {@link TRIM_GROWTH_BYTES} since the last trim, with the heap not grown enough for a
 * collection, gets the trim alone (a few milliseconds).
 *
 * @example
 * const idle = watchIdleMemory({ log: console.error });
 * idle.stop(); // when the server closes
 */
import { Session } from 'node:inspector/promises';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { anonymousResidentBytes, mallocTrim, type MallocTrim } from './malloc-trim.ts';

export const CHECK_MS = 500;
/** A loop busier than this share of a check's time is not idle (an idle node's own timers use well under 1 %). */
export const QUIET_UTILIZATION = 0.02;
/** Checks in a row the loop must stay quiet: a second. */
export const QUIET_CHECKS = 2;
/** Growth worth a full collection: less than this and the pause buys too little. */
export const GROWTH_BYTES = 64 * 2 ** 20;
/** Growth of anonymous resident memory worth a trim alone. */
export const TRIM_GROWTH_BYTES = 32 * 2 ** 20;

export interface IdleMemoryOptions {
  /** Told, in one line, what each collection or trim gave back. */
  log?: (line: string) => void;
  checkMs?: number;
  growthBytes?: number;
  trimGrowthBytes?: number;
}

export interface IdleMemory {
  /** Full collections run so far. */
  readonly collections: number;
  /** Trims run alone (without a collection) so far. */
  readonly trims: number;
  stop(): void;
}

/** What the collection can give back, measured the same way before and after: V8's heap pages and its external memory. */
function heldBytes(): number {
  const heap = getHeapStatistics();
  return heap.total_physical_size + heap.external_memory;
}

export function watchIdleMemory({ log, checkMs = CHECK_MS, growthBytes = GROWTH_BYTES, trimGrowthBytes = TRIM_GROWTH_BYTES }: IdleMemoryOptions = {}): IdleMemory {
  let baseline = heldBytes();
  let anonymousBaseline = anonymousResidentBytes();
  let quiet = 0;
  let collections = 0;
  let trims = 0;
  let busy = false;
  // Looked up at its first use (loading it takes about 20 ms); null where there is none.
  let trim: MallocTrim | null | undefined;
  const trimmer = () => (trim === undefined ? (trim = mallocTrim({ log }) ?? null) : trim);
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

  /** Runs the work, then logs what it gave back and starts counting growth from there. */
  const giveBack = (work: () => Promise<string>, grown: string) => {
    const started = performance.now();
    const rssBefore = process.memoryUsage.rss();
    busy = true;
    void work()
      .then((what) => log?.(`deeppage: idle after ${grown}; ${what} took ${Math.round(performance.now() - started)} ms, resident memory ${mib(rssBefore)} → ${mib(process.memoryUsage.rss())} MiB`))
      // An inspector that cannot collect (a Node built without it) leaves memory as V8 keeps it.
      .catch(() => {})
      .finally(() => {
        baseline = heldBytes();
        anonymousBaseline = anonymousResidentBytes();
        quiet = 0;
        last = performance.eventLoopUtilization();
        busy = false;
      });
  };

  const timer = setInterval(() => {
    if (busy) return;
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    quiet = utilization < QUIET_UTILIZATION ? quiet + 1 : 0;
    if (quiet < QUIET_CHECKS) return;
    const held = heldBytes();
    // Less held than at the last collection: the new baseline, so that growth counts from the lowest point.
    if (held < baseline) baseline = held;
    const grown = held - baseline;
    if (grown >= growthBytes) {
      giveBack(async () => {
        await collect();
        const release = trimmer();
        release?.();
        collections++;
        return release ? 'a full collection and malloc_trim' : 'a full collection';
      }, `${mib(grown)} MiB of heap growth`);
      return;
    }
    const anonymous = anonymousResidentBytes();
    if (anonymous === undefined || anonymousBaseline === undefined) return;
    if (anonymous < anonymousBaseline) anonymousBaseline = anonymous;
    const anonymousGrown = anonymous - anonymousBaseline;
    if (anonymousGrown < trimGrowthBytes) return;
    const release = trimmer();
    if (!release) {
      anonymousBaseline = anonymous;
      return;
    }
    giveBack(async () => {
      release();
      trims++;
      return 'malloc_trim';
    }, `${mib(anonymousGrown)} MiB of resident growth`);
  }, checkMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    get trims() {
      return trims;
    },
    stop: () => clearInterval(timer),
  };
}

/** One full collection that shrinks the young generation (see the module's comment). */
async function collect(): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}
