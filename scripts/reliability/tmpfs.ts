/**
 * A small tmpfs to fill: a real file system that runs out of space, for the disk-full check.
 * Mounting needs root (or CAP_SYS_ADMIN); {@link tmpfsAllowed} says whether this process may.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether a tmpfs can be mounted here; else why not. */
export function tmpfsAllowed(): { allowed: true } | { allowed: false; why: string } {
  try {
    return withTmpfsSync(1 << 20, () => ({ allowed: true as const }));
  } catch (error) {
    return { allowed: false, why: `mount -t tmpfs failed: ${firstLine(error)}` };
  }
}

/** Runs `use` on a fresh tmpfs of `bytes`; unmounted and removed afterwards, whatever happens. */
export async function withTmpfs<T>(bytes: number, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mount(bytes);
  try {
    return await use(dir);
  } finally {
    unmount(dir);
  }
}

function withTmpfsSync<T>(bytes: number, use: (dir: string) => T): T {
  const dir = mount(bytes);
  try {
    return use(dir);
  } finally {
    unmount(dir);
  }
}

function mount(bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'deeppage.tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return dir;
}

/** Unmounts (lazily, should something still hold a file there) and removes the mount point. */
function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmdirSync(dir);
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return (stderr || (error as Error).message).split('\n')[0];
}
