/**
 * Durability: what the server acknowledged is there after a clean restart on the same data
 * directory, and after `kill -9` of the real server process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

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
    const { child, url: listening } = serverProcess(dir);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      const url = await listening;
      const lines = Array.from({ length: 200 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
      const res = await fetch(`${url}/acked/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
      expect(((await res.json()) as { errors: boolean }).errors).toBe(false);
      child.kill('SIGKILL');
      await once(child, 'exit');
    } finally {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    const again = await startServer({ dataDir: dir, port: 0 });
    try {
      expect((await json(`${again.url}/acked/_count`)).body.count).toBe(200);
      expect((await json(`${again.url}/acked/_doc/199`)).body._source).toEqual({ n: 199 });
    } finally {
      await again.close();
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

/** `npm start`'s entry point as a child process on a free port, and the URL it announces. */
function serverProcess(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, DEEPPAGE_DATA: dataDir, PORT: '0', DEEPPAGE_SEED: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`server exited early: ${log}`)));
  });
  return { child, url };
}
