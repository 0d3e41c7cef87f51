/**
 * The front's hosts and faults, with real processes: a first host that refuses connections is
 * skipped, for writes too; a host that takes a request and resets the connection is left for the next
 * one only for a read, never for a write; a cluster killed gives 503 (no host accepted a connection)
 * or 502 (one may have seen the request) in Elasticsearch's error shape, and the front keeps running.
 * A stand-in cluster (a plain node:http server) shows what reaches a host and that a gzip answer
 * passes as it is; the refusals of bad `front.*` settings.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { exchange, kill, killAll, refusal, start } from './processes.ts';

const servers: { close(): unknown }[] = [];
afterAll(async () => {
  await killAll();
  for (const server of servers) server.close();
});

async function listening(server: Server | ReturnType<typeof createHttpServer>, scheme = 'http'): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `${scheme}://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A port nothing listens on: connections to it are refused. */
async function refusingHost(): Promise<string> {
  const server = createServer();
  const url = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** A host that accepts, reads the request's first bytes and resets the connection; counts what it saw. */
async function resettingHost(): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((socket) => socket.once('data', () => (seen++, socket.resetAndDestroy())));
  return { url: await listening(server), seen: () => seen };
}

function error(answer: { body: Buffer }): { error: { root_cause: { type: string }[]; type: string; reason: string }; status: number } {
  return JSON.parse(answer.body.toString());
}

describe('failover', () => {
  it('skips a host that refuses connections, for reads and writes alike', async () => {
    const cluster = await start([]);
    const front = await start(['-E', `front.hosts=${await refusingHost()},${cluster.url}`]);
    expect((await exchange(front.url, 'PUT', '/t', ['Content-Type', 'application/json'], '{}')).status).toBe(200);
    expect((await exchange(front.url, 'PUT', '/t/_doc/1?refresh=true', ['Content-Type', 'application/json'], '{"a":1}')).status).toBe(201);
    expect(JSON.parse((await exchange(cluster.url, 'GET', '/t/_count')).body.toString()).count).toBe(1);
    expect((await exchange(front.url, 'GET', '/t/_doc/1')).status).toBe(200);
  });

  it('retries a read on the next host after a reset, and never a write', async () => {
    const cluster = await start([]);
    const resetting = await resettingHost();
    const front = await start(['-E', `front.hosts=${resetting.url},${cluster.url}`]);
    const write = await exchange(front.url, 'PUT', '/w', ['Content-Type', 'application/json'], '{}');
    expect(write.status).toBe(502);
    expect(error(write)).toMatchObject({ error: { type: 'connect_transport_exception', root_cause: [{ type: 'connect_transport_exception' }] }, status: 502 });
    expect((await exchange(cluster.url, 'HEAD', '/w')).status).toBe(404);
    expect(resetting.seen()).toBe(1);
    // The reset host led no further: the front now starts at the cluster, which answers.
    expect((await exchange(front.url, 'HEAD', '/')).status).toBe(200);

    const again = await start(['-E', `front.hosts=${resetting.url},${cluster.url}`]);
    const read = await exchange(again.url, 'POST', '/_search', ['Content-Type', 'application/json'], ['{"query":', '{"match_all":{}}}']);
    expect(read.status).toBe(200);
    expect(resetting.seen()).toBe(2);
    const bulk = await exchange(again.url, 'POST', '/_bulk', ['Content-Type', 'application/x-ndjson'], '{"index":{"_index":"w","_id":"1"}}\n{"a":1}\n');
    expect(bulk.status).toBe(200);
  });

  it('answers 503, then 502, in ES\'s shape when no host answers, and keeps running', async () => {
    const cluster = await start([]);
    const front = await start(['-E', `front.hosts=${cluster.url}`]);
    expect((await exchange(front.url, 'GET', '/')).status).toBe(200);
    await kill(cluster.child);
    for (const method of ['GET', 'PUT']) {
      const answer = await exchange(front.url, method, '/x', ['Content-Type', 'application/json'], method === 'PUT' ? '{}' : undefined);
      expect(answer.status).toBe(503);
      expect(error(answer)).toEqual({
        error: { root_cause: [{ type: 'no_node_available_exception', reason: expect.stringContaining('ECONNREFUSED') }], type: 'no_node_available_exception', reason: `None of the configured nodes are available: [${new URL(cluster.url).host}] ECONNREFUSED` },
        status: 503,
      });
    }
    const resetting = await resettingHost();
    const other = await start(['-E', `front.hosts=${resetting.url},${await refusingHost()}`]);
    const answer = await exchange(other.url, 'GET', '/_cat/indices');
    expect(answer.status).toBe(502);
    expect(error(answer).error.reason).toMatch(/^no answer from the cluster: \[127\.0\.0\.1:\d+\] ECONNRESET, \[127\.0\.0\.1:\d+\] ECONNREFUSED$/);
    expect(front.child.exitCode).toBeNull();
    expect(other.child.exitCode).toBeNull();
  });
});

describe('what reaches a host, and what comes back', () => {
  it('forwards end-to-end headers, drops hop-by-hop ones, sets Host and front.headers, and passes a gzip answer as it is', async () => {
    const seen: IncomingMessage[] = [];
    const zipped = gzipSync(Buffer.from('{"ok":true}'));
    const stand = createHttpServer((req, res) => {
      seen.push(req);
      req.resume();
      req.on('end', () => {
        const gzip = /gzip/.test(req.headers['accept-encoding'] ?? '');
        res.writeHead(299, 'Quite OK', ['Content-Type', 'application/json', 'X-Twice', 'a', 'X-Twice', 'b', 'Keep-Alive', 'timeout=9', ...(gzip ? ['Content-Encoding', 'gzip'] : [])]);
        res.end(gzip ? zipped : '{"ok":true}');
      });
    });
    const url = await listening(stand);
    const front = await start(['-E', `front.hosts=${url}/prefix/`, '-E', 'front.headers.X-Opaque-Id=the-front', '-E', 'front.headers.X-Tenant= acme ']);
    const answer = await exchange(front.url, 'POST', '/idx/_search?q=a%20b&size=1', [
      'Authorization', 'ApiKey abc', 'Accept-Encoding', 'gzip', 'X-Opaque-Id', 'client', 'Connection', 'keep-alive, X-Hop', 'X-Hop', '1',
      'Proxy-Authorization', 'Basic x', 'TE', 'trailers', 'Upgrade', 'h2c', 'X-Kept', 'yes', 'Content-Type', 'application/json',
    ], ['{"a":', '1}']);
    expect({ status: answer.status, message: answer.statusMessage }).toEqual({ status: 299, message: 'Quite OK' });
    expect(answer.body.equals(zipped)).toBe(true);
    expect(gunzipSync(answer.body).toString()).toBe('{"ok":true}');
    const lines = answer.rawHeaders.map((v, i) => (i % 2 === 0 ? v.toLowerCase() : v));
    expect(lines).toEqual(expect.arrayContaining(['content-encoding', 'gzip', 'x-twice', 'a']));
    expect(lines.filter((v) => v === 'x-twice')).toHaveLength(2);
    expect(lines).not.toContain('timeout=9');

    const req = seen[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/prefix/idx/_search?q=a%20b&size=1');
    expect(req.headers).toMatchObject({ host: new URL(url).host, authorization: 'ApiKey abc', 'accept-encoding': 'gzip', 'x-kept': 'yes', 'x-opaque-id': 'the-front', 'x-tenant': 'acme', 'transfer-encoding': 'chunked' });
    for (const name of ['x-hop', 'proxy-authorization', 'te', 'upgrade']) expect(req.headers[name]).toBeUndefined();
  });
});

describe('front settings', () => {
  it.each([
    [['front.hosts=ftp://es1:21'], 'Failed to parse value [ftp://es1:21] for setting [front.hosts]: [ftp://es1:21] must use http or https'],
    [['front.hosts=http://es1:9200,'], 'expected a comma-separated list of http:// or https:// URLs'],
    [['front.hosts=http://u:p@es1:9200'], 'must not carry credentials'],
    [['front.hosts=http://es1:9200', 'front.headers.Authorization=Basic eA=='], '[front.headers.Authorization]: the header [Authorization] cannot be set by the front'],
    [['front.hosts=http://es1:9200', 'front.headers.Bad Name=1'], 'is not a valid header name'],
    [['front.headers.X-A=1'], '[front.hosts] must be set when any other front.* setting is'],
    [['front.hosts=http://es1:9200', 'front.ssl.certificate_authorities=/ca.pem'], '[front.ssl.certificate_authorities] is set but no host in [front.hosts] uses https'],
    [['front.hosts=https://es1:9200', 'front.ssl.certificate_authorities=/no/such/ca.pem'], 'cannot read configured PEM certificate_authorities [/no/such/ca.pem] because the file does not exist'],
  ])('refuses %j', async (settings, message) => {
    const { code, log } = await refusal(settings.flatMap((s) => ['-E', s]));
    expect(code).toBe(1);
    expect(log).toContain(message);
    expect(log.trim().split('\n')).toHaveLength(1);
  });
});

describe('TLS to the cluster', () => {
  it('trusts the CAs of front.ssl.certificate_authorities, and no others', async () => {
    const { dir, remove } = tempDir();
    servers.push({ close: remove });
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const stand = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => res.end(`{"path":"${req.url}"}`));
    const url = await listening(stand, 'https');
    const trusting = await start(['-E', `front.hosts=${url}`, '-E', `front.ssl.certificate_authorities=${cert}`]);
    const answer = await exchange(trusting.url, 'GET', '/_cluster/health');
    expect({ status: answer.status, body: answer.body.toString() }).toEqual({ status: 200, body: '{"path":"/_cluster/health"}' });
    const untrusting = await start(['-E', `front.hosts=${url}`]);
    const refused = await exchange(untrusting.url, 'GET', '/_cluster/health');
    expect(refused.status).toBe(503);
    expect(error(refused).error.reason).toContain('SELF_SIGNED_CERT');
  });
});
