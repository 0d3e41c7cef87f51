/**
 * The load check (scripts/reliability/load.ts) in small: the real server as a child process with
 * the cities, a few seconds of the mixed searches and writes at 10 connections and a bulk loader
 * beside them, then the server
 * must still answer, and answer right (the pages of large cities unchanged, exactly the documents
 * the acknowledged writes left), and stop cleanly. Latency and event-loop delay are reported by
 * the script, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { runLoadCheck } from '../../scripts/reliability/load.ts';

describe('load', () => {
  it('answers a few seconds of mixed searches and writes at 10 connections without an error, and right afterwards', async () => {
    const lines: string[] = [];
    const report = await runLoadCheck({ seconds: 4, connections: 10, warmupSeconds: 1, log: (line) => lines.push(line) });
    expect(report.error_detail).toMatchObject({ unexpected: {}, connection_errors: 0, timeouts: 0 });
    expect(report.errors).toBe(0);
    // Every kind of request in the mix was answered, writes among them.
    for (const kind of ['shallow', 'deep', 'deep-other-sort', 'q', 'dsl-filter', 'dsl-match', 'count', 'pit-open', 'pit-page', 'pit-after', 'pit-close', 'scroll-start', 'scroll-next', 'scroll-clear', 'get', 'put', 'bulk']) {
      expect(report.by_kind[kind]?.requests, kind).toBeGreaterThan(0);
    }
    expect(report.writes.ids_written).toBeGreaterThan(0);
    // The bulk loader beside the mix got its bulks in, and the index holds every city it sent (report.after).
    expect(report.ingest.bulks).toBeGreaterThan(0);
    expect(report.after, lines.join('\n')).toEqual([]);
    expect(report.server_exit).toEqual({ code: 0, signal: null });
  }, 240_000);
});
