/**
 * Index names that look like paths, sent on the real socket exactly as written (no client-side
 * normalization): each is refused as Elasticsearch refuses it, no index is created, and the data
 * directory's files stay as they were (indices live in LMDB keys, never in files named after them).
 */
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

/** A request with the path sent byte for byte. */
function raw(url: string, method: string, path: string, body?: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

const FORBIDDEN = 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]';

describe('path-like index names on the socket', () => {
  let server: RunningServer;
  let dir: string;
  let remove: () => void;
  let before: string[];

  beforeAll(async () => {
    ({ dir, remove } = tempDir());
    server = await startServer({ dataDir: dir, port: 0 });
    before = files(dir);
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  it.each<[string, string, string]>([
    ['/..', '..', "must not be '.' or '..'"],
    ['/.', '.', "must not be '.' or '..'"],
    ['/%2e%2e', '..', "must not be '.' or '..'"],
    ['/%2E%2e', '..', "must not be '.' or '..'"],
    ['/a%2F..%2Fb', 'a/../b', FORBIDDEN],
    ['/..%2F..%2Fetc%2Fpasswd', '../../etc/passwd', FORBIDDEN],
    ['/%2e%2e%2f%2e%2e%2fetc', '../../etc', FORBIDDEN],
    ['/a%5Cb', 'a\\b', FORBIDDEN],
    ['/..%5C..%5Cwindows', '..\\..\\windows', FORBIDDEN],
    ['/a%2Fb', 'a/b', FORBIDDEN],
    ['/a*b', 'a*b', FORBIDDEN],
    ['/a%3Fb', 'a?b', FORBIDDEN],
    ['/a%22b', 'a"b', FORBIDDEN],
    ['/a%3Cb', 'a<b', FORBIDDEN],
    ['/a%3Eb', 'a>b', FORBIDDEN],
    ['/a%7Cb', 'a|b', FORBIDDEN],
    ['/a%20b', 'a b', FORBIDDEN],
    ['/a,b', 'a,b', FORBIDDEN],
    ['/A%2Fb', 'A/b', FORBIDDEN],
    ['/a%23b', 'a#b', "must not contain '#'"],
    ['/_a', '_a', "must not start with '_', '-', or '+'"],
    ['/-a', '-a', "must not start with '_', '-', or '+'"],
    ['/+a', '+a', "must not start with '_', '-', or '+'"],
    ['/Abc', 'Abc', 'must be lowercase'],
    [`/${'a'.repeat(256)}`, 'a'.repeat(256), 'index name is too long, (256 > 255)'],
    [`/${'A'.repeat(256)}`, 'A'.repeat(256), 'index name is too long, (256 > 255)'],
  ])('refuses PUT %s as ES does', async (path, name, why) => {
    for (const [method, target] of [['PUT', path], ['PUT', `${path}/_doc/1`], ['POST', `${path}/_doc`]]) {
      const res = await raw(server.url, method, target, '{"a":1}');
      expect(res.status, `${method} ${target}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_index_name_exception', reason: `Invalid index name [${name}], ${why}`, index: name, index_uuid: '_na_' });
    }
    expect(server.engine.indices()).toEqual([]);
    expect(files(dir)).toEqual(before);
  });

  it('refuses a `..` segment inside the path rather than answering for the path it resolves to', async () => {
    for (const [method, target] of [['PUT', '/a/../b'], ['PUT', '/a/%2e%2e/b/_doc/1'], ['GET', '/b/_doc/..'], ['DELETE', '/x/../b']]) {
      const res = await raw(server.url, method, target, method === 'PUT' ? '{"a":1}' : undefined);
      expect(res.status, `${method} ${target}`).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: `no handler found for uri [${target}] and method [${method}]` });
    }
    expect(server.engine.indices()).toEqual([]);
    expect(files(dir)).toEqual(before);
  });

  it('refuses a raw backslash in the path before routing', async () => {
    const res = await raw(server.url, 'PUT', '/a\\b', '{}');
    expect(res.status).toBe(400);
    expect(server.engine.indices()).toEqual([]);
  });

  it('refuses the same names in a bulk request, item by item', async () => {
    const names = ['..', 'a/../b', '../../etc/passwd', 'a\\b', 'A'];
    const body = names.map((n) => `${JSON.stringify({ index: { _index: n } })}\n{"a":1}\n`).join('');
    const res = await raw(server.url, 'POST', '/_bulk', body);
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: any) => [i.index._index, i.index.status, i.index.error.type])).toEqual(names.map((n) => [n, 400, 'invalid_index_name_exception']));
    expect(server.engine.indices()).toEqual([]);
    expect(files(dir)).toEqual(before);
  });

  it('still takes names with dots that are not dot segments', async () => {
    for (const name of ['...', 'logs-2024.01.01', '.hidden-ish', 'a..b']) {
      const res = await raw(server.url, 'PUT', `/${name}`);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });
});
