/**
 * A process's anonymous resident memory (RssAnon in /proc/<pid>/status), in bytes: its heap and
 * other private memory, without the pages of files it maps (LMDB's data file), which the kernel
 * can drop and read again. Linux only; elsewhere the whole resident set (ps) stands in.
 */
import { readFileSync } from 'node:fs';
import { memoryOf } from '../ingest/footprint.ts';

export function anonymousMemory(pid: number): number {
  try {
    const match = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // No procfs.
  }
  return memoryOf(pid).rss;
}
