/**
 * The reindex driver (src/engine/reindex/reindex.ts) under lifetimes and concurrency: its source
 * outlives throttling waits, and a sliced run answers only once every slice has ended.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { reindex } from '../../src/engine/reindex/reindex.ts';
import { reindexRequest, type ReindexRequest } from '../../src/engine/reindex/reindex-request.ts';
import { tempEngine } from './helpers.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function open(): Engine {
  const opened = tempEngine({ backgroundDelayMs: 0 });
  close = opened.close;
  return opened.engine;
}

function request(overrides: Partial<ReindexRequest> & { size?: number } = {}): ReindexRequest {
  const { size = 1, ...rest } = overrides;
  return reindexRequest(['src'], 'dst', { source: { indices: ['src'], size, filter: { includes: [], excludes: [] } }, refresh: true, keepAliveMs: 60_000, ...rest });
}

async function seed(engine: Engine, docs: number, shards = 1): Promise<void> {
  await engine.createIndex('src', { settings: { number_of_shards: shards } });
  await engine.write(Array.from({ length: docs }, (_, n) => ({ action: 'index' as const, index: 'src', id: String(n), source: { n } })), 'true');
}

describe('reindex: throttling and the source keep-alive', () => {
  // A throttled reindex waits `size / rps` between batches, longer than its source's keep-alive when
  // the rate is low (ES's defaults, size=1000 and requests_per_second=1, wait 1000 s > 5m). As ES does
  // (startNextScroll(extraKeepAlive)), the read before the wait asks for the wait on top of the keep-alive.
  it('keeps the source alive across a throttle wait longer than its keep-alive', async () => {
    const engine = open();
    await seed(engine, 3);
    // 1 document per 200 ms and a keep-alive of 50 ms: size=1000, rps=1, scroll=5m scaled down.
    const response = await reindex(engine, request({ requestsPerSecond: 5, keepAliveMs: 50 }));
    expect(response.created).toBe(3);
  });
});

describe('reindex: slices', () => {
  // reindex.ts:74: Promise.all settles at the first slice that throws; `finally` closes every source
  // and reindex() answers (the task reads as finished) while the other slices still have commits in
  // flight: they land after the answer, and whatever they fail with is dropped. ES's parent task
  // answers once every slice has finished (ParentBulkByScrollTask), with all their results.
  it('answers only once no slice has a commit in flight', async () => {
    const engine = open();
    await seed(engine, 400, 2);
    const store = engine.store as { write: typeof engine.store.write };
    const write = store.write.bind(engine.store);
    let calls = 0;
    let pending = 0;
    store.write = async (writes, metas) => {
      pending++;
      try {
        // The third commit (one slice's) fails; every other goes through.
        if (++calls === 3) throw new Error('disk full');
        return await write(writes, metas);
      } finally {
        pending--;
      }
    };
    let inFlightAtAnswer = -1;
    try {
      await reindex(engine, request({ slices: 2, size: 5 })).catch(() => undefined);
      inFlightAtAnswer = pending;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      store.write = write;
    }
    expect(inFlightAtAnswer).toBe(0);
  });
});
