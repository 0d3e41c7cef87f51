/**
 * What a server process holds: its resident memory, read from /proc/<pid>/status on Linux (with
 * `ps` as the fallback elsewhere), and the bytes its data directory takes on disk.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Memory {
  /** Resident set size, in bytes. */
  rss: number;
  /** The peak resident set size so far (VmHWM), in bytes; Linux only. */
  peak?: number;
}

export function memoryOf(pid: number): Memory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) * 1024 : undefined;
    };
    const rss = kib('VmRSS');
    if (rss !== undefined) return { rss, peak: kib('VmHWM') };
  } catch {
    // No procfs: ask ps.
  }
  const kib = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`cannot read the resident memory of pid ${pid}`);
  return { rss: kib * 1024 };
}

export interface Disk {
  /** The sum of the files' sizes. */
  apparent: number;
  /** The blocks allocated to them (what `du` counts): below `apparent` for sparse files. */
  allocated: number;
}

/** The files under `dir`, recursively (symbolic links are not followed). */
export function diskOf(dir: string): Disk {
  const total: Disk = { apparent: 0, allocated: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = diskOf(path);
      total.apparent += inner.apparent;
      total.allocated += inner.allocated;
    } else {
      const stat = lstatSync(path);
      total.apparent += stat.size;
      total.allocated += stat.blocks * 512;
    }
  }
  return total;
}
