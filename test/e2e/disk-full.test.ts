/**
 * A full disk (scripts/reliability/disk-full.ts): writes refused with Elasticsearch's flood-stage
 * 429, reads served, writes accepted again once space returns, nothing acknowledged lost across
 * restarts. On a real tmpfs where this process may mount one (the real server, lmdb's own errors),
 * and always on the fault-injecting store (the engine and HTTP sides alone).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { diskFullCheck, type DiskFullSummary } from '../../scripts/reliability/disk-full.ts';
import { tmpfsAllowed } from '../../scripts/reliability/tmpfs.ts';
import { killServers } from './server-process.ts';

afterAll(killServers);

const mount = tmpfsAllowed();

function expectClean(summary: DiskFullSummary, lines: string[]): void {
  const context = lines.join('\n');
  expect(summary.problems, context).toEqual([]);
  expect(summary.lost_ids, context).toEqual([]);
  // Single writes, bulk items and the flush while full: refused, each with the 429 to the letter.
  expect(summary.refused, context).toBeGreaterThan(100);
  expect(summary.acknowledged, context).toBeGreaterThan(500);
}

describe('a full disk', () => {
  it.skipIf(!mount.allowed)(`on a tmpfs, with the real server${mount.allowed ? '' : ` (skipped: ${mount.why}; the fault-injecting store below still runs)`}`, async () => {
    const lines: string[] = [];
    const summary = await diskFullCheck({ storage: 'tmpfs', log: (line) => lines.push(line) });
    expect(summary.storage).toBe('tmpfs');
    expectClean(summary, lines);
  }, 120_000);

  it('on the fault-injecting store', async () => {
    const lines: string[] = [];
    const summary = await diskFullCheck({ storage: 'injected', log: (line) => lines.push(line) });
    expect(summary.storage).toBe('fault-injecting store');
    expectClean(summary, lines);
  }, 60_000);
});
