/**
 * A process's anonymous resident memory (RssAnon in /proc/<pid>/status, read as the server's idle
 * trim reads its own: src/malloc-trim.ts), in bytes: its heap and other private memory, without the
 * pages of files it maps (LMDB's data file), which the kernel can drop and read again. Linux only;
 * elsewhere the whole resident set (ps) stands in.
 */
import { anonymousResidentBytes } from '../../src/malloc-trim.ts';
import { memoryOf } from '../ingest/footprint.ts';

export function anonymousMemory(pid: number): number {
  return anonymousResidentBytes(pid) ?? memoryOf(pid).rss;
}
