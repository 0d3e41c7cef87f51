/**
 * The official OpenSearch client (3.x) against a server started with
 * `compatibility.distribution=opensearch`, on a real socket: `info()` names the distribution (what
 * the client's own compatibility check reads); `createPit`, searches over it (with `pit_id` in the answer),
 * `getAllPits`, `deletePit` and `deleteAllPits`. And with the default setting, the Elasticsearch
 * client still works and every answer carries `X-Elastic-Product`. `npm start -- -E
 * compatibility.distribution=…` sets it, or refuses a value it does not know.
 */
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { killServers, serverProcess } from './server-process.ts';
import { ES_VERSION, OPENSEARCH_VERSION } from '../../src/http/version.ts';
import { inProcessServer } from './in-process-server.ts';

/** Response bodies are read field by field, as the clients do. */
type Json = any;

describe('the OpenSearch client against compatibility.distribution=opensearch', () => {
  let opensearch: OpenSearchClient;
  const running = inProcessServer(async (_, server) => {
    opensearch = new OpenSearchClient({ node: server.url });
    await opensearch.indices.create({ index: 'books', body: { settings: { number_of_shards: 3 }, mappings: { properties: { n: { type: 'long' } } } } });
    const body = Array.from({ length: 30 }, (_, i) => [{ index: { _index: 'books', _id: String(i) } }, { n: i }]).flat();
    expect((await opensearch.bulk({ body, refresh: 'true' })).body.errors).toBe(false);
  }, { 'compatibility.distribution': 'opensearch' });
  afterAll(() => opensearch?.close());

  it('reports the OpenSearch distribution, without the Elasticsearch product header', async () => {
    const info = await opensearch.info();
    expect(info.body.version.distribution).toBe('opensearch');
    expect(info.body.version.number).toBe(OPENSEARCH_VERSION);
    expect(info.body.tagline).toBe('The OpenSearch Project: https://opensearch.org/');
    expect(info.headers?.['x-elastic-product']).toBeUndefined();
  });

  it('creates a point in time, pages over its snapshot, lists and deletes it', async () => {
    const created = (await opensearch.createPit({ index: ['books'], keep_alive: '1m', allow_partial_pit_creation: true })).body as Json;
    expect(created._shards).toEqual({ total: 3, successful: 3, skipped: 0, failed: 0 });
    expect(typeof created.creation_time).toBe('number');
    await opensearch.index({ index: 'books', id: 'late', body: { n: -1 }, refresh: 'true' });

    const seen: string[] = [];
    let after: Json[] | undefined;
    for (;;) {
      const page = (await opensearch.search({ body: { size: 7, sort: [{ n: 'asc' }], pit: { id: created.pit_id, keep_alive: '1m' }, ...(after && { search_after: after }) } })).body as Json;
      expect(page.pit_id).toBe(created.pit_id);
      if (page.hits.hits.length === 0) break;
      seen.push(...page.hits.hits.map((h: Json) => h._id));
      after = page.hits.hits.at(-1).sort;
    }
    // The snapshot: the document written after the point in time opened is not in it.
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));

    const all = (await opensearch.getAllPits()).body as Json;
    expect(all.pits).toEqual([{ pit_id: created.pit_id, creation_time: created.creation_time, keep_alive: 60_000 }]);
    const deleted = (await opensearch.deletePit({ body: { pit_id: [created.pit_id] } })).body as Json;
    expect(deleted).toEqual({ pits: [{ successful: true, pit_id: created.pit_id }] });
    expect(((await opensearch.getAllPits()).body as Json).pits).toEqual([]);
  });

  it('deletes every point in time at once', async () => {
    const a = ((await opensearch.createPit({ index: ['books'], keep_alive: '1m' })).body as Json).pit_id;
    const b = ((await opensearch.createPit({ index: ['books'], keep_alive: '1m' })).body as Json).pit_id;
    expect((await opensearch.deleteAllPits()).body).toEqual({ pits: [{ successful: true, pit_id: a }, { successful: true, pit_id: b }] });
    expect(((await opensearch.getAllPits()).body as Json).pits).toEqual([]);
  });

  it("answers a missing keep_alive and an unknown point in time with OpenSearch's errors", async () => {
    const missing = await opensearch.transport.request({ method: 'POST', path: '/books/_search/point_in_time' }).catch((e) => e);
    expect(missing.statusCode).toBe(400);
    expect(missing.body.error.type).toBe('action_request_validation_exception');
    const { pit_id } = (await opensearch.createPit({ index: ['books'], keep_alive: '1m' })).body as Json;
    await opensearch.deletePit({ body: { pit_id: [pit_id] } });
    const gone = await opensearch.search({ body: { pit: { id: pit_id } } }).catch((e) => e);
    expect(gone.statusCode).toBe(404);
    expect(gone.body.error.root_cause[0].type).toBe('search_context_missing_exception');
  });
});

describe('the Elasticsearch client against the default distribution', () => {
  const running = inProcessServer();

  it('works, and every answer carries X-Elastic-Product', async () => {
    const info = await running.client.info({}, { meta: true });
    expect(info.body.version.number).toBe(ES_VERSION);
    expect((info.body.version as Json).distribution).toBeUndefined();
    expect(info.headers['x-elastic-product']).toBe('Elasticsearch');
    await running.client.indices.create({ index: 'books' });
    const pit = await running.client.openPointInTime({ index: 'books', keep_alive: '1m' }, { meta: true });
    expect(pit.headers['x-elastic-product']).toBe('Elasticsearch');
    expect((await running.client.closePointInTime({ id: pit.body.id })).succeeded).toBe(true);
  });
});

describe('npm start -- -E compatibility.distribution=…', () => {
  const dirs: (() => void)[] = [];
  afterAll(() => {
    killServers();
    for (const remove of dirs) remove();
  });
  const dataDir = () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    return dir;
  };

  it('answers as OpenSearch with opensearch', async () => {
    const { child, url } = serverProcess(dataDir(), ['-E', 'compatibility.distribution=opensearch']);
    const res = await fetch(`${await url}/`);
    expect(res.headers.get('x-elastic-product')).toBeNull();
    expect(((await res.json()) as Json).version.distribution).toBe('opensearch');
    child.kill('SIGKILL');
  });

  it('refuses another value, in one line', async () => {
    const { exited } = serverProcess(dataDir(), ['-E', 'compatibility.distribution=solr']);
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('deeppage: failed to parse value [solr] for setting [compatibility.distribution], must be one of [elasticsearch, opensearch]');
  });
});
