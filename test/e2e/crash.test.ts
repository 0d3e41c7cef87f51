/**
 * Crash safety, bounded: three cycles of the crash check (scripts/reliability/crash.ts; `npm run
 * reliability -- crash` runs twenty). Each kills the real server with SIGKILL while a bulk writer,
 * single-document writers, flushes, refresh merges and point-in-time walks run, restarts it on the
 * same data directory, and checks every acknowledged write by GET, by a search_after walk, by
 * from/size pages at several depths and by `_count`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { crashCycles } from '../../scripts/reliability/crash.ts';
import { killServers } from './server-process.ts';

afterAll(killServers);

describe('kill -9 during writes, flushes, merges and searches', () => {
  it('loses nothing acknowledged over three cycles, and pages add up after every restart', async () => {
    // Random unless given, and always in the failure message, to replay a failing run.
    const seed = Number(process.env.DEEPPAGE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const lines: string[] = [];
    const summary = await crashCycles({ cycles: 3, seed, killAfterMs: [300, 1_500], ids: 600, log: (line) => lines.push(line) });
    const context = `DEEPPAGE_CRASH_SEED=${seed}\n${lines.join('\n')}`;
    expect(summary.lost_ids, context).toEqual([]);
    expect(summary.problems, context).toEqual([]);
    // Every cycle wrote, and the kills cut writes off mid-request.
    expect(summary.per_cycle.map((cycle) => cycle.acknowledged > 0), context).toEqual([true, true, true]);
    expect(summary.unanswered, context).toBeGreaterThan(0);
  }, 120_000);
});
