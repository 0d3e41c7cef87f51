/**
 * What tools built for Elasticsearch and OpenSearch ask of a cluster, asked of the real server on a
 * socket: node info (the version and the HTTP address tools read), aliases through the official
 * Elasticsearch client, and the official OpenSearch client doing what its users do (info, create,
 * bulk, paged searches, aliases, counts).
 */
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, it } from 'vitest';
import { ES_VERSION } from '../../src/http/version.ts';
import { inProcessServer } from './in-process-server.ts';

describe('tools against the real server', () => {
  let opensearch: OpenSearchClient;
  const running = inProcessServer(async (_, server) => {
    opensearch = new OpenSearchClient({ node: server.url });
  });
  afterAll(() => opensearch?.close());

  it('describes the node with the version and the address tools read', async () => {
    const info = await running.client.nodes.info();
    const nodes = Object.values(info.nodes);
    expect(nodes).toHaveLength(1);
    expect(nodes[0].version).toBe(ES_VERSION);
    expect(nodes[0].http?.publish_address).toBe(new URL(running.server.url).host);
    expect(nodes[0].roles).toContain('data');
    // Node info shows the bare address, where _nodes/stats shows it with a port.
    expect(nodes[0].ip).toBe('127.0.0.1');
    // Kibana's poll, with filter_path.
    const polled = await running.client.transport.request({ method: 'GET', path: '/_nodes', querystring: { filter_path: 'nodes.*.version,nodes.*.http.publish_address,nodes.*.ip' } });
    expect(Object.values((polled as { nodes: Record<string, { version: string }> }).nodes)[0].version).toBe(ES_VERSION);
    const metricsOnly = await running.client.nodes.info({ metric: 'http' });
    expect(Object.values(metricsOnly.nodes)[0].os).toBeUndefined();
    expect(Object.values(metricsOnly.nodes)[0].http).toBeDefined();
  });

  it('manages aliases through the official client, and searches and writes through them', async () => {
    for (const index of ['a-1', 'a-2']) {
      await running.client.indices.create({ index, mappings: { properties: { kind: { type: 'keyword' }, n: { type: 'long' } } } });
      await running.client.bulk({ refresh: true, operations: Array.from({ length: 6 }, (_, i) => [{ index: { _index: index, _id: `${index}-${i}` } }, { kind: i % 3 === 0 ? 'x' : 'y', n: i }]).flat() });
    }
    await running.client.indices.updateAliases({ actions: [{ add: { indices: ['a-1', 'a-2'], alias: 'all-a' } }, { add: { index: 'a-2', alias: 'all-a-write', is_write_index: true } }] });
    await running.client.indices.putAlias({ index: 'a-1', name: 'x-only', filter: { term: { kind: 'x' } } });
    expect(await running.client.indices.existsAlias({ name: 'x-only' })).toBe(true);
    const aliases = await running.client.indices.getAlias({ name: 'x-only' });
    expect(aliases).toEqual({ 'a-1': { aliases: { 'x-only': { filter: { term: { kind: 'x' } } } } } });
    expect((await running.client.count({ index: 'all-a' })).count).toBe(12);
    const xs = await running.client.search({ index: 'x-only', sort: [{ n: 'asc' }] });
    expect(xs.hits.hits.map((h) => h._id)).toEqual(['a-1-0', 'a-1-3']);
    const written = await running.client.index({ index: 'all-a-write', id: 'new', document: { kind: 'x', n: 9 }, refresh: true });
    expect(written._index).toBe('a-2');
    await running.client.indices.deleteAlias({ index: 'a-1', name: 'x-only' });
    expect(await running.client.indices.existsAlias({ name: 'x-only' })).toBe(false);
  });

  it('serves the OpenSearch client as it serves the Elasticsearch one', async () => {
    const info = await opensearch.info();
    expect(info.statusCode).toBe(200);
    expect(info.body.version.number).toBe(ES_VERSION);
    await opensearch.indices.create({ index: 'os', body: { settings: { number_of_shards: 3 }, mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' } } } } });
    const body = Array.from({ length: 50 }, (_, i) => [{ index: { _index: 'os', _id: String(i) } }, { n: i, tag: `t${i % 4}` }]).flat();
    const bulk = await opensearch.bulk({ body, refresh: 'true' });
    expect(bulk.body.errors).toBe(false);
    const pages: string[] = [];
    for (let from = 0; from < 50; from += 7) {
      const page = await opensearch.search({ index: 'os', body: { from, size: 7, sort: [{ n: 'desc' }] } });
      pages.push(...page.body.hits.hits.map((h) => h._id!));
    }
    expect(pages).toEqual(Array.from({ length: 50 }, (_, i) => String(49 - i)));
    expect((await opensearch.count({ index: 'os', body: { query: { term: { tag: 't1' } } } })).body.count).toBe(13);
    await opensearch.indices.putAlias({ index: 'os', name: 'os-alias' });
    expect((await opensearch.search({ index: 'os-alias', body: { size: 1, sort: [{ n: 'asc' }] } })).body.hits.hits[0]._id).toBe('0');
    const got = await opensearch.get({ index: 'os-alias', id: '7' });
    expect(got.body._source).toEqual({ n: 7, tag: 't3' });
  });
});
