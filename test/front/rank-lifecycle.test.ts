/**
 * A rank index's life and the front's faults, with real processes (a stand-in cluster, fronts
 * before it): writes on the cluster show after a refresh (`POST /_front/_refresh` or
 * `front.refresh_interval`), never before, and the old index serves meanwhile; a point in time
 * closed on the cluster, or a cluster killed and restarted, means a page answered cold and a
 * rebuild; `front.max_open_pits` caps the points in time the cluster holds for the front; a front
 * that stops closes them; a cluster out of reach answers 503 in Elasticsearch's shape; a rank index
 * built with one client's credentials serves no other; the OpenSearch dialect.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { kill, killAll, start, type Started } from './processes.ts';

const removals: (() => void)[] = [];
afterAll(async () => {
  await killAll();
  removals.forEach((remove) => remove());
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(new URL(path, url), { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function settled(url: string, headers: Record<string, string> = {}): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const stats = (await call(url, 'GET', '/_front/stats', undefined, headers)).body;
    if (stats.rank_indices.building === 0) return stats;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('a build never ended');
}

/** An index of `count` documents with `rank` 0…count−1 on the cluster; `window` its max_result_window. */
async function load(cluster: string, index: string, count: number, window = 20, headers: Record<string, string> = {}, first = 0): Promise<void> {
  if (first === 0) await call(cluster, 'PUT', `/${index}`, { settings: { number_of_shards: 3, max_result_window: window }, mappings: { properties: { rank: { type: 'long' }, tag: { type: 'keyword' } } } }, headers);
  const lines = Array.from({ length: count }, (_, i) => `{"index":{"_index":"${index}","_id":"${first + i}"}}\n{"rank":${first + i},"tag":"t${(first + i) % 3}"}\n`).join('');
  const res = await fetch(new URL('/_bulk?refresh=true', cluster), { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...headers }, body: lines });
  expect(res.status).toBe(200);
}

const deep = (from: number, sort: unknown = [{ rank: 'asc' }]) => ({ sort, from, size: 5 });
const ranks = (answer: Answer) => answer.body.hits.hits.map((hit: { _source: { rank: number } }) => hit._source.rank);
/** The points in time the cluster holds open (its OpenSearch-dialect listing). */
const openOnCluster = async (cluster: string, headers: Record<string, string> = {}) => (await call(cluster, 'GET', '/_search/point_in_time/_all', undefined, headers)).body.pits.length;

describe('a rank index over a changing cluster', () => {
  it('shows writes after POST /_front/_refresh and not before, the old index serving meanwhile', async () => {
    const cluster = await start(['-E', 'search.paging=top_k']);
    const front = await start(['-E', `front.hosts=${cluster.url}`]);
    await load(cluster.url, 'w', 50);
    expect(ranks(await call(front.url, 'POST', '/w/_search', deep(30)))).toEqual([30, 31, 32, 33, 34]);
    await settled(front.url);
    const before = await call(front.url, 'POST', '/w/_search', deep(45));
    expect(before.headers.get('x-deeppage-page')).toBe('warm');
    expect(before.body.hits.total.value).toBe(50);
    await load(cluster.url, 'w', 10, 20, {}, 50);
    const still = await call(front.url, 'POST', '/w/_search', deep(45));
    expect(ranks(still)).toEqual([45, 46, 47, 48, 49]);
    expect(still.body.hits.total.value).toBe(50);
    expect(still.headers.get('x-deeppage-snapshot')).toBe(before.headers.get('x-deeppage-snapshot'));
    expect((await call(front.url, 'POST', '/_front/_refresh')).body).toEqual({ acknowledged: true, rebuilding: 1 });
    await settled(front.url);
    const after = await call(front.url, 'POST', '/w/_search', deep(55));
    expect(ranks(after)).toEqual([55, 56, 57, 58, 59]);
    expect(after.body.hits.total.value).toBe(60);
    expect(Date.parse(after.headers.get('x-deeppage-snapshot')!)).toBeGreaterThan(Date.parse(before.headers.get('x-deeppage-snapshot')!));
    // The old index's point in time was closed: one open on the cluster.
    expect(await openOnCluster(cluster.url)).toBe(1);
  });

  it('rebuilds an index older than front.refresh_interval on the next request', async () => {
    const cluster = await start(['-E', 'search.paging=top_k']);
    const front = await start(['-E', `front.hosts=${cluster.url}`, '-E', 'front.refresh_interval=200ms']);
    await load(cluster.url, 'r', 30);
    await call(front.url, 'POST', '/r/_search', deep(25));
    await settled(front.url);
    await load(cluster.url, 'r', 10, 20, {}, 30);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Stale: this page comes from the old index while the new one is built.
    expect((await call(front.url, 'POST', '/r/_search', deep(25))).body.hits.total.value).toBe(30);
    const stats = await settled(front.url);
    expect(stats.rank_indices.builds).toBe(2);
    expect((await call(front.url, 'POST', '/r/_search', deep(35))).body.hits.total.value).toBe(40);
  });

  it('answers cold and rebuilds when the point in time is gone, or the cluster restarted', async () => {
    const { dir, remove } = tempDir();
    removals.push(remove);
    const cluster = await start(['-E', 'search.paging=top_k'], { DEEPPAGE_DATA: dir });
    const front = await start(['-E', `front.hosts=${cluster.url}`]);
    await load(cluster.url, 'p', 40);
    await call(front.url, 'POST', '/p/_search', deep(30));
    await settled(front.url);
    await call(cluster.url, 'DELETE', '/_search/point_in_time/_all');
    const gone = await call(front.url, 'POST', '/p/_search', deep(30));
    expect(gone.status).toBe(200);
    expect(ranks(gone)).toEqual([30, 31, 32, 33, 34]);
    expect(gone.headers.get('x-deeppage-page')).toBe('cold');
    await settled(front.url);
    expect((await call(front.url, 'POST', '/p/_search', deep(35))).headers.get('x-deeppage-page')).toBe('warm');

    await kill(cluster.child);
    const port = new URL(cluster.url).port;
    const again = await start(['-E', 'search.paging=top_k'], { DEEPPAGE_DATA: dir, PORT: port });
    expect(again.url).toBe(cluster.url);
    const restarted = await call(front.url, 'POST', '/p/_search', deep(30));
    expect(restarted.status).toBe(200);
    expect(ranks(restarted)).toEqual([30, 31, 32, 33, 34]);
    await settled(front.url);
    expect(ranks(await call(front.url, 'POST', '/p/_search', deep(35)))).toEqual([35, 36, 37, 38, 39]);

    await kill(again.child);
    const out = await call(front.url, 'POST', '/p/_search', deep(35));
    expect(out.status).toBe(503);
    expect(out.body.error.type).toBe('no_node_available_exception');
  });
});

describe('the points in time the front holds', () => {
  it('stay within front.max_open_pits, least recently used dropped first, and are closed when the front stops', async () => {
    const cluster = await start(['-E', 'search.paging=top_k']);
    const front = await start(['-E', `front.hosts=${cluster.url}`, '-E', 'front.max_open_pits=2']);
    await load(cluster.url, 'm', 30);
    for (const sort of [[{ rank: 'asc' }], [{ rank: 'desc' }], [{ tag: 'asc' }, { rank: 'asc' }]]) {
      expect((await call(front.url, 'POST', '/m/_search', deep(25, sort))).status).toBe(200);
      await settled(front.url);
    }
    const stats = await settled(front.url);
    expect(stats.open_pits).toBe(2);
    expect(stats.rank_indices.evicted).toBe(1);
    expect(await openOnCluster(cluster.url)).toBe(2);
    // The most recent two are warm; the first was dropped.
    expect((await call(front.url, 'POST', '/m/_search', deep(25, [{ rank: 'desc' }]))).headers.get('x-deeppage-page')).toBe('warm');
    front.child.kill('SIGTERM');
    await new Promise((resolve) => front.child.once('exit', resolve));
    expect(await openOnCluster(cluster.url)).toBe(0);
  });
});

describe('credentials', () => {
  it('a rank index built for one client serves no other; a client without credentials gets the cluster\'s 401', async () => {
    const { dir, remove } = tempDir();
    removals.push(remove);
    const file = join(dir, 'credentials');
    for (const user of ['alice', 'bob']) {
      const made = spawnSync(process.execPath, ['dist/credentials-cli.js', 'useradd', user, '-p', `${user}-password-1`, '--file', file], { encoding: 'utf8' });
      expect(made.status, made.stderr).toBe(0);
    }
    const basic = (user: string, password = `${user}-password-1`) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    const cluster = await start(['-E', 'search.paging=top_k', '-E', `xpack.security.authc.file.path=${file}`]);
    const front = await start(['-E', `front.hosts=${cluster.url}`]);
    await load(cluster.url, 'c', 30, 20, basic('alice'));
    expect(ranks(await call(front.url, 'POST', '/c/_search', deep(25), basic('alice')))).toEqual([25, 26, 27, 28, 29]);
    await settled(front.url, basic('alice'));
    expect((await call(front.url, 'POST', '/c/_search', deep(25), basic('alice'))).headers.get('x-deeppage-page')).toBe('warm');
    for (const stranger of [{}, basic('alice', 'wrong-password-1')]) {
      const refused = await call(front.url, 'POST', '/c/_search', deep(25), stranger);
      expect(refused.status).toBe(401);
      expect(refused.body.error.type).toBe('security_exception');
      expect(refused.headers.get('x-deeppage-page')).toBeNull();
    }
    expect((await call(front.url, 'GET', '/_front/stats')).status).toBe(401);
    // Bob's first deep page is his own: not alice's index.
    const bob = await call(front.url, 'POST', '/c/_search', deep(25), basic('bob'));
    expect(bob.headers.get('x-deeppage-page')).toBe('cold');
    const stats = await settled(front.url, basic('bob'));
    expect(stats.rank_indices.count).toBe(2);
  });
});

describe('an OpenSearch cluster', () => {
  it('is paged through its own point-in-time API', async () => {
    const cluster = await start(['-E', 'search.paging=top_k', '-E', 'compatibility.distribution=opensearch']);
    const front = await start(['-E', `front.hosts=${cluster.url}`]);
    await load(cluster.url, 'o', 40);
    await call(front.url, 'POST', '/o/_search', deep(30));
    const stats = await settled(front.url);
    expect(stats.rank_indices.count).toBe(1);
    const page = await call(front.url, 'POST', '/o/_search', deep(33));
    expect(page.headers.get('x-deeppage-page')).toBe('warm');
    expect(ranks(page)).toEqual([33, 34, 35, 36, 37]);
    expect(await openOnCluster(cluster.url)).toBe(1);
  });
});
