/**
 * The node setting `search.paging: top_k` (`-E search.paging=top_k`): every search finds its page by
 * Elasticsearch's algorithm, so the node reads and builds no sorted run of a sort or a query (its
 * `_nodes/stats` run figures stay still), unless a request asks for `paging=sorted_runs` itself. A
 * numeric range reads the field's run, as Elasticsearch reads the field's points.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

describe('search.paging: top_k', () => {
  let server: RunningServer;
  let remove: () => void;
  beforeAll(async () => {
    const dir = tempDir();
    remove = dir.remove;
    server = await startServer({ dataDir: dir.dir, port: 0, settings: { 'search.paging': 'top_k' } });
    const lines = Array.from({ length: 200 }, (_, i) => `{"index":{"_index":"stand-in","_id":"${i}"}}\n{"n":${(i * 37) % 50},"tag":"t${i % 7}"}\n`);
    const bulk = await fetch(`${server.url}/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines.join('') });
    expect((await bulk.json()).errors).toBe(false);
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  const get = async (path: string) => (await fetch(`${server.url}${path}`)).json();
  /** The node's sorted-run figures that move when a search reads or builds a run. */
  const runFigures = async () => {
    const { nodes } = await get('/_nodes/stats');
    const { count, hit_count, miss_count, background_builds, pending_builds } = (Object.values(nodes)[0] as any).indices.sorted_runs;
    return { count, hit_count, miss_count, background_builds, pending_builds };
  };

  it('shows the setting with the node settings', async () => {
    const { nodes } = await get('/_nodes/settings');
    expect((Object.values(nodes)[0] as any).settings.search).toEqual({ paging: 'top_k' });
  });

  it('answers plain searches, search_after and points in time by top-k, reading no sorted run', async () => {
    const before = await runFigures();
    const deep = await get('/stand-in/_search?sort=n:desc&from=150&size=10');
    expect(deep.hits.hits).toHaveLength(10);
    const byTag = await get(`/stand-in/_search?sort=tag.keyword:asc,n:asc&size=5&q=${encodeURIComponent('tag.keyword:t3')}`);
    const last = byTag.hits.hits[4].sort;
    const after = await fetch(`${server.url}/stand-in/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: 5, sort: [{ 'tag.keyword': 'asc' }, { n: 'asc' }], query: { term: { 'tag.keyword': 't3' } }, search_after: last }) });
    expect((await after.json()).hits.hits).toHaveLength(5);
    const { id } = await (await fetch(`${server.url}/stand-in/_pit?keep_alive=1m`, { method: 'POST' })).json();
    const inPit = await fetch(`${server.url}/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: 5, sort: [{ n: 'asc' }], pit: { id }, search_after: [20, 0] }) });
    expect((await inPit.json()).hits.hits).toHaveLength(5);
    expect(await runFigures()).toEqual(before);
  });

  it('still pages by sorted runs when a request asks for them', async () => {
    const before = await runFigures();
    const { hits } = await get('/stand-in/_search?sort=n:asc&from=150&size=10&paging=sorted_runs');
    expect(hits.hits).toHaveLength(10);
    const after = await runFigures();
    expect(after.miss_count + after.hit_count).toBeGreaterThan(before.miss_count + before.hit_count);
    expect(after.count).toBeGreaterThan(before.count);
    // The same page either way.
    const topK = await get('/stand-in/_search?sort=n:asc&from=150&size=10');
    expect(topK.hits.hits).toEqual(hits.hits);
  });

  it("reads a numeric range's matches from the field's sorted run, as Elasticsearch reads the field's points", async () => {
    const range = encodeURIComponent('n:[10 TO 40]');
    const expected = Array.from({ length: 200 }, (_, i) => (i * 37) % 50).filter((n) => n >= 10 && n <= 40).length;
    // The first range scans the column and schedules the field's runs, built between requests.
    expect((await get(`/stand-in/_count?q=${range}`)).count).toBe(expected);
    for (let waited = 0; (await runFigures()).pending_builds > 0 && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 20));
    const built = await runFigures();
    expect(built.pending_builds).toBe(0);
    expect((await get(`/stand-in/_count?q=${range}`)).count).toBe(expected);
    const again = await runFigures();
    // Read from the kept runs: hits, no miss, nothing built.
    expect(again.hit_count).toBeGreaterThan(built.hit_count);
    expect({ ...again, hit_count: 0 }).toEqual({ ...built, hit_count: 0 });
  });
});
