/**
 * The running server gives memory back once idle after a burst of writes (src/idle-memory.ts, started
 * by the server's entry point): after a bulk load that grows its heap past the threshold, one full
 * collection runs and says so on stderr, and the documents are all there afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { killServers, serverProcess } from './server-process.ts';

afterAll(killServers);

const DOCS = 300_000;
const BATCH = 10_000;

describe('the server when idle after a bulk load', () => {
  it('runs one full collection, says what it gave back, and keeps every document', async () => {
    const data = tempDir();
    const { child, url, exited } = serverProcess(data.dir);
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const base = await url;
      const created = await fetch(`${base}/items`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 5 }, mappings: { properties: { price: { type: 'double' }, category: { type: 'keyword' }, stock: { type: 'integer' } } } }) });
      expect(created.status).toBe(200);
      for (let from = 0; from < DOCS; from += BATCH) {
        let body = '';
        for (let i = from; i < from + BATCH; i++) body += `{"index":{"_id":"i${i}"}}\n{"price":${(i * 7919) % 100_000 / 100},"category":"c${i % 50}","stock":${i % 1000}}\n`;
        const res = await fetch(`${base}/items/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
        expect(((await res.json()) as { errors: boolean }).errors).toBe(false);
      }
      await fetch(`${base}/items/_refresh`, { method: 'POST' });
      // Quiet now: the collection comes once the load's background work is done and a second has passed.
      for (let waited = 0; !/deeppage: idle after \d+ MiB of heap growth/.test(stderr) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      // The collection after the load's heap growth (a trim alone may follow a background flush).
      const lines = stderr.split('\n').filter((line) => /^deeppage: idle after \d+ MiB of heap growth/.test(line));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^deeppage: idle after \d+ MiB of heap growth; a full collection( and malloc_trim)? took \d+ ms, resident memory (\d+) → (\d+) MiB$/);
      const [, before, after] = /resident memory (\d+) → (\d+) MiB/.exec(lines[0])!;
      expect(Number(after)).toBeLessThan(Number(before));
      const count = await fetch(`${base}/items/_count`);
      expect(((await count.json()) as { count: number }).count).toBe(DOCS);
    } finally {
      child.kill('SIGTERM');
      await exited;
      data.remove();
    }
  });
});
