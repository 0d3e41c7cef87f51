/**
 * Reindex from remote against a small HTTP server that answers as Elasticsearch does and records
 * every request: what is asked (paths, parameters in ES's order, headers, bodies), how a scroll is
 * walked and cleared, and how each failure is reported.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import type { SourceHit } from '../../src/engine/reindex/hit-source.ts';
import { checkRemoteAllowed, describeRemote, parseRemoteInfo } from '../../src/engine/reindex/remote-info.ts';
import { openRemoteSource, RemoteSearchFailures, type RemoteHitSource } from '../../src/engine/reindex/remote-source.ts';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (request: Recorded, response: ServerResponse) => void;

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A server on 127.0.0.1 that records each request, then lets `handle` answer it. */
async function remote(handle: Handler): Promise<{ port: number; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('latin1') };
      requests.push(recorded);
      handle(recorded, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

interface Doc {
  _id: string;
  _routing?: string;
  _source: Record<string, unknown>;
}

/**
 * An Elasticsearch of the given version over `docs` in index `src`: pages of `size` hits, scroll ids
 * `scroll-1`, `scroll-2`, … (one per page served), `hits.total` as an object from 7.0 and a number before.
 */
function elasticsearch(docs: Doc[], version = '8.15.0', override?: (request: Recorded, res: ServerResponse) => boolean): Handler {
  let size = 0;
  let served = 0;
  let pages = 0;
  const page = (scan = false) => {
    const hits = docs.slice(served, scan ? served : served + size).map((doc) => ({ _index: 'src', _score: null, ...doc, sort: [served] }));
    served += hits.length;
    pages++;
    const total = Number(version.split('.')[0]) >= 7 ? { value: docs.length, relation: 'eq' } : docs.length;
    return { _scroll_id: `scroll-${pages}`, took: 1, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { total, max_score: null, hits } };
  };
  return (request, res) => {
    if (override?.(request, res)) return;
    const url = new URL(request.url, 'http://remote');
    if (request.method === 'GET' && url.pathname.endsWith('/')) return json(res, 200, { name: 'remote', cluster_name: 'es', version: { number: version }, tagline: 'You Know, for Search' });
    if (request.method === 'POST' && url.pathname.endsWith('/_search')) {
      size = Number(url.searchParams.get('size'));
      // A scan search answers its first request with a scroll id only.
      return json(res, 200, page(url.searchParams.get('search_type') === 'scan'));
    }
    if (request.method === 'POST' && url.pathname.endsWith('/_search/scroll')) return json(res, 200, page());
    if (request.method === 'DELETE') return json(res, 200, { succeeded: true, num_freed: 1 });
    json(res, 400, { error: 'unexpected' });
  };
}

const DOCS: Doc[] = [
  { _id: '1', _source: { n: 1 } },
  { _id: '2', _routing: 'r2', _source: { n: 2 } },
  { _id: '3', _source: { n: 3 } },
  { _id: '4', _source: { n: 4 } },
  { _id: '5', _source: { n: 5 } },
];

const info = (port: number, more: Record<string, unknown> = {}) => parseRemoteInfo({ host: `http://127.0.0.1:${port}`, ...more });

async function drain(source: RemoteHitSource): Promise<SourceHit[][]> {
  const batches: SourceHit[][] = [];
  for (let batch = await source.next(); ; batch = await source.next()) {
    batches.push(batch);
    if (batch.length === 0) return batches;
  }
}

/** The error a promise rejects with (or a function throws), which must be an EsError. */
async function failure(run: Promise<unknown> | (() => unknown)): Promise<EsError> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    return e as EsError;
  }
  throw new Error('expected a failure');
}

const routes = (requests: Recorded[]) => requests.map((r) => `${r.method} ${r.url}`);

describe('source.remote', () => {
  it('reads host, credentials, headers and timeouts; the timeouts default to 30s', () => {
    expect(parseRemoteInfo({ host: 'https://other.example.com:9201/proxy-path/', username: 'u', password: 'p', headers: { 'X-A': 'b' }, socket_timeout: '1m', connect_timeout: '10s' })).toEqual({
      scheme: 'https',
      host: 'other.example.com',
      port: 9201,
      pathPrefix: '/proxy-path/',
      username: 'u',
      password: 'p',
      headers: { 'X-A': 'b' },
      socketTimeoutMs: 60_000,
      connectTimeoutMs: 10_000,
    });
    const plain = parseRemoteInfo({ host: 'http://[::1]:9200', username: null });
    expect(plain).toMatchObject({ host: '[::1]', port: 9200, headers: {}, socketTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
    expect(plain.pathPrefix).toBeUndefined();
    expect(plain.username).toBeUndefined();
  });

  it('refuses a host that is not scheme://host:port(/path)?, as Java URI reads it', async () => {
    for (const host of ['https', 'localhost:9200', 'http://localhost', 'http://localhost:', 'http://my_host:9200', 'http://1.2.3:9200', 'http://a b:9200', 'http:/h:9200']) {
      const e = await failure(() => parseRemoteInfo({ host }));
      expect([e.status, e.type, e.reason]).toEqual([400, 'illegal_argument_exception', `[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [${host}]`]);
    }
    expect(parseRemoteInfo({ host: 'http://user:pw@10.0.0.1:9200?x=y' })).toMatchObject({ host: '10.0.0.1', port: 9200, pathPrefix: undefined });
  });

  it('gives ES messages for a missing host, wrong types and unsupported fields', async () => {
    const missing = await failure(() => parseRemoteInfo({ username: 'u' }));
    expect([missing.type, missing.reason]).toEqual(['null_pointer_exception', '[host] must be specified to reindex from a remote cluster']);
    expect((await failure(() => parseRemoteInfo({ host: 'http://h:1', username: 1 }))).reason).toBe('Expected [username] to be a string but was [1]');
    expect((await failure(() => parseRemoteInfo({ host: 9200 }))).reason).toBe('Expected [host] to be a string but was [9200]');
    expect((await failure(() => parseRemoteInfo({ host: 'http://h:1', headers: 'x' }))).reason).toBe('Expected [headers] to be an object containing strings but was [x]');
    expect((await failure(() => parseRemoteInfo({ host: 'http://h:1', headers: { a: 'ok', b: [1, 2] } }))).reason).toBe(
      'Expected [headers] to be an object containing strings but has [b=[1, 2]]',
    );
    expect((await failure(() => parseRemoteInfo({ host: 'http://h:1', socket_timeout: 30 }))).reason).toBe('Expected [socket_timeout] to be a string but was [30]');
    const unit = await failure(() => parseRemoteInfo({ host: 'http://h:1', connect_timeout: '30' }));
    expect([unit.type, unit.reason]).toEqual(['parse_exception', 'failed to parse setting [connect_timeout] with value [30] as a time value: unit is missing or unrecognized']);
    // ES lists what is left of its HashMap, in the map's order: "zz" hashes to bucket 0, "a" to 1.
    const unsupported = await failure(() => parseRemoteInfo({ host: 'http://h:1', a: 1, zz: 2 }));
    expect([unsupported.status, unsupported.type, unsupported.reason]).toEqual([400, 'illegal_argument_exception', 'Unsupported fields in [remote]: [zz,a]']);
    const notMap = await failure(() => parseRemoteInfo('http://h:1'));
    expect(notMap.type).toBe('class_cast_exception');
  });

  it('is allowed only by a reindex.remote.whitelist pattern on host:port', async () => {
    const whitelist = ['otherhost:9200', '127.0.10.*:9200', 'localhost:*', '[::1]:*'];
    for (const host of ['http://otherhost:9200', 'https://otherhost:9200', 'http://127.0.10.7:9200', 'http://localhost:1', 'http://[::1]:9201']) {
      expect(() => checkRemoteAllowed(parseRemoteInfo({ host }), whitelist)).not.toThrow();
    }
    const refused = await failure(() => checkRemoteAllowed(parseRemoteInfo({ host: 'http://otherhost:9201' }), whitelist));
    expect([refused.status, refused.type, refused.reason]).toEqual([400, 'illegal_argument_exception', '[otherhost:9201] not whitelisted in reindex.remote.whitelist']);
    expect((await failure(() => checkRemoteAllowed(parseRemoteInfo({ host: 'http://otherhost:9200' }), []))).reason).toBe(
      '[otherhost:9200] not whitelisted in reindex.remote.whitelist',
    );
  });

  it('is described as RemoteInfo.toString describes it, with the query pretty-printed', () => {
    expect(describeRemote(parseRemoteInfo({ host: 'http://otherhost:9200' }))).toBe('host=otherhost port=9200 query={\n  "match_all" : {\n    "boost" : 1.0\n  }\n}');
    const full = parseRemoteInfo({ host: 'https://h:9200/p', username: 'u', password: 'secret' });
    expect(describeRemote(full, { term: { tags: ['a', 'b'] } })).toBe(
      'scheme=https host=h port=9200 pathPrefix=/p query={\n  "term" : {\n    "tags" : [\n      "a",\n      "b"\n    ]\n  }\n} username=u password=<<>>',
    );
  });
});

describe('reading from a remote', () => {
  it('asks for the version, scrolls in batches and clears the scroll, as ES does', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS));
    const source = await openRemoteSource(info(port, { username: 'elastic', password: 'changeme', headers: { 'X-Opaque-Id': 'job-1' } }), { indices: ['src'], size: 2 });
    expect(source.total).toBe(5);
    const batches = await drain(source);
    await source.close();
    expect(batches.map((batch) => batch.map((hit) => hit.id))).toEqual([['1', '2'], ['3', '4'], ['5'], []]);
    expect(batches[0]).toEqual([
      { index: 'src', id: '1', source: { n: 1 } },
      { index: 'src', id: '2', routing: 'r2', source: { n: 2 } },
    ]);
    expect(routes(requests)).toEqual([
      'GET /',
      'POST /src/_search?scroll=5m&sort=_doc%3Aasc&size=2&allow_partial_search_results=false&version=false',
      'POST /_search/scroll?scroll=300000000000nanos',
      'POST /_search/scroll?scroll=300000000000nanos',
      'POST /_search/scroll?scroll=300000000000nanos',
      'DELETE /_search/scroll',
    ]);
    expect(requests.map((r) => r.body)).toEqual([
      '',
      '{"query":{"match_all":{"boost":1.0}},"_source":true}',
      '{"scroll_id":"scroll-1"}',
      '{"scroll_id":"scroll-2"}',
      '{"scroll_id":"scroll-3"}',
      '{"scroll_id":["scroll-4"]}',
    ]);
    const auth = `Basic ${Buffer.from('elastic:changeme').toString('base64')}`;
    for (const request of requests) {
      expect(request.headers).toMatchObject({ authorization: auth, 'x-opaque-id': 'job-1', host: `127.0.0.1:${port}` });
      if (request.method === 'GET') expect(request.headers['content-type']).toBeUndefined();
      else expect(request.headers).toMatchObject({ 'content-type': 'application/json; charset=UTF-8', 'content-length': String(request.body.length) });
    }
  });

  it('sends the query untouched, the _source filter and field sorts, under the path prefix', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS));
    const source = await openRemoteSource(info(port, { host: `http://127.0.0.1:${port}/proxy/` }), {
      indices: ['a b', 'c,d', 'src'],
      size: 10,
      query: { bool: { filter: [{ range: { n: { gte: 2 } } }] } },
      source: ['n', 'm.*'],
      sort: [{ date: 'desc' }, 'name', { rank: { order: 'ASC', missing: '_last' } }],
      scroll: '10m',
    });
    expect(source.total).toBe(5);
    await source.close();
    expect(routes(requests)).toEqual([
      'GET /proxy/',
      'POST /proxy/a+b,c%2Cd,src/_search?scroll=10m&sort=date%3Adesc%2Cname%3Aasc%2Crank%3Aasc&size=10&allow_partial_search_results=false&version=false',
      'DELETE /proxy/_search/scroll',
    ]);
    expect(requests[1].body).toBe('{"query":{"bool":{"filter":[{"range":{"n":{"gte":2}}}]}},"_source":{"includes":["n","m.*"],"excludes":[]}}');
  });

  it('sends the _source filter as ES read it (search-source.ts): each key replaces its list, false is false', async () => {
    const bodies: string[] = [];
    for (const given of [{ include: ['a'], includes: 'b', excludes: ['c'] }, false, 'n']) {
      const { port, requests } = await remote(elasticsearch(DOCS));
      const source = await openRemoteSource(info(port), { indices: ['src'], size: 10, source: given });
      await source.close();
      bodies.push(JSON.parse(requests[1].body)._source);
    }
    expect(bodies).toEqual([{ includes: ['b'], excludes: ['c'] }, false, { includes: ['n'], excludes: [] }]);
  });

  it('lets headers the user gives win over the client’s own', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS));
    const source = await openRemoteSource(info(port, { username: 'u', password: 'p', headers: { Authorization: 'ApiKey abc' } }), { indices: ['src'], size: 10 });
    await source.close();
    expect(requests.map((r) => r.headers.authorization)).toEqual(['ApiKey abc', 'ApiKey abc', 'ApiKey abc']);
  });

  it('scrolls at once when the first page has a scroll id but no hits', async () => {
    const { port, requests } = await remote(elasticsearch([]));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 10 });
    expect(await source.next()).toEqual([]);
    await source.close();
    expect(routes(requests)).toEqual([
      'GET /',
      'POST /src/_search?scroll=5m&sort=_doc%3Aasc&size=10&allow_partial_search_results=false&version=false',
      'POST /_search/scroll?scroll=300000000000nanos',
      'DELETE /_search/scroll',
    ]);
  });

  it('shapes the requests by the remote version: 6.0 has no allow_partial_search_results and a numeric total', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS, '6.0.1-SNAPSHOT'));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 5 });
    expect(source.total).toBe(5);
    await source.close();
    expect(requests[1].url).toBe('/src/_search?scroll=5m&sort=_doc%3Aasc&size=5&version=false');
  });

  it('speaks to a 1.x remote as ES does: scan, stored fields, millisecond keep-alives, text scroll ids, routing from fields', async () => {
    const old = DOCS.map(({ _id, _routing, _source }) => ({ _id, _source, ...(_routing && { fields: { _routing } }) }));
    const { port, requests } = await remote(elasticsearch(old, '1.7.5'));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 3 });
    const batches = await drain(source);
    await source.close();
    expect(batches[0][1]).toEqual({ index: 'src', id: '2', routing: 'r2', source: { n: 2 } });
    expect(routes(requests)).toEqual([
      'GET /',
      'POST /src/_search?scroll=300000ms&size=3&fields=_parent%2C_routing%2C_ttl&version=false&search_type=scan',
      'POST /_search/scroll?scroll=300000ms',
      'POST /_search/scroll?scroll=300000ms',
      'POST /_search/scroll?scroll=300000ms',
      'DELETE /_search/scroll',
    ]);
    expect(requests[2].headers['content-type']).toBe('text/plain; charset=ISO-8859-1');
    expect(requests[2].body).toBe('scroll-1');
    expect(requests[5].body).toBe('scroll-4');
  });
});

describe('a remote that fails', () => {
  it('keeps a remote error’s status, with its body in the reason, and leaves nothing open', async () => {
    const body = '{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [src]"}],"type":"index_not_found_exception","reason":"no such index [src]"},"status":404}';
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.includes('_search') && (json(res, 404, body), true)));
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 10 }));
    expect([e.status, e.type, e.reason]).toEqual([404, 'status_exception', `body=${body}`]);
    expect(e.causedBy?.type).toBe('response_exception');
    expect(e.causedBy?.reason).toBe(
      `method [POST], host [http://127.0.0.1:${port}], URI [/src/_search?scroll=5m&sort=_doc%3Aasc&size=10&allow_partial_search_results=false&version=false], status line [HTTP/1.1 404 Not Found]\n${body}`,
    );
    expect(routes(requests).map((route) => route.split('?')[0])).toEqual(['GET /', 'POST /src/_search']);
  });

  it('answers a status ES has no name for as a 500', async () => {
    const { port } = await remote((_, res) => json(res, 418, '{}'));
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 10 }));
    expect([e.status, e.type, e.reason]).toEqual([500, 'status_exception', "Couldn't extract status [418]. body={}"]);
  });

  it('needs a JSON content type and JSON, and a version', async () => {
    const html = '<html>proxy</html>';
    const { port: untyped } = await remote((_, res) => res.end(html));
    expect((await failure(openRemoteSource(info(untyped), { indices: ['src'], size: 1 }))).reason).toBe(`Response didn't include Content-Type: body=${html}`);
    const { port: text } = await remote((_, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    expect((await failure(openRemoteSource(info(text), { indices: ['src'], size: 1 }))).reason).toBe("Response didn't include Content-Type: body=ok");
    const { port: garbled } = await remote((_, res) => json(res, 200, html));
    const e = await failure(openRemoteSource(info(garbled), { indices: ['src'], size: 1 }));
    expect([e.status, e.type, e.reason, e.causedBy?.type]).toEqual([500, 'exception', 'Error parsing the response, remote is likely not an Elasticsearch instance', 'x_content_parse_exception']);
    const { port: versionless } = await remote((_, res) => json(res, 200, { name: 'x' }));
    const v = await failure(openRemoteSource(info(versionless), { indices: ['src'], size: 1 }));
    expect([v.status, v.type, v.reason]).toEqual([400, 'illegal_argument_exception', 'Required [version]']);
  });

  it('reports a refused connection as connect_exception', async () => {
    const { port } = await remote(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 1 }));
    expect([e.status, e.type, e.reason]).toEqual([500, 'connect_exception', 'Connection refused']);
  });

  it('reports a remote that hangs up mid-answer', async () => {
    const { port } = await remote((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"version":');
      setImmediate(() => res.socket?.destroy());
    });
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 1 }));
    expect([e.status, e.type, e.reason]).toEqual([500, 'connection_closed_exception', 'Premature end of Content-Length delimited message body (expected: 100; received: 11)']);
    const { port: early } = await remote((_, res) => res.socket?.destroy());
    const hangUp = await failure(openRemoteSource(info(early), { indices: ['src'], size: 1 }));
    expect([hangUp.status, hangUp.type, hangUp.reason]).toEqual([500, 'connection_closed_exception', 'Connection closed unexpectedly']);
  });

  it('gives up on a silent remote after socket_timeout', async () => {
    const { port } = await remote(() => undefined);
    const e = await failure(openRemoteSource(info(port, { socket_timeout: '50ms' }), { indices: ['src'], size: 1 }));
    expect([e.status, e.type, e.reason]).toEqual([500, 'socket_timeout_exception', '50 milliseconds timeout on connection http-outgoing-0 [ACTIVE]']);
  });

  it('retries a 429 with backoff and counts it, then gives the 429 up', async () => {
    let rejections = 2;
    const busy = '{"error":{"type":"es_rejected_execution_exception","reason":"rejected"},"status":429}';
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.includes('scroll?') && rejections-- > 0 && (json(res, 429, busy), true)));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 3 }, { retryDelaysMs: [1, 1, 1] });
    expect((await drain(source)).flat()).toHaveLength(5);
    await source.close();
    expect(source.searchRetries).toBe(2);
    expect(routes(requests).filter((route) => route.startsWith('POST /_search/scroll'))).toHaveLength(4);

    const { port: always } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.method === 'POST' && (json(res, 429, busy), true)));
    const e = await failure(openRemoteSource(info(always), { indices: ['src'], size: 3 }, { retryDelaysMs: [1] }));
    expect([e.status, e.type, e.reason]).toEqual([429, 'status_exception', `body=${busy}`]);
  });

  it('starts over from GET / when the first search is rejected', async () => {
    let rejected = false;
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.startsWith('/src/') && !rejected && ((rejected = true), json(res, 429, '{}'), true)));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 10 }, { retryDelaysMs: [1] });
    await source.close();
    expect(routes(requests).map((route) => route.split('?')[0])).toEqual(['GET /', 'POST /src/_search', 'GET /', 'POST /src/_search', 'DELETE /_search/scroll']);
    expect(source.searchRetries).toBe(1);
  });

  it('refuses a response over the buffer limit', async () => {
    const { port } = await remote(elasticsearch(DOCS));
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 10 }, { bufferLimitBytes: 100 }));
    expect([e.status, e.type, e.reason]).toEqual([400, 'illegal_argument_exception', 'Remote responded with a chunk that was too large. Use a smaller batch size.']);
    expect(e.causedBy?.type).toBe('content_too_long_exception');
    expect(e.causedBy?.reason).toMatch(/^entity content is too long \[\d+\] for the configured buffer limit \[100\]$/);
  });

  it('stops at shard failures or a time-out, reporting them for the reindex response, and clears the scroll', async () => {
    const failed = {
      _scroll_id: 'scroll-x',
      timed_out: false,
      _shards: { total: 2, successful: 1, failed: 1, failures: [{ shard: 1, index: 'src', node: 'n1', reason: { type: 'illegal_state_exception', reason: 'broken', caused_by: { type: 'es_rejected_execution_exception', reason: 'full' } } }] },
      hits: { total: { value: 5, relation: 'eq' }, hits: [{ _index: 'src', _id: '1', _source: {} }] },
    };
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.includes('scroll?') && (json(res, 200, failed), true)));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 2 });
    expect(await source.next()).toHaveLength(2);
    const e = await failure(source.next());
    await source.close();
    expect(e).toBeInstanceOf(RemoteSearchFailures);
    const { failures, timedOut } = e as RemoteSearchFailures;
    expect(timedOut).toBe(false);
    expect(failures.map(({ index, shard, node, reason }) => [index, shard, node, reason.status, reason.type, reason.reason, reason.causedBy?.type])).toEqual([
      ['src', 1, 'n1', 500, 'runtime_exception', 'illegal_state_exception: broken', 'es_rejected_execution_exception'],
    ]);
    expect(e.status).toBe(500);
    expect(requests.at(-1)?.body).toBe('{"scroll_id":["scroll-x"]}');

    const { port: slow } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.startsWith('/src/') && (json(res, 200, { ...failed, timed_out: true, _shards: {} }), true)));
    const timeout = await failure(openRemoteSource(info(slow), { indices: ['src'], size: 2 }).then((s) => s.next().finally(() => s.close())));
    expect([timeout.status, (timeout as RemoteSearchFailures).timedOut]).toEqual([408, true]);
  });

  it('reports an error a remote answers with a 200 as a search failure, losing the scroll as ES does', async () => {
    const error = { error: { type: 'search_phase_execution_exception', reason: 'all shards failed', caused_by: { type: 'parsing_exception', reason: 'bad', line: 1, col: 2 } } };
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.includes('scroll?') && (json(res, 200, error), true)));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 2 });
    await source.next();
    const e = (await failure(source.next())) as RemoteSearchFailures;
    await source.close();
    const [{ index, shard, node, reason }] = e.failures;
    expect([index, shard, node, reason.status, reason.type, reason.reason]).toEqual([null, null, null, 500, 'runtime_exception', 'search_phase_execution_exception: all shards failed']);
    expect([reason.causedBy?.status, reason.causedBy?.type, reason.causedBy?.fields]).toEqual([400, 'parsing_exception', { line: 1, col: 2 }]);
    expect(routes(requests).some((route) => route.startsWith('DELETE'))).toBe(false);
  });

  it('refuses a query that is not an object before asking anything', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS));
    const e = await failure(openRemoteSource(info(port), { indices: ['src'], size: 2, query: ['match_all'] }));
    expect([e.status, e.type, e.reason]).toEqual([400, 'illegal_argument_exception', 'Expected [query] to be an object but was [[match_all]]']);
    expect(requests).toEqual([]);
  });

  it('refuses hits without _source, and sorts it cannot send', async () => {
    const { port } = await remote(elasticsearch([{ _id: '7' } as Doc]));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 2 });
    expect((await failure(source.next())).reason).toBe("[src][7] didn't store _source");
    await source.close();
    const { port: other, requests } = await remote(elasticsearch(DOCS));
    const e = await failure(openRemoteSource(info(other), { indices: ['src'], size: 2, sort: ['_score'] }));
    expect([e.status, e.reason]).toEqual([400, 'Unsupported sort [{\n  "_score" : {\n    "order" : "desc"\n  }\n}]']);
    expect(routes(requests)).toEqual(['GET /']);
  });

  it('refuses a scheme it cannot speak, as Apache’s client does', async () => {
    const e = await failure(openRemoteSource(parseRemoteInfo({ host: 'ftp://127.0.0.1:21' }), { indices: ['src'], size: 1 }));
    expect([e.status, e.type, e.reason]).toEqual([500, 'unsupported_scheme_exception', 'ftp protocol is not supported']);
  });
});

describe('closing', () => {
  it('clears the scroll when the signal aborts a pending batch, and rejects with the signal’s reason', async () => {
    const held: ServerResponse[] = [];
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.url.includes('scroll?') && (held.push(res), true)));
    const controller = new AbortController();
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 2, signal: controller.signal });
    await source.next();
    const pending = source.next();
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const cancelled = new EsError(400, 'task_cancelled_exception', 'by user request');
    controller.abort(cancelled);
    expect(await failure(pending)).toBe(cancelled);
    await source.close();
    expect(routes(requests).at(-1)).toBe('DELETE /_search/scroll');
    expect(requests.at(-1)?.body).toBe('{"scroll_id":["scroll-1"]}');
    expect(await failure(source.next())).toBe(cancelled);
  });

  it('abandons an opening cut short, with nothing to clear', async () => {
    const { port, requests } = await remote(() => undefined);
    const controller = new AbortController();
    const opening = openRemoteSource(info(port), { indices: ['src'], size: 2, signal: controller.signal });
    while (requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await failure(opening)).type).toBe('task_cancelled_exception');
    expect(routes(requests)).toEqual(['GET /']);
  });

  it('ignores a failure to clear the scroll, and closes once', async () => {
    const { port, requests } = await remote(elasticsearch(DOCS, '8.15.0', (request, res) => request.method === 'DELETE' && (json(res, 404, { succeeded: true, num_freed: 0 }), true)));
    const source = await openRemoteSource(info(port), { indices: ['src'], size: 2 });
    await Promise.all([source.close(), source.close()]);
    await source.close();
    expect(routes(requests).filter((route) => route.startsWith('DELETE'))).toHaveLength(1);
  });
});
