/**
 * The `_cat` APIs on the real server, through the official client (8.19) as monitoring tools call
 * them: JSON rows with string values, the text table the client returns as a string when no format
 * is asked for, and `_cat/count` with a query in a GET body, which only a socket can send.
 */
import { request } from 'node:http';
import { Client } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';
import { inProcessServer } from './in-process-server.ts';

describe('_cat through the official client', () => {
  const running = inProcessServer(async (client) => {
    await client.indices.create({ index: 'cities', settings: { number_of_shards: 2 } });
    await client.indices.create({ index: 'notes', settings: { number_of_shards: 1, number_of_replicas: 0 } });
    const operations = Array.from({ length: 30 }, (_, i) => [{ index: { _index: 'cities', _id: String(i) } }, { name: `city ${i}`, big: i % 3 === 0 }]).flat();
    expect((await client.bulk({ operations, refresh: true })).errors).toBe(false);
    await client.index({ index: 'notes', id: '1', document: { text: 'hello' }, refresh: true });
  });

  it('cat.indices: one row per index, every value a string, health from the replicas', async () => {
    const rows = await running.client.cat.indices({ format: 'json', s: 'index' });
    expect(rows).toEqual([
      {
        health: 'yellow', status: 'open', index: 'cities', uuid: expect.stringMatching(/^[0-9a-f]{22}$/), pri: '2', rep: '1',
        'docs.count': '30', 'docs.deleted': '0', 'store.size': null, 'pri.store.size': null, 'dataset.size': null,
      },
      expect.objectContaining({ health: 'green', index: 'notes', pri: '1', rep: '0', 'docs.count': '1' }),
    ]);
    expect(await running.client.cat.indices({ format: 'json', h: ['index', 'dc'], health: 'green' })).toEqual([{ index: 'notes', dc: '1' }]);
    // Without a format the client asks for JSON or text, which ES answers with text, and the client hands back the string.
    expect(await running.client.cat.indices({ v: true, h: ['index', 'docs.count'], s: ['docs.count:desc'] })).toBe('index  docs.count\ncities         30\nnotes           1\n');
  });

  it('cat.count: the exact count, of all indices or those named, with a q query', async () => {
    const [all] = await running.client.cat.count({ format: 'json' });
    expect(all).toEqual({ epoch: expect.stringMatching(/^\d+$/), timestamp: expect.stringMatching(/^\d\d:\d\d:\d\d$/), count: '31' });
    expect(await running.client.cat.count({ index: 'cities', format: 'json', h: ['count'] })).toEqual([{ count: '30' }]);
    expect(await running.client.cat.count({ index: 'cities', format: 'json', h: ['count'], q: 'big:true' } as Parameters<Client['cat']['count']>[0])).toEqual([{ count: '10' }]);
  });

  it('cat.count: a query in the GET body', async () => {
    const body = JSON.stringify({ query: { term: { big: true } } });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${running.server.url}/_cat/count/cities?h=count`, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject).end(body);
    });
    expect(answer).toEqual({ status: 200, text: '10\n' });
  });

  it('cat.health: the cluster as _cluster/health reports it', async () => {
    const [row] = await running.client.cat.health({ format: 'json' });
    expect(row).toMatchObject({ cluster: 'deeppage', status: 'yellow', 'node.total': '1', shards: '3', pri: '3', unassign: '2', active_shards_percent: '60.0%' });
    const health = await running.client.cluster.health();
    expect([health.status, health.active_shards, health.unassigned_shards]).toEqual([row.status, Number(row.shards), Number(row.unassign)]);
  });

  it('cat.shards: each primary started with its documents, each replica unassigned', async () => {
    const rows = await running.client.cat.shards({ index: 'cities', format: 'json', h: ['shard', 'prirep', 'state', 'docs', 'node'], s: ['shard', 'prirep'] });
    expect(rows.map((row) => [row.shard, row.prirep, row.state])).toEqual([['0', 'p', 'STARTED'], ['0', 'r', 'UNASSIGNED'], ['1', 'p', 'STARTED'], ['1', 'r', 'UNASSIGNED']]);
    expect(rows.filter((row) => row.prirep === 'p').reduce((n, row) => n + Number(row.docs), 0)).toBe(30);
    expect(rows.filter((row) => row.prirep === 'r').every((row) => row.docs === null && row.node === null)).toBe(true);
  });
});
