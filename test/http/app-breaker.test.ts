/**
 * Elasticsearch's parent circuit breaker: work that would take the heap past its limit is refused
 * with a 429 `circuit_breaking_exception` (ES's shape and wording), the node keeps serving, and
 * nothing of a refused write is kept. Caches that hold memory stay within their budgets.
 */
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBreaker } from '../../src/engine/breakers/memory-breaker.ts';
import { formatByteSize } from '../../src/engine/byte-size.ts';
import { parseNodeSettings } from '../../src/engine/node-settings.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { createApp } from '../../src/http/app.ts';
import { tempEngine } from '../engine/helpers.ts';

describe('the parent circuit breaker', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of cleanups.splice(0)) await close();
  });

  it("writes sizes as Elasticsearch's ByteSizeValue does", () => {
    // Figures from a captured Elasticsearch parent-breaker message.
    expect([1014538592, 986061209, 3057213, 261018719].map(formatByteSize)).toEqual(['967.5mb', '940.3mb', '2.9mb', '248.9mb']);
    expect([0, 1023, 1024, 1536, 1024 ** 3].map(formatByteSize)).toEqual(['0b', '1023b', '1kb', '1.5kb', '1gb']);
  });

  it('refuses work over the limit with the parent breaker message, and counts bodies in flight', () => {
    let used = 900;
    const breaker = new MemoryBreaker(1000, () => used);
    const release = breaker.reserveInFlight(60);
    expect(breaker.stats().in_flight_requests.estimated_size_in_bytes).toBe(60);
    let error: any;
    try {
      breaker.check('<http_request>', 200);
    } catch (e) {
      error = e;
    }
    expect(error.status).toBe(429);
    expect(error.describe()).toEqual({
      type: 'circuit_breaking_exception',
      reason:
        '[parent] Data too large, data for [<http_request>] would be [1100/1kb], which is larger than the limit of [1000/1000b], ' +
        'real usage: [900/900b], new bytes reserved: [200/200b], usages [request=0/0b, fielddata=0/0b, in_flight_requests=60/60b, accounting=0/0b]',
      bytes_wanted: 1100,
      bytes_limit: 1000,
      durability: 'PERMANENT',
    });
    release();
    release();
    expect(breaker.stats().in_flight_requests.estimated_size_in_bytes).toBe(0);
    expect(breaker.stats().parent.tripped).toBe(1);
    used = 100;
    expect(() => breaker.check('<http_request>', 200)).not.toThrow();
  });

  it('answers 429 over HTTP when the heap is past the limit, and keeps nothing of a refused write', async () => {
    // A limit below what the heap already holds: every request trips, as in Elasticsearch.
    const tight = tempEngine({ settings: { breakerTotalLimitBytes: 1024 } });
    cleanups.push(tight.close);
    const app = createApp({ engine: tight.engine });
    const bulk = await app.request('/_bulk', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{"index":{"_index":"b","_id":"1"}}\n{"n":1}\n' });
    expect(bulk.status).toBe(429);
    const body = (await bulk.json()) as any;
    expect(body.status).toBe(429);
    expect(body.error.type).toBe('circuit_breaking_exception');
    expect(body.error.root_cause[0].type).toBe('circuit_breaking_exception');
    expect(body.error.reason).toMatch(/^\[parent\] Data too large, data for \[<http_request>\] would be \[\d+\/[\d.]+[kmg]?b\], which is larger than the limit of \[1024\/1kb\]/);
    expect(body.error.bytes_limit).toBe(1024);
    expect(tight.engine.has('b')).toBe(false);
    expect((await app.request('/')).status).toBe(429);

    // The default limit (95% of the heap's) lets the same node's work through.
    const roomy = tempEngine();
    cleanups.push(roomy.close);
    const ok = createApp({ engine: roomy.engine });
    const written = await ok.request('/_bulk?refresh=true', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{"index":{"_index":"b","_id":"1"}}\n{"n":1}\n' });
    expect(written.status).toBe(200);
    const stats = (await (await ok.request('/_nodes/stats')).json()) as any;
    const breakers = Object.values(stats.nodes as Record<string, any>)[0].breakers;
    expect(breakers.parent.limit_size_in_bytes).toBe(Math.floor(getHeapStatistics().heap_size_limit * 0.95));
    expect(breakers.in_flight_requests.estimated_size_in_bytes).toBe(0);
  });

  it('takes indices.breaker.total.limit as a share of the heap or a size', () => {
    expect(parseNodeSettings({ 'indices.breaker.total.limit': '50%' }).breakerTotalLimitBytes).toBe(Math.floor(getHeapStatistics().heap_size_limit * 0.5));
    expect(parseNodeSettings({ 'indices.breaker.total.limit': '512mb' }).breakerTotalLimitBytes).toBe(512 * 1024 ** 2);
    expect(() => parseNodeSettings({ 'indices.breaker.total.limit': '120%' })).toThrow(/percentage should be in \[0-100\]/);
    expect(() => parseNodeSettings({ 'indices.breaker.total.use_real_memory': 'false' })).toThrow(/not supported/);
  });
});

describe('memory budgets', () => {
  it("keeps sorted runs within their budget however many sorts fill it, and the wasm memory stops growing", async () => {
    const budget = 256 * 1024;
    const t = tempEngine({ settings: { sortedRunsCacheBytes: budget } });
    try {
      const { engine } = t;
      const fields = Array.from({ length: 12 }, (_, f) => `f${f}`);
      await engine.createIndex('m', { settings: { number_of_shards: 2, refresh_interval: -1 } });
      for (let part = 0; part < 4; part++) {
        await engine.write(Array.from({ length: 2_000 }, (_, i) => ({ action: 'index' as const, index: 'm', id: `${part}-${i}`, source: Object.fromEntries(fields.map((f, k) => [f, (i * (k + 7)) % 1009])) })));
        engine.refresh('m');
      }
      const grown: number[] = [];
      for (let round = 0; round < 3; round++) {
        for (const field of fields) {
          for (const order of ['asc', 'desc'] as const) {
            engine.search('m', searchRequest({ from: 4_000, size: 10, sort: [{ kind: 'field', field, order, missing: '_last' }] }));
            await engine.runs.settled();
            const stats = engine.runs.stats();
            expect(stats.memory_size_in_bytes).toBeLessThanOrEqual(budget);
          }
        }
        grown.push(engine.runs.kernels.memory.buffer.byteLength);
      }
      expect(engine.runs.stats().evictions).toBeGreaterThan(0);
      // Later rounds reuse freed blocks: the module's memory is as large after the third as after the first.
      expect(grown[2]).toBe(grown[0]);
    } finally {
      await t.close();
    }
  });
});
