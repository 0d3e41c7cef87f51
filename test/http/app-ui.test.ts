/**
 * `/_deeppage/`: the paging page's files with their content types and cache headers, HEAD, 304 on
 * a matching ETag, ES-shaped 404s for any other name, and no way from a request path to any other
 * file (`..` in every spelling).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { expectError, testApp } from './app-helpers.ts';

const UI_DIR = new URL('../../src/http/ui/', import.meta.url);
const FILES = {
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'chart.js': 'text/javascript; charset=utf-8',
  'search.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'depth.js': 'text/javascript; charset=utf-8',
};

describe('the paging page at /_deeppage/', () => {
  const t = testApp();
  afterAll(() => t.close());
  const get = (path: string, init?: RequestInit) => t.app.request(path, init);

  it('serves each file with its content type, a revalidating cache header and an ETag', async () => {
    for (const [name, type] of Object.entries(FILES)) {
      const res = await get(`/_deeppage/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('etag')).toMatch(/^"[\w-]{22}"$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = await res.text();
      expect(body).toBe(readFileSync(new URL(name, UI_DIR), 'utf8'));
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    }
  });

  it('serves index.html at the folder, with a policy that allows nothing from elsewhere', async () => {
    const res = await get('/_deeppage/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(FILES['index.html']);
    expect(await res.text()).toBe(readFileSync(new URL('index.html', UI_DIR), 'utf8'));
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('redirects the bare path to the folder, keeping the query, so relative URLs resolve under it', async () => {
    const res = await get('/_deeppage?x=1');
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get('location')!, 'http://localhost/_deeppage?x=1').href).toBe('http://localhost/_deeppage/?x=1');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const path of ['/_deeppage/', '/_deeppage/app.js']) {
      const [head, full] = [await get(path, { method: 'HEAD' }), await get(path)];
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      for (const name of ['content-type', 'content-length', 'cache-control', 'etag']) expect(head.headers.get(name), name).toBe(full.headers.get(name));
    }
  });

  it('answers 304 with no body when the ETag still matches', async () => {
    const etag = (await get('/_deeppage/style.css')).headers.get('etag')!;
    const res = await get('/_deeppage/style.css', { headers: { 'if-none-match': etag } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect((await get('/_deeppage/style.css', { headers: { 'if-none-match': `"stale", W/${etag}` } })).status).toBe(304);
    expect((await get('/_deeppage/style.css', { headers: { 'if-none-match': '*' } })).status).toBe(304);
    expect((await get('/_deeppage/style.css', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
    expect((await get('/_deeppage/app.js', { headers: { 'if-none-match': etag } })).status).toBe(200);
  });

  it('answers any other name under the folder with a 404 in ES error shape', async () => {
    for (const path of ['/_deeppage/nope.js', '/_deeppage/APP.JS', '/_deeppage/index.htm', '/_deeppage/constructor', '/_deeppage/__proto__', '/_deeppage/_search', '/_deeppage/_mapping', '/_deeppage/a/b', '/_deeppage/app.js/x']) {
      const res = await t.json('GET', path);
      expectError(res, 404, 'resource_not_found_exception', `no file [${path}] in the paging page`);
    }
  });

  it('takes GET and HEAD only', async () => {
    const res = await t.json('POST', '/_deeppage/app.js');
    expectError(res, 405, 'method_not_allowed_exception', 'Incorrect HTTP method for uri [/_deeppage/app.js] and method [POST], allowed: [GET, HEAD]');
  });

  it('never reaches a file outside the folder, however `..` is spelled', async () => {
    const traversals = [
      '/_deeppage/../package.json',
      '/_deeppage/%2e%2e/package.json',
      '/_deeppage/%2E%2E/package.json',
      '/_deeppage/.%2e/package.json',
      '/_deeppage/..%2fpackage.json',
      '/_deeppage/..%2Fpackage.json',
      '/_deeppage/%2e%2e%2fpackage.json',
      '/_deeppage/..%5cpackage.json',
      '/_deeppage/..\\package.json',
      '/_deeppage/%252e%252e%252fpackage.json',
      '/_deeppage/....//package.json',
      '/_deeppage/%2e%2e%2f%2e%2e%2fsrc%2fserver.ts',
      '/_deeppage/..%2f..%2f..%2fui.ts',
      '/_deeppage/%00app.js',
      '/_deeppage/app.js%00',
    ];
    const secret = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    for (const path of traversals) {
      const res = await t.json('GET', path);
      expect(res.status, path).not.toBe(200);
      expect(res.text, path).not.toContain('"devDependencies"');
      expect(res.text, path).not.toBe(secret);
      expect(res.body.error, path).toBeDefined();
    }
  });

  it('refuses a `..` segment as sent on the wire, before it is resolved away', async () => {
    // Node's request target is the path as the client sent it; the app reads `..` there (dot-segments.ts).
    for (const target of ['/_deeppage/../package.json', '/_deeppage/%2e%2e/package.json']) {
      const incoming = { url: target, headers: {} } as IncomingMessage;
      const res = await t.app.fetch(new Request(`http://localhost${target}`), { incoming });
      expect(res.status, target).toBe(400);
      expect(((await res.json()) as { error: { reason: string } }).error.reason).toBe(`no handler found for uri [${target}] and method [GET]`);
    }
  });

  it('loads nothing from outside the machine: no absolute URLs, imports or fonts in any file', () => {
    for (const name of Object.keys(FILES)) {
      const text = readFileSync(new URL(name, UI_DIR), 'utf8').replaceAll('http://www.w3.org/2000/svg', '');
      expect(text, name).not.toMatch(/\b(?:https?:)?\/\/[\w.-]+\.[a-z]{2,}/i);
      expect(text, name).not.toMatch(/@import|@font-face|url\(/);
    }
  });
});
