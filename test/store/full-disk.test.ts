/**
 * lmdb on a full file system (a tmpfs, where this process may mount one): a commit that does not fit
 * is a StorageError saying so, never a crash of the process (lmdb-js rejects a promise nobody holds)
 * nor a wait without end (it never settles the flush of a failed commit, which `flushed` and close()
 * wait for); what was acknowledged stays, and writes succeed again once space is freed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tmpfsAllowed, withTmpfs } from '../../scripts/reliability/tmpfs.ts';

const mount = tmpfsAllowed();

describe('DocStore on a full file system', () => {
  it.skipIf(!mount.allowed)(`refuses what does not fit, keeps the rest, and goes on${mount.allowed ? '' : ` (skipped: ${mount.why})`}`, async () => {
    const result = await withTmpfs(16 << 20, async (dir) =>
      JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'test/store/full-disk-child.ts', dir], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] })),
    );
    expect(result.error).toBeUndefined();
    // A short write into the full disk comes back as EIO (5) or ENOSPC (28): both mean full here.
    expect(result.refused).toMatchObject({ full: true });
    expect([5, 28]).toContain(result.refused.code);
    const beside = result.beside as { small: unknown; big: unknown }[];
    expect(beside.map((b) => b.big)).toEqual(beside.map(() => expect.objectContaining({ full: true })));
    // Mostly the small write has a commit of its own, and is stored.
    expect(beside.filter((b) => b.small === 'stored').length).toBeGreaterThan(0);
    expect(result.last).toMatchObject({ full: true });
    expect(result.closed).toBe(true);
    expect(result.afterFreeing).toBe('stored');
    expect(result.missing).toEqual([]);
    expect(result.count).toBe(result.stored);
  }, 90_000);
});
