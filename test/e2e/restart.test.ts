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

// kill -9 under concurrent writes, flushes, merges and searches, over several cycles: crash.test.ts.

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
