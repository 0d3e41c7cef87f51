/**
 * Durability: what the server acknowledged is there after a clean restart on the same data
 * directory, and after `kill -9` of the real server process.
 */
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';
import { killedAfter, killServers, serverProcess } from './server-process.ts';

afterAll(killServers);

const json = async (url: string, method = 'GET', body?: unknown) => {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('restart', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((f) => f()));

  it('keeps indices, settings, mappings and documents across a restart', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const first = await startServer({ dataDir: dir, port: 0 });
    try {
      await json(`${first.url}/books`, 'PUT', { settings: { number_of_shards: 3, 'index.max_result_window': 50 } });
      for (let i = 0; i < 30; i++) await json(`${first.url}/books/_doc/${i}`, 'PUT', { year: 1900 + i, title: `book ${i}` });
      await json(`${first.url}/books/_doc/7`, 'PUT', { year: 2000, title: 'book 7, second edition' });
      await json(`${first.url}/books/_doc/3`, 'DELETE');
    } finally {
      await first.close();
    }

    const second = await startServer({ dataDir: dir, port: 0 });
    try {
      const count = await json(`${second.url}/books/_count`);
      expect(count.body.count).toBe(29);
      const settings = await json(`${second.url}/books/_settings`);
      expect(settings.body.books.settings.index).toMatchObject({ number_of_shards: '3', max_result_window: '50' });
      const mapping = await json(`${second.url}/books/_mapping`);
      expect(mapping.body.books.mappings.properties.year).toEqual({ type: 'long' });
      const top = await json(`${second.url}/books/_search?size=2&sort=year:desc`);
      expect(top.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['7', '29']);
      const doc = await json(`${second.url}/books/_doc/7`);
      expect(doc.body).toMatchObject({ _version: 2, found: true, _source: { year: 2000 } });
      expect((await json(`${second.url}/books/_doc/3`)).status).toBe(404);
      const window = await json(`${second.url}/books/_search?from=45&size=10`);
      expect(window.status).toBe(400);
    } finally {
      await second.close();
    }
  });

  it('continues sequence numbers after a restart, deletes included', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const first = await startServer({ dataDir: dir, port: 0 });
    try {
      await json(`${first.url}/s/_doc/a`, 'PUT', { n: 1 });
      await json(`${first.url}/s/_doc/b`, 'PUT', { n: 2 });
      await json(`${first.url}/s/_doc/b`, 'DELETE');
      expect((await json(`${first.url}/s/_doc/a`, 'DELETE')).body._seq_no).toBe(3);
    } finally {
      await first.close();
    }
    const second = await startServer({ dataDir: dir, port: 0 });
    try {
      expect((await json(`${second.url}/s/_doc/c`, 'PUT', { n: 3 })).body._seq_no).toBe(4);
    } finally {
      await second.close();
    }
  });

  it('keeps acknowledged writes when the server process is killed with SIGKILL', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    await killedAfter(dir, async (url) => {
      const lines = Array.from({ length: 200 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
      const res = await fetch(`${url}/acked/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
      expect(((await res.json()) as { errors: boolean }).errors).toBe(false);
    });

    const again = await startServer({ dataDir: dir, port: 0 });
    try {
      expect((await json(`${again.url}/acked/_count`)).body.count).toBe(200);
      expect((await json(`${again.url}/acked/_doc/199`)).body._source).toEqual({ n: 199 });
    } finally {
      await again.close();
    }
  });
});

describe('kill -9 during writes, flushes and merges', () => {
  it('loses nothing acknowledged and always starts again, over three cycles', async () => {
    const { dir, remove } = tempDir();
    /**
     * What the server acknowledged: the source each id must have, or null once its delete was
     * acknowledged; by `_seq_no`, since two clients' bulks on one id apply in the server's order.
     */
    const acked = new Map<string, number | null>();
    const ackedSeq = new Map<string, number>();
    /**
     * What a request that got no answer (the kill cut it off) may have done: it may or may not be
     * durable, as with any write whose response is lost. Cleared once a later answer settles the id.
     */
    const maybe = new Map<string, Set<number | null>>();
    try {
      for (let cycle = 0; cycle < 3; cycle++) {
        const { child, url: listening } = serverProcess(dir);
        const url = await listening;
        if (cycle === 0) await json(`${url}/crash`, 'PUT', { settings: { number_of_shards: 3, refresh_interval: '50ms' } });
        else await verify(url, acked, maybe);
        let stop = false;
        const writer = async (client: number) => {
          for (let round = 0; !stop; round++) {
            // Small batches so that segments pile up and merge; every id is rewritten often.
            const batch = Array.from({ length: 40 }, (_, i) => ({ id: `${(client * 7919 + round * 40 + i) % 600}`, n: cycle * 1_000_000 + client * 10_000 + round * 40 + i }));
            const deletes = batch.filter((_, i) => i % 9 === 0).map((d) => d.id);
            const lines = batch.map((d) => `{"index":{"_id":"${d.id}"}}\n{"n":${d.n}}\n`).join('') + deletes.map((id) => `{"delete":{"_id":"${id}"}}\n`).join('');
            let body: { items: Record<string, { status: number; _id: string; _seq_no: number }>[] };
            try {
              const res = await fetch(`${url}/crash/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
              body = (await res.json()) as typeof body;
            } catch {
              // Killed mid-request: not acknowledged, but perhaps durable.
              for (const d of batch) maybe.set(d.id, new Set([...(maybe.get(d.id) ?? []), d.n, ...(deletes.includes(d.id) ? [null] : [])]));
              return;
            }
            // Items apply in order: the last acknowledged word on an id wins.
            for (const item of body.items) {
              const [action, result] = Object.entries(item)[0];
              if (result.status >= 300 && !(action === 'delete' && result.status === 404)) continue;
              if ((ackedSeq.get(result._id) ?? -1) > result._seq_no) continue;
              ackedSeq.set(result._id, result._seq_no);
              maybe.delete(result._id);
              if (action === 'delete') acked.set(result._id, null);
              else acked.set(result._id, batch.find((d) => d.id === result._id)!.n);
            }
          }
        };
        // A flush now and then: the kill finds writes both in commit points and after the last one.
        const flusher = async () => {
          while (!stop) {
            await fetch(`${url}/crash/_flush`, { method: 'POST' }).then((r) => r.text()).catch(() => {});
            await new Promise((resolve) => setTimeout(resolve, 150));
          }
        };
        const work = Promise.all([writer(0), writer(1), flusher()]);
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
        child.kill('SIGKILL');
        await once(child, 'exit');
        stop = true;
        await work;
      }
      const { child, url: listening } = serverProcess(dir);
      try {
        await verify(await listening, acked, maybe);
      } finally {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    } finally {
      remove();
    }
  });

  /**
   * Every acknowledged document is there with its last acknowledged source, acknowledged deletes are
   * gone (unless an unanswered request may have changed the id since), and pages add up. What the
   * node holds is then the truth the next cycle builds on.
   */
  async function verify(url: string, acked: Map<string, number | null>, maybe: Map<string, Set<number | null>>) {
    for (const id of new Set([...acked.keys(), ...maybe.keys()])) {
      const got = (await json(`${url}/crash/_doc/${encodeURIComponent(id)}`)).body as { found: boolean; _source?: { n: number } };
      const state = got.found ? got._source!.n : null;
      // An id no answer ever covered was absent before its unanswered writes.
      const n = acked.has(id) ? acked.get(id)! : null;
      const allowed = new Set([n, ...(maybe.get(id) ?? [])]);
      expect(allowed.has(state), `document ${id}: ${JSON.stringify(got)}, acknowledged ${n}, perhaps ${[...(maybe.get(id) ?? [])]}`).toBe(true);
      acked.set(id, state);
    }
    maybe.clear();
    const live = [...acked].filter(([, n]) => n !== null);
    await json(`${url}/crash/_refresh`, 'POST');
    const seen: string[] = [];
    for (let from = 0; ; from += 100) {
      const hits = (await json(`${url}/crash/_search?from=${from}&size=100&sort=n:asc`)).body.hits.hits as { _id: string }[];
      if (hits.length === 0) break;
      seen.push(...hits.map((h) => h._id));
    }
    // Exactly the live documents, each once: a delete that storage has but memory lost would show here.
    expect(seen.slice().sort()).toEqual(live.map(([id]) => id).sort());
    expect((await json(`${url}/crash/_count`)).body.count).toBe(live.length);
  }
});

describe('tasks across a restart', () => {
  it('a reindex killed mid-way reads as interrupted after the restart, and one that finished keeps its result', async () => {
    const { dir, remove } = tempDir();
    let done = '', interrupted = '';
    await killedAfter(dir, async (url) => {
      const lines = Array.from({ length: 300 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
      await fetch(`${url}/src/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
      done = (await json(`${url}/_reindex?wait_for_completion=false`, 'POST', { source: { index: 'src' }, dest: { index: 'fast' } })).body.task;
      expect((await json(`${url}/_tasks/${done}?wait_for_completion=true`)).body.completed).toBe(true);
      // Ten documents a second in batches of ten: it runs for half a minute unless stopped.
      interrupted = (await json(`${url}/_reindex?wait_for_completion=false&requests_per_second=10`, 'POST', { source: { index: 'src', size: 10 }, dest: { index: 'slow' } })).body.task;
      expect((await json(`${url}/_tasks/${interrupted}`)).body.completed).toBe(false);
    });

    const again = await startServer({ dataDir: dir, port: 0 });
    try {
      const finished = await json(`${again.url}/_tasks/${done}`);
      expect(finished.body).toMatchObject({ completed: true, response: { created: 300, failures: [] } });
      const cut = await json(`${again.url}/_tasks/${interrupted}`);
      expect(cut.body.completed).toBe(true);
      expect(cut.body.error).toMatchObject({ type: 'node_closed_exception' });
      // Task ids go on after the ones recorded before the restart.
      const next = (await json(`${again.url}/_reindex?wait_for_completion=false`, 'POST', { source: { index: 'src' }, dest: { index: 'third' } })).body.task;
      expect(Number(next.split(':')[1])).toBeGreaterThan(Number(interrupted.split(':')[1]));
    } finally {
      await again.close();
      remove();
    }
  });
});

describe('data directories', () => {
  it('starts on directory names users have: dots, spaces, Unicode, a relative path', async () => {
    const { dir, remove } = tempDir();
    try {
      for (const name of ['.deeppage', 'deeppage.d', 'my data', 'données.ü']) {
        const dataDir = join(dir, name);
        await killedAfter(dataDir, async (url) => {
          expect((await json(`${url}/kept/_doc/1`, 'PUT', { name })).status).toBe(201);
        });
        expect(statSync(dataDir).isDirectory()).toBe(true);
        // The same directory, named relative to the working directory, opens with the document in it.
        const again = await startServer({ dataDir: relative(process.cwd(), dataDir), port: 0 });
        try {
          expect((await json(`${again.url}/kept/_doc/1`)).body._source).toEqual({ name });
        } finally {
          await again.close();
        }
      }
    } finally {
      remove();
    }
  });
});

describe('shutdown', () => {
  it('exits 0 on SIGTERM after closing storage, and the data opens again', async () => {
    const { dir, remove } = tempDir();
    try {
      const { child, url: listening } = serverProcess(dir);
      const url = await listening;
      await json(`${url}/kept/_doc/1`, 'PUT', { ok: true });
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      const again = await startServer({ dataDir: dir, port: 0 });
      try {
        expect((await json(`${again.url}/kept/_doc/1`)).body._source).toEqual({ ok: true });
      } finally {
        await again.close();
      }
    } finally {
      remove();
    }
  });
});
