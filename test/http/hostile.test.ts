/**
 * Hostile input, property-based: seeded, reproducible runs of generated malformed and hostile
 * requests over every route (scripts/reliability/hostile/), first through `app.request()` against an app with
 * security on, then on a real socket, where `.` and `..` path segments, slow bodies, invalid UTF-8
 * in the request line, lying lengths and header floods can be sent too. Every answer is below 500
 * and in Elasticsearch's error shape when it is a 4xx; the fixture index reads the same afterwards;
 * the server still answers.
 */
import fc from 'fast-check';
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { createApp } from '../../src/http/app.ts';
import { Authenticator } from '../../src/http/auth/authenticator.ts';
import { parseCredentials, userLine } from '../../src/http/auth/credentials.ts';
import { hashSecret } from '../../src/http/auth/secret-hash.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir, tempEngine } from '../engine/helpers.ts';
import { problemWith } from '../../scripts/reliability/hostile/check.ts';
import { fixtureSnapshot, loadFixture, type Send } from '../../scripts/reliability/hostile/fixture.ts';
import { distinctFailures, type Failure } from '../../scripts/reliability/hostile/report.ts';
import { hostileRequest, type HostileRequest, type HostileTargets } from '../../scripts/reliability/hostile/requests.ts';
import { rawBody, rawExchange, sendRequest } from '../../scripts/reliability/hostile/socket.ts';

const SEED = 20261124;
const RUNS = 1500;
const MAX_BODY = 64 * 1024;
const AUTHORIZATION = `Basic ${Buffer.from('hostile:hostile-password').toString('base64')}`;

describe('hostile requests through app.request()', () => {
  let engine: Engine;
  let close: () => Promise<void>;
  let app: ReturnType<typeof createApp>;
  let targets: HostileTargets;

  const send: Send = async (method, target, body) => {
    const contentType = target.includes('_bulk') ? 'application/x-ndjson' : 'application/json';
    const res = await app.request(target, { method, headers: { authorization: AUTHORIZATION, 'content-type': contentType }, body });
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    ({ engine, close } = tempEngine());
    const credentials = parseCredentials([{ origin: 'test', text: userLine('hostile', await hashSecret('hostile-password', { ln: 10, r: 8, p: 1 })) }]);
    app = createApp({ engine, maxBodyBytes: MAX_BODY, authenticator: new Authenticator(credentials) });
    // `.` and `..` never reach the app here: the URL parser of app.request() resolves them first, as fetch does.
    targets = { ...(await loadFixture(send)), authorization: AUTHORIZATION, dotSegments: false, maxBodyBytes: MAX_BODY };
  });
  afterAll(() => close());

  it(`answers ${RUNS} generated requests below 500, in ES's error shape, and leaves the fixture as it was`, async () => {
    const before = await fixtureSnapshot(send);
    const failures: Failure[] = [];
    for (const request of fc.sample(hostileRequest(targets), { numRuns: RUNS, seed: SEED })) {
      const res = await app.request(request.target, requestInit(request));
      const body = await res.text();
      const problem = problemWith(request.method, request.target, { status: res.status, header: (name) => res.headers.get(name) ?? undefined, body });
      if (problem) failures.push({ request, status: res.status, problem, body });
    }
    expect(distinctFailures(failures)).toEqual([]);
    expect(await fixtureSnapshot(send)).toEqual(before);
    expect((await send('GET', '/')).status).toBe(200);
  }, 600_000);
});

describe('hostile requests on a real socket', () => {
  const SOCKET_RUNS = 300;
  let server: RunningServer;
  let remove: () => void;
  let targets: HostileTargets;

  const send: Send = async (method, target, body) => {
    const contentType = target.includes('_bulk') ? 'application/x-ndjson' : 'application/json';
    const res = await fetch(`${server.url}${target}`, { method, headers: { 'content-type': contentType }, body });
    return { status: res.status, body: await res.text() };
  };
  /** A raw request's answer: below 500, and, when the app gave it (not Node's HTTP parser), in ES's shape. */
  const expectRawAnswer = (answer: { status?: number; text: string; closed: boolean }, what: string) => {
    expect(answer.status !== undefined || answer.closed, `${what}: neither answered nor closed`).toBe(true);
    if (answer.status === undefined) return;
    expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
    if (/\r\nx-elastic-product: Elasticsearch/i.test(answer.text) && answer.status >= 400) {
      const problem = problemWith('GET', '/', { status: answer.status, header: (name) => (name === 'x-elastic-product' ? 'Elasticsearch' : 'application/json'), body: rawBody(answer.text) });
      expect(problem, `${what}: ${answer.text.slice(0, 300)}`).toBeUndefined();
    }
  };

  beforeAll(async () => {
    const dir = tempDir();
    remove = dir.remove;
    server = await startServer({ dataDir: dir.dir, port: 0, settings: { 'http.max_content_length': `${MAX_BODY}b` } });
    targets = { ...(await loadFixture(send)), dotSegments: true, maxBodyBytes: MAX_BODY };
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  it(`answers ${SOCKET_RUNS} generated requests, with \`.\` and \`..\` segments and slow bodies, below 500 and in ES's error shape`, async () => {
    const before = await fixtureSnapshot(send);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const failures: Failure[] = [];
    for (const request of fc.sample(hostileRequest(targets), { numRuns: SOCKET_RUNS, seed: SEED + 1 })) {
      const answer = await sendRequest(server.url, request, { agent });
      const problem = problemWith(request.method, request.target, answer);
      if (problem) failures.push({ request, status: answer.status, problem, body: answer.body });
    }
    agent.destroy();
    expect(distinctFailures(failures)).toEqual([]);
    expect(await fixtureSnapshot(send)).toEqual(before);
  }, 600_000);

  it('refuses `.` and `..` in any part of the path rather than acting on the path they resolve to', async () => {
    const before = await fixtureSnapshot(send);
    const attempts: [string, string][] = [
      ['DELETE', '/scratch/../fixture'], ['DELETE', '/scratch/%2e%2e/fixture'], ['DELETE', '/scratch/%2E%2E/fixture/_doc/1'], ['DELETE', '/fixture/_doc/1/..'],
      ['PUT', '/fixture/_settings/..'], ['PUT', '/scratch/_doc/../../fixture/_settings'], ['POST', '/fixture/_doc/../_doc/1'], ['DELETE', '/./fixture'],
      ['DELETE', '/fixture/.'], ['GET', '/fixture/_doc/..'], ['DELETE', '/scratch/..%2F..%2Ffixture'],
    ];
    for (const [method, target] of attempts) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : Buffer.from('{"index":{"refresh_interval":"-1"},"n":1}');
      const answer = await sendRequest(server.url, { route: 'dot segments', method, target, headers: { 'content-type': 'application/json' }, body, slow: false });
      expect([answer.status, problemWith(method, target, answer)], `${method} ${target}: ${answer.body}`).toEqual([400, undefined]);
    }
    expect(await fixtureSnapshot(send)).toEqual(before);
  });

  it('waits for a body trickled over a second, and stores it whole', async () => {
    const body = '{"n":7,"title":"slow but whole"}';
    const answer = await rawExchange(server.url, async (socket) => {
      socket.write(`PUT /scratch/_doc/slow?refresh=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      for (let at = 0; at < body.length; at += 4) {
        socket.write(body.slice(at, at + 4));
        await new Promise((resolve) => setTimeout(resolve, 1000 / Math.ceil(body.length / 4)));
      }
    });
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse((await send('GET', '/scratch/_doc/slow')).body)._source).toEqual(JSON.parse(body));
  });

  it('survives a Content-Length larger than the body sent, the client then closing, and stores nothing of it', async () => {
    for (const end of ['end', 'destroy'] as const) {
      const answer = await rawExchange(server.url, (socket) => {
        socket.write(`PUT /scratch/_doc/cut-${end}?refresh=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"n":1,`);
        if (end === 'end') socket.end();
        else socket.destroy();
      });
      // Node's HTTP parser answers a body cut short with a bare 400 as it closes (or the socket is gone first).
      expect([undefined, 400]).toContain(answer.status);
      expect((await send('GET', `/scratch/_doc/cut-${end}`)).status).toBe(404);
    }
    expect((await send('GET', '/')).status).toBe(200);
  });

  it('refuses a body over http.max_content_length, declared or chunked, with 413 in ES shape', async () => {
    const big = `{"a":"${'x'.repeat(MAX_BODY)}"}`;
    const declared = await rawExchange(server.url, (socket) => {
      socket.write(`PUT /scratch/_doc/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
    });
    expect(declared.status).toBe(413);
    expectRawAnswer(declared, 'declared length');
    const chunked = await rawExchange(server.url, (socket) => {
      socket.write('PUT /scratch/_doc/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let at = 0; at < big.length; at += 8192) {
        const piece = big.slice(at, at + 8192);
        socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      }
      socket.write('0\r\n\r\n');
    });
    expect(chunked.status).toBe(413);
    expectRawAnswer(chunked, 'chunked');
    expect((await send('GET', '/scratch/_doc/big')).status).toBe(404);
  });

  it('answers or closes cleanly on bytes that are not a valid request: invalid UTF-8 in the request line, header floods, lies and garbage', async () => {
    const before = await fixtureSnapshot(send);
    const head = (line: Buffer | string, headers = 'Host: x\r\n') => Buffer.concat([(typeof line === 'string' ? Buffer.from(line, 'latin1') : line), Buffer.from(`\r\n${headers}Connection: close\r\n\r\n`)]);
    const raw: [string, Buffer][] = [
      ['invalid UTF-8 in the path', head(Buffer.concat([Buffer.from('GET /'), Buffer.from([0xff, 0xfe]), Buffer.from('/_search HTTP/1.1')]))],
      ['a lone surrogate in the path', head(Buffer.concat([Buffer.from('GET /fixture/_doc/'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' HTTP/1.1')]))],
      ['invalid UTF-8 in the query', head(Buffer.concat([Buffer.from('GET /_search?q='), Buffer.from([0xc3, 0x28]), Buffer.from(' HTTP/1.1')]))],
      ['invalid UTF-8 in a header', head('GET / HTTP/1.1', `Host: x\r\nX-Opaque-Id: ${Buffer.from([0xff, 0xc0]).toString('latin1')}\r\n`)],
      ['a raw space in the path', head('GET /fix ture/_search HTTP/1.1')],
      ['a raw backslash traversal', head('DELETE /scratch\\..\\fixture HTTP/1.1')],
      // The absolute form is valid HTTP/1.1 (RFC 9112 3.2.2) and is served as its path.
      ['an absolute URI', head('GET http://127.0.0.1/fixture/_count HTTP/1.1')],
      ['a path without a slash', head('DELETE fixture HTTP/1.1')],
      ['an asterisk target', head('OPTIONS * HTTP/1.1')],
      ['an unknown method', head('FROB /fixture HTTP/1.1')],
      ['HTTP/0.9', Buffer.from('GET /\r\n')],
      ['HTTP/2 preface', Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
      ['garbage', Buffer.from('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03')],
      ['a request line of 100 KB', head(`GET /_search?q=${'a'.repeat(100_000)} HTTP/1.1`)],
      ['a header of 100 KB', head('GET / HTTP/1.1', `Host: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n`)],
      ['5,000 headers', head('GET / HTTP/1.1', `Host: x\r\n${Array.from({ length: 5000 }, (_, i) => `X-H${i}: v\r\n`).join('')}`)],
      ['100 Content-Type headers', head('POST /fixture/_search HTTP/1.1', `Host: x\r\n${'Content-Type: application/json\r\n'.repeat(100)}Content-Length: 2\r\n`)],
      ['two Content-Lengths', head('PUT /scratch/_doc/two HTTP/1.1', 'Host: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 9\r\n')],
      ['Content-Length and chunked', head('PUT /scratch/_doc/both HTTP/1.1', 'Host: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n')],
      ['a negative Content-Length', head('PUT /scratch/_doc/neg HTTP/1.1', 'Host: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n')],
      ['a Content-Length past 2^53', head('PUT /scratch/_doc/huge HTTP/1.1', 'Host: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999999999999\r\n')],
      ['a bad chunk size', Buffer.from('PUT /scratch/_doc/chunk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n')],
      ['a header without a colon', head('GET / HTTP/1.1', 'Host: x\r\nNoColon\r\n')],
      ['a folded header', head('GET / HTTP/1.1', 'Host: x\r\nX-A: a\r\n b\r\n')],
      ['NUL in the path', head('GET /fixture\u0000/_search HTTP/1.1')],
      ['bare LF line ends', Buffer.from('GET / HTTP/1.1\nHost: x\nConnection: close\n\n')],
      ['three pipelined requests', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /fixture/_count HTTP/1.1\r\nHost: x\r\n\r\nGET /_nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')],
    ];
    for (const [what, bytes] of raw) expectRawAnswer(await rawExchange(server.url, (socket) => void socket.end(bytes)), what);
    expect((await send('GET', '/')).status).toBe(200);
    expect(await fixtureSnapshot(send)).toEqual(before);
    for (const id of ['two', 'both', 'neg', 'huge', 'chunk']) expect((await send('GET', `/scratch/_doc/${id}`)).status).toBe(404);
  });
});

/** The request as app.request() takes it: a web Request cannot carry a body with GET or HEAD, so there it is left out. */
function requestInit(request: HostileRequest): RequestInit {
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  return { method: request.method, headers: request.headers, body: bodyless ? undefined : (request.body as BodyInit | undefined) };
}
