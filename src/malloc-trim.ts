/**
 * Hands the C allocator's free pages back to the operating system: glibc's `malloc_trim(0)`.
 *
 * V8 keeps array buffers (a segment's columns, request bodies, encoded segments) in memory from
 * `malloc`. glibc gives freed memory back on its own only from the top of its heap; free chunks
 * between live ones stay resident however large they are, until `malloc_trim` releases the whole
 * pages inside them (`madvise(MADV_DONTNEED)`). After a bulk load of 1,000,000 documents that was
 * a third of the server's anonymous memory: the load's buffers, freed among the columns that stay.
 * Node has no call for it, so it is called through koffi, a C foreign function interface whose
 * npm package carries its binary for each platform. koffi is an optional dependency: where it is
 * not installed or does not load, there is no trim, and the one line given to `log` says so.
 *
 * Elsewhere (macOS, musl, Windows: no glibc) there is nothing to call, and {@link mallocTrim}
 * says so by returning undefined.
 *
 * @example
 * const trim = mallocTrim();
 * trim?.(); // after a full collection has freed the buffers
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Releases the free pages; true when there were any to give back. */
export type MallocTrim = () => boolean;

/** The part of koffi used here; its own types are not needed, as koffi itself may be missing. */
interface Koffi {
  load(path: string): { func(signature: string): (pad: number) => number };
}

export interface MallocTrimOptions {
  /** Told, in one line, why there is no trim on glibc: koffi is not installed, or does not load here. */
  log?: (line: string) => void;
}

/** glibc's `malloc_trim`, or undefined where the process does not run on glibc or koffi is missing. Loading it takes about 20 ms. */
export function mallocTrim({ log }: MallocTrimOptions = {}): MallocTrim | undefined {
  if (process.platform !== 'linux') return undefined;
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch (error) {
    const why = String(error instanceof Error ? error.message : error).split('\n')[0];
    if (onGlibc()) log?.(`deeppage: cannot trim: koffi, an optional dependency, did not load (${why}); idle memory goes back through the collector alone, without glibc's malloc_trim`);
    return undefined;
  }
  try {
    // musl's libc has another name and no malloc_trim: the lookup fails, and there is no trim.
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    return () => trim(0) === 1;
  } catch {
    return undefined;
  }
}

/** Whether this process runs on glibc (its report names the glibc it found; musl's does not). */
function onGlibc(): boolean {
  const { header } = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return Boolean(header?.glibcVersionRuntime);
}

/**
 * A process's anonymous resident memory (`RssAnon` in `/proc/<pid>/status`: its heap and mappings of
 * no file, which leaves out lmdb's mapped pages), in bytes; this process's by default. Undefined where
 * `/proc` does not tell it.
 */
export function anonymousResidentBytes(pid: number | 'self' = 'self'): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const kib = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return kib ? Number(kib[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
