/**
 * `http.max_content_length` on the real socket: a declared length over it is refused before the
 * body is read, a chunked body as soon as it grows past it, both with ES's 413; bodies under it go
 * through.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

/** A POST with the body sent in chunks (`transfer-encoding: chunked`, no length declared). */
function chunked(url: string, path: string, chunks: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('http.max_content_length', () => {
  let server: RunningServer;
  let remove: () => void;
  beforeAll(async () => {
    const dir = tempDir();
    remove = dir.remove;
    server = await startServer({ dataDir: dir.dir, port: 0, settings: { 'http.max_content_length': '1kb' } });
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  const line = (i: number) => `{"index":{"_index":"limited","_id":"${i}"}}\n{"text":"${'x'.repeat(200)}"}\n`;

  it('refuses a declared length over the limit, and a chunked body that grows past it', async () => {
    const declared = await fetch(`${server.url}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: [0, 1, 2, 3, 4, 5].map(line).join('') });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { type: 'content_too_long_exception', reason: 'request body is larger than the limit of [1024] bytes' }, status: 413 });
    const streamed = await chunked(server.url, '/_bulk', [0, 1, 2, 3, 4, 5].map(line));
    expect(streamed.status).toBe(413);
    expect(streamed.body.error.type).toBe('content_too_long_exception');
    expect(server.engine.has('limited')).toBe(false);
  });

  it('takes bodies under the limit, chunked or not', async () => {
    const small = await chunked(server.url, '/_bulk?refresh=true', [line(1), line(2)]);
    expect(small).toMatchObject({ status: 200, body: { errors: false } });
    const declared = await fetch(`${server.url}/limited/_doc/3`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"short"}' });
    expect(declared.status).toBe(201);
    expect(((await (await fetch(`${server.url}/limited/_count`)).json()) as { count: number }).count).toBe(2);
  });
});
