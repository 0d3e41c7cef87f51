/**
 * Front mode's pass-through (src/front/), process to process: a real deeppage server with a
 * credentials file as the cluster, a second one started with `-E front.hosts=…` as the front. Every
 * request answers through the front byte for byte as the cluster answers it directly: status, body
 * bytes, end-to-end header lines (Date aside, the two answers being seconds apart).
 */
import { Client, errors } from '@elastic/elasticsearch';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { endToEndLines, exchange, killAll, start, type Exchange, type Started } from './processes.ts';

const PASSWORD = 'alice-password-1';
const AUTH = ['Authorization', `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`];
const JSON_TYPE = ['Content-Type', 'application/json'];

let cluster: Started;
let front: Started;
const removals: (() => void)[] = [];

beforeAll(async () => {
  const { dir, remove } = tempDir();
  removals.push(remove);
  const file = join(dir, 'credentials');
  const made = spawnSync(process.execPath, ['dist/credentials-cli.js', 'useradd', 'alice', '-p', PASSWORD, '--file', file], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  cluster = await start(['-E', `xpack.security.authc.file.path=${file}`]);
  front = await start(['-E', `front.hosts=${cluster.url}`]);
});

afterAll(async () => {
  await killAll();
  removals.forEach((remove) => remove());
});

/** Sends the same request to the cluster, then through the front; expects the same answer. */
async function same(method: string, path: string, headers: string[] = [], body?: string | string[]): Promise<Exchange> {
  const direct = await exchange(cluster.url, method, path, headers, body);
  const through = await exchange(front.url, method, path, headers, body);
  expect({ status: through.status, message: through.statusMessage }).toEqual({ status: direct.status, message: direct.statusMessage });
  const [a, b] = [through, direct].map(tookAside);
  expect(a.lines).toEqual(b.lines);
  expect(a.body.equals(b.body), `${method} ${path}: ${through.body} against ${direct.body}`).toBe(true);
  return through;
}

/**
 * A search's `took` (its milliseconds) differs between two runs of it: its digits are put aside, and
 * Content-Length is counted without them. Every other byte must be the same.
 */
function tookAside(answer: Exchange): { lines: string[]; body: Buffer } {
  const took = /^\{\s*"took"\s*:\s*(\d+)/.exec(answer.body.toString('latin1'));
  if (!took) return { lines: endToEndLines(answer), body: answer.body };
  const at = took[0].length - took[1].length;
  const body = Buffer.concat([answer.body.subarray(0, at), Buffer.from('N'), answer.body.subarray(took[0].length)]);
  const lines = endToEndLines(answer).map((line) => (line.startsWith('content-length: ') ? `content-length: ${Number(line.slice(16)) - took[1].length + 1}` : line));
  return { lines, body };
}

describe('a front before one cluster', () => {
  it('says it is a front and opens no data of its own', () => {
    expect(front.log()).toContain(`(in front of ${cluster.url}/)`);
    expect(front.log()).not.toContain('loading');
  });

  it('answers writes, reads, searches, _cat, errors and HEAD as the cluster does, byte for byte', async () => {
    // Each write is sent once, through the front; the reads after it go to both.
    const created = await exchange(front.url, 'PUT', '/books', [...AUTH, ...JSON_TYPE], '{"settings":{"number_of_shards":2},"mappings":{"properties":{"year":{"type":"integer"},"title":{"type":"text"}}}}');
    expect(created.status).toBe(200);
    expect(JSON.parse(created.body.toString())).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'books' });
    const lines = Array.from({ length: 50 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"title":"book number ${i} é","year":${1900 + i}}\n`);
    // _bulk's NDJSON sent in chunks, cut mid-line and inside a character (byte 1,004 is the second of an é).
    const ndjson = Buffer.from(lines.join(''));
    const chunks = [ndjson.subarray(0, 7), ndjson.subarray(7, 1004), ndjson.subarray(1004)];
    const bulk = await exchange(front.url, 'POST', '/books/_bulk?refresh=true', [...AUTH, 'Content-Type', 'application/x-ndjson'], chunks);
    expect(bulk.status).toBe(200);
    expect(JSON.parse(bulk.body.toString())).toMatchObject({ errors: false });
    expect(JSON.parse(bulk.body.toString()).items).toHaveLength(50);

    await same('GET', '/books/_doc/7', AUTH);
    expect(JSON.parse((await same('GET', '/books/_doc/7?_source_includes=title', AUTH)).body.toString())._source).toEqual({ title: 'book number 7 é' });
    await same('GET', '/books/_search?q=title:number&sort=year:desc&size=3&filter_path=hits.hits._id', AUTH);
    await same('POST', '/books/_search', [...AUTH, ...JSON_TYPE], '{"query":{"range":{"year":{"gte":1930}}},"sort":[{"year":"asc"}],"size":4}');
    // A search body sent in chunks, with a GET.
    await same('GET', '/books/_search?pretty', [...AUTH, ...JSON_TYPE], ['{"query":{"match":', '{"title":"number 12"}},"size":2}']);
    await same('POST', '/books/_count', [...AUTH, ...JSON_TYPE], '{"query":{"term":{"year":1911}}}');
    await same('GET', '/_cat/indices?v&h=index,docs.count', AUTH);
    await same('GET', '/', AUTH);
    const missing = await same('GET', '/nope/_doc/1', AUTH);
    expect(missing.status).toBe(404);
    const bad = await same('POST', '/books/_search', [...AUTH, ...JSON_TYPE], '{"query":{"nope":{}}}');
    expect(bad.status).toBe(400);
    const head = await same('HEAD', '/books', AUTH);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await same('HEAD', '/nope', AUTH)).status).toBe(404);
    await same('GET', '/books/_search?from=-2', AUTH);
  });

  it('forwards the client\'s Authorization and passes the cluster\'s 401 through to a client without it', async () => {
    const without = await same('GET', '/books/_search');
    expect(without.status).toBe(401);
    expect(JSON.parse(without.body.toString()).error.type).toBe('security_exception');
    expect(endToEndLines(without).some((line) => line.startsWith('www-authenticate:'))).toBe(true);
    const wrong = await same('GET', '/books/_count', ['Authorization', `Basic ${Buffer.from('alice:wrong-one').toString('base64')}`]);
    expect(wrong.status).toBe(401);
    const me = await exchange(front.url, 'GET', '/_security/_authenticate', AUTH);
    expect(JSON.parse(me.body.toString())).toMatchObject({ username: 'alice' });
  });

  it('serves the official Elasticsearch client', async () => {
    const client = new Client({ node: front.url, auth: { username: 'alice', password: PASSWORD } });
    try {
      await client.index({ index: 'notes', id: 'a', document: { text: 'through the front' }, refresh: true });
      const found = await client.search({ index: 'notes', query: { match: { text: 'front' } } });
      expect(found.hits.hits.map((h) => h._id)).toEqual(['a']);
      expect(await client.count({ index: 'notes' })).toMatchObject({ count: 1 });
      expect((await client.info()).version.number).toMatch(/^8\./);
      await expect(client.get({ index: 'notes', id: 'zz' })).rejects.toBeInstanceOf(errors.ResponseError);
      const anonymous = new Client({ node: front.url });
      await expect(anonymous.count({ index: 'notes' })).rejects.toMatchObject({ meta: { statusCode: 401 } });
      await anonymous.close();
    } finally {
      await client.close();
    }
  });
});
