/**
 * Points in time, search_after, scroll, `_reindex` (local and from a remote cluster) and the tasks
 * API, driven through the real server on a free port by the official Elasticsearch client (8.19),
 * as a user would drive them. Three servers: `main` (whitelists 127.0.0.1 as a reindex remote),
 * `limited` (low caps on contexts and keep-alives) and `remote` (a source cluster for reindex).
 *
 * The corpus spreads over several shards with many equal sort keys and a few custom routings, so
 * the order of equal keys (shard, then the document's place in its shard) decides every page.
 */
import { Client, errors } from '@elastic/elasticsearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

/** Response bodies are read field by field, as ES's clients do. */
type Json = any;

const SHARDS = 4;
const DOCS = 600;
/** Documents are bulk-loaded in this many batches, each refreshed: several segments per shard. */
const BATCHES = 6;
/** Few distinct ranks, so most sort keys tie and the tiebreaker decides. */
const doc = (i: number) => ({ n: i, rank: i % 5, group: `g${i % 3}`, title: `doc ${i}` });
/** Every 37th document goes where its custom routing sends it. */
const routingOf = (i: number): string | undefined => (i % 37 === 0 ? `r${i % 3}` : undefined);
const shardOf = (i: number, shards = SHARDS) => shardFor(routingOf(i) ?? String(i), shards);
/** ES's order for equal sort keys in one index: shard number, then the document's place in its shard (write order here). */
const byShardThenWrite = (a: number, b: number) => shardOf(a) - shardOf(b) || a - b;
const ids = (hits: { _id?: string }[]) => hits.map((hit) => hit._id!);

interface Started {
  server: RunningServer;
  client: Client;
  remove: () => void;
}

async function start(settings?: Record<string, string>): Promise<Started> {
  const { dir, remove } = tempDir();
  const server = await startServer({ dataDir: dir, port: 0, settings });
  return { server, client: new Client({ node: server.url }), remove };
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started) return;
  await started.client.close();
  await started.server.close();
  started.remove();
}

/** The status and ES error body of a request that must fail. */
async function failure(run: () => Promise<unknown>): Promise<{ status: number; body: Json }> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(errors.ResponseError);
    const error = e as errors.ResponseError;
    return { status: error.statusCode!, body: error.body };
  }
  throw new Error('expected the request to fail');
}

/** Asserts ES's error shape: the HTTP status, the top-level type, and (when given) the root cause's type and reason. */
function expectEsError(got: { status: number; body: Json }, status: number, type: string, rootType?: string, reason?: string | RegExp): void {
  expect(got.status, JSON.stringify(got.body)).toBe(status);
  expect(got.body.status).toBe(status);
  expect(got.body.error.type).toBe(type);
  if (rootType !== undefined) expect(got.body.error.root_cause[0].type).toBe(rootType);
  if (typeof reason === 'string') expect(got.body.error.root_cause[0].reason).toBe(reason);
  else if (reason) expect(got.body.error.root_cause[0].reason).toMatch(reason);
}

async function load(client: Client, index: string, count: number, batches: number, docOf = doc, routing = routingOf): Promise<void> {
  const per = Math.ceil(count / batches);
  for (let from = 0; from < count; from += per) {
    const operations = [];
    for (let i = from; i < Math.min(count, from + per); i++) {
      const r = routing(i);
      operations.push({ index: { _index: index, _id: String(i), ...(r !== undefined && { routing: r }) } }, docOf(i));
    }
    const bulk = await client.bulk({ operations, refresh: true });
    expect(bulk.errors).toBe(false);
  }
}

/** Every hit of an index, with `_source` and `_routing` (the corpora here are small). */
async function everything(client: Client, index: string): Promise<Map<string, { source: Json; routing?: string }>> {
  const res = await client.search({ index, size: 5000, track_total_hits: true });
  const out = new Map<string, { source: Json; routing?: string }>();
  for (const hit of res.hits.hits) out.set(hit._id!, { source: hit._source, ...(hit._routing !== undefined && { routing: hit._routing }) });
  expect(out.size).toBe((res.hits.total as { value: number }).value);
  return out;
}

/** Walks a point in time with search_after; each page uses the newest `pit_id`. */
async function walkPit(client: Client, pit: string, sort: Json, size: number, extra: Json = {}): Promise<{ hits: Json[]; pages: number; pitIds: string[] }> {
  const hits: Json[] = [];
  const pitIds: string[] = [];
  let after: Json[] | undefined;
  let id = pit;
  for (let pages = 1; pages < 1000; pages++) {
    const res: Json = await client.search({ pit: { id, keep_alive: '1m' }, sort, size, ...(after && { search_after: after }), ...extra });
    expect(typeof res.pit_id).toBe('string');
    pitIds.push(res.pit_id);
    id = res.pit_id;
    if (res.hits.hits.length === 0) return { hits, pages, pitIds };
    hits.push(...res.hits.hits);
    after = res.hits.hits.at(-1).sort;
  }
  throw new Error('the point in time never ended');
}

async function nodeIndicesStats(client: Client): Promise<Json> {
  const stats: Json = await client.nodes.stats();
  const nodes = Object.values(stats.nodes) as Json[];
  expect(nodes).toHaveLength(1);
  return nodes[0].indices;
}

describe('points in time, search_after, scroll and reindex through the official client', () => {
  let main: Started;
  let limited: Started;
  let remote: Started;
  let client: Client;

  beforeAll(async () => {
    main = await start({ 'reindex.remote.whitelist': '127.0.0.1:*' });
    limited = await start({ 'search.max_open_pit_context': '2', 'search.max_open_scroll_context': '2', 'search.max_keep_alive': '1m' });
    remote = await start();
    client = main.client;
    await client.indices.create({ index: 'items', settings: { number_of_shards: SHARDS }, mappings: { properties: { n: { type: 'integer' }, rank: { type: 'integer' }, group: { type: 'keyword' }, title: { type: 'text' } } } });
    await load(client, 'items', DOCS, BATCHES);
    await limited.client.indices.create({ index: 'few', settings: { number_of_shards: 2 } });
    await limited.client.index({ index: 'few', id: '1', document: { n: 1 }, refresh: true });
  });
  afterAll(async () => {
    await stop(main);
    await stop(limited);
    await stop(remote);
  });

  describe('point in time with search_after', () => {
    it('walks every document exactly once in sort order, with the implicit _shard_doc tiebreaker', async () => {
      const opened = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      expect(typeof opened.id).toBe('string');
      expect(opened._shards).toMatchObject({ total: SHARDS, successful: SHARDS, failed: 0 });

      const { hits, pages, pitIds } = await walkPit(client, opened.id, [{ rank: 'asc' }], 47, { track_total_hits: true });
      expect(pages).toBe(Math.ceil(DOCS / 47) + 1);
      for (const id of pitIds) expect(id).not.toBe('');

      const expected = Array.from({ length: DOCS }, (_, i) => i).sort((a, b) => doc(a).rank - doc(b).rank || byShardThenWrite(a, b));
      expect(ids(hits)).toEqual(expected.map(String));
      for (const hit of hits) {
        const i = Number(hit._id);
        expect(hit._source).toEqual(doc(i));
        expect(hit._routing).toBe(routingOf(i));
        // One extra trailing sort value: the shard's place above the document's ordinal in it.
        expect(hit.sort).toHaveLength(2);
        expect(hit.sort[0]).toBe(doc(i).rank);
        expect(Number.isSafeInteger(hit.sort[1])).toBe(true);
        expect(Math.floor(hit.sort[1] / 2 ** 32)).toBe(shardOf(i));
      }
      // The sort values are strictly increasing: no two hits share a position.
      for (let k = 1; k < hits.length; k++) {
        const [a, b] = [hits[k - 1].sort, hits[k].sort];
        expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]), `${a} before ${b}`).toBe(true);
      }

      const closed = await client.closePointInTime({ id: pitIds.at(-1)! });
      expect(closed).toEqual({ succeeded: true, num_freed: 1 });
      // Closing it again frees nothing, and is not an error (ES answers 200 while succeeded).
      const again = await client.closePointInTime({ id: opened.id });
      expect(again).toEqual({ succeeded: true, num_freed: 0 });
    });

    it('counts the total over the point in time on every page', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      const res: Json = await client.search({ pit: { id }, sort: [{ group: 'desc' }, { rank: 'asc' }], size: 10, track_total_hits: true });
      expect(res.hits.total).toEqual({ value: DOCS, relation: 'eq' });
      expect(res.hits.hits[0].sort).toHaveLength(3);
      expect(res.hits.hits[0].sort.slice(0, 2)).toEqual(['g2', 0]);
      await client.closePointInTime({ id });
    });

    it('orders by an explicit {"_shard_doc": "desc"}: shards and documents backwards, with no extra value', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      const { hits } = await walkPit(client, id, [{ _shard_doc: 'desc' }], 64);
      const expected = Array.from({ length: DOCS }, (_, i) => i).sort((a, b) => byShardThenWrite(b, a));
      expect(ids(hits)).toEqual(expected.map(String));
      for (const hit of hits) expect(hit.sort).toHaveLength(1);
      for (let k = 1; k < hits.length; k++) expect(hits[k].sort[0]).toBeLessThan(hits[k - 1].sort[0]);
      await client.closePointInTime({ id });
    });

    it('ascending _shard_doc alone is index order, one page after another', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      const { hits } = await walkPit(client, id, ['_shard_doc'], 100);
      expect(ids(hits)).toEqual(Array.from({ length: DOCS }, (_, i) => i).sort(byShardThenWrite).map(String));
      await client.closePointInTime({ id });
    });

    it('hides later index, update and delete (old _source included) across refreshes and merges', async () => {
      const INITIAL = 200;
      await client.indices.create({ index: 'pitx', settings: { number_of_shards: 2 }, mappings: { properties: { n: { type: 'integer' }, rank: { type: 'integer' } } } });
      await load(client, 'pitx', INITIAL, 2, doc, () => undefined);
      const { id } = await client.openPointInTime({ index: 'pitx', keep_alive: '1m' });

      // 20 rounds of small writes, each refreshed: far more than 8 segments per shard, so they merge.
      const updated = new Set<number>(), deleted = new Set<number>();
      let next = INITIAL;
      for (let round = 0; round < 20; round++) {
        const operations: Json[] = [];
        for (let k = 0; k < 3; k++, next++) operations.push({ index: { _index: 'pitx', _id: String(next) } }, doc(next));
        for (const i of [round * 2, round * 2 + 1]) {
          operations.push({ index: { _index: 'pitx', _id: String(i) } }, { ...doc(i), title: 'changed', rank: 99 });
          updated.add(i);
        }
        const gone = 100 + round;
        operations.push({ delete: { _index: 'pitx', _id: String(gone) } });
        deleted.add(gone);
        const bulk = await client.bulk({ operations, refresh: true });
        expect(bulk.errors).toBe(false);
      }
      const stats: Json = await client.indices.stats({ index: 'pitx' });
      expect(stats.indices.pitx.total.search.open_contexts).toBe(2);
      // The old _source of updated and deleted documents is kept for the point in time.
      expect((await nodeIndicesStats(client)).retained_sources.retained).toBeGreaterThanOrEqual(updated.size + deleted.size);

      const { hits } = await walkPit(client, id, [{ n: 'asc' }], 33, { track_total_hits: true });
      expect(ids(hits)).toEqual(Array.from({ length: INITIAL }, (_, i) => String(i)));
      for (const hit of hits) expect(hit._source).toEqual(doc(Number(hit._id)));
      const ranked: Json = await client.search({ pit: { id }, sort: [{ rank: 'desc' }], size: 1, track_total_hits: true });
      expect(ranked.hits.total.value).toBe(INITIAL);
      expect(ranked.hits.hits[0].sort[0]).toBe(4);

      // Outside the point in time the index is as written.
      const now = await everything(client, 'pitx');
      expect(now.size).toBe(INITIAL + 60 - deleted.size);
      for (const i of deleted) expect(now.has(String(i))).toBe(false);
      for (const i of updated) expect(now.get(String(i))!.source.title).toBe('changed');

      expect(await client.closePointInTime({ id })).toEqual({ succeeded: true, num_freed: 1 });
      await client.indices.refresh({ index: 'pitx' });
      expect((await nodeIndicesStats(client)).retained_sources.retained).toBe(0);
    });

    it('refuses _shard_doc without a point in time, and an index in the path with one', async () => {
      const shardDoc = await failure(() => client.search({ index: 'items', sort: ['_shard_doc'] }));
      expectEsError(shardDoc, 400, 'action_request_validation_exception', 'action_request_validation_exception', /\[_shard_doc\] sort field cannot be used without \[point in time\]/);

      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      const withIndex = await failure(() => client.search({ index: 'items', pit: { id }, sort: [{ rank: 'asc' }] }));
      expectEsError(withIndex, 400, 'action_request_validation_exception');
      expect(withIndex.body.error.reason).toContain('[indices] cannot be used with point in time. Do not specify any index with point in time.');
      const withScroll = await failure(() => client.search({ pit: { id }, scroll: '1m', sort: [{ rank: 'asc' }] }));
      expect(withScroll.status).toBe(400);
      expect(withScroll.body.error.reason).toContain('using [point in time] is not allowed in a scroll context');
      await client.closePointInTime({ id });
    });

    it('answers 404 search_context_missing_exception once the keep-alive has passed, and after close', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '50ms' });
      await sleep(200);
      const expired = await failure(() => client.search({ pit: { id }, sort: [{ rank: 'asc' }] }));
      expectEsError(expired, 404, 'search_phase_execution_exception', 'search_context_missing_exception', /^No search context found for id \[\d+\]$/);

      const open = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      await client.closePointInTime({ id: open.id });
      const closed = await failure(() => client.search({ pit: { id: open.id }, size: 1 }));
      expectEsError(closed, 404, 'search_phase_execution_exception', 'search_context_missing_exception');
    });

    it('renews the keep-alive on each search', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '300ms' });
      for (let k = 0; k < 4; k++) {
        await sleep(150);
        const res: Json = await client.search({ pit: { id, keep_alive: '300ms' }, size: 1, sort: [{ rank: 'asc' }] });
        expect(res.hits.hits).toHaveLength(1);
      }
      await client.closePointInTime({ id });
    });

    it('refuses a malformed id with 400, and closing one too', async () => {
      const search = await failure(() => client.search({ pit: { id: 'not-a-pit' }, sort: [{ rank: 'asc' }] }));
      expectEsError(search, 400, 'illegal_argument_exception');
      const close = await failure(() => client.closePointInTime({ id: 'not-a-pit' }));
      expectEsError(close, 400, 'illegal_argument_exception');
      // A scroll id is not a point in time.
      const scroll: Json = await client.search({ index: 'items', scroll: '1m', size: 1 });
      const crossed = await failure(() => client.search({ pit: { id: scroll._scroll_id }, size: 1 }));
      expect(crossed.status).toBe(400);
      await client.clearScroll({ scroll_id: scroll._scroll_id });
    });

    it('gets 404 once the index under a point in time is deleted', async () => {
      await client.indices.create({ index: 'doomed', settings: { number_of_shards: 2 } });
      await client.index({ index: 'doomed', id: '1', document: { n: 1 }, refresh: true });
      const { id } = await client.openPointInTime({ index: 'doomed', keep_alive: '1m' });
      await client.indices.delete({ index: 'doomed' });
      const gone = await failure(() => client.search({ pit: { id }, size: 1 }));
      expect(gone.status).toBe(404);
      expect(await client.closePointInTime({ id })).toEqual({ succeeded: true, num_freed: 0 });
    });

    it('caps open points in time with 429 and keep-alives at search.max_keep_alive with 400', async () => {
      const capped = limited.client;
      const a = await capped.openPointInTime({ index: 'few', keep_alive: '1m' });
      const b = await capped.openPointInTime({ index: 'few', keep_alive: '1m' });
      const third = await failure(() => capped.openPointInTime({ index: 'few', keep_alive: '1m' }));
      expectEsError(third, 429, 'rejected_execution_exception', 'rejected_execution_exception', /Must be less than or equal to: \[2\]\..*\[search\.max_open_pit_context\]/);

      const tooLong = await failure(() => capped.openPointInTime({ index: 'few', keep_alive: '2m' }));
      expectEsError(tooLong, 400, 'illegal_argument_exception', 'illegal_argument_exception', /Keep alive for request \(2m\) is too large\. It must be less than \(1m\)\./);
      const renewTooLong = await failure(() => capped.search({ pit: { id: a.id, keep_alive: '2m' }, size: 1 }));
      expect(renewTooLong.status).toBe(400);

      await capped.closePointInTime({ id: a.id });
      const c = await capped.openPointInTime({ index: 'few', keep_alive: '1m' });
      await capped.closePointInTime({ id: b.id });
      await capped.closePointInTime({ id: c.id });
    });
  });

  describe('search_after without a point in time', () => {
    it('walks every document once with a unique tiebreaker field, with no extra sort value', async () => {
      const seen: string[] = [];
      let after: Json[] | undefined;
      for (let page = 0; page < 100; page++) {
        const res: Json = await client.search({ index: 'items', size: 53, sort: [{ group: 'asc' }, { n: 'desc' }], ...(after && { search_after: after }) });
        expect(res.pit_id).toBeUndefined();
        if (res.hits.hits.length === 0) break;
        for (const hit of res.hits.hits) expect(hit.sort).toEqual([hit._source.group, hit._source.n]);
        seen.push(...ids(res.hits.hits));
        after = res.hits.hits.at(-1).sort;
      }
      const expected = Array.from({ length: DOCS }, (_, i) => i).sort((a, b) => (doc(a).group < doc(b).group ? -1 : doc(a).group > doc(b).group ? 1 : b - a));
      expect(seen).toEqual(expected.map(String));
    });

    it('refuses from > 0 and a wrong number of values with 400', async () => {
      const from = await failure(() => client.search({ index: 'items', from: 5, size: 5, sort: [{ rank: 'asc' }], search_after: [1] }));
      expectEsError(from, 400, 'search_phase_execution_exception');
      expect(JSON.stringify(from.body)).toContain('`from` parameter must be set to 0 when `search_after` is used.');

      const tooMany = await failure(() => client.search({ index: 'items', sort: [{ rank: 'asc' }], search_after: [1, 2] }));
      expectEsError(tooMany, 400, 'search_phase_execution_exception', 'illegal_argument_exception', 'search_after has 2 value(s) but sort has 1.');
      const tooFew = await failure(() => client.search({ index: 'items', sort: [{ rank: 'asc' }, { n: 'asc' }], search_after: [1] }));
      expectEsError(tooFew, 400, 'search_phase_execution_exception', 'illegal_argument_exception', 'search_after has 1 value(s) but sort has 2.');
      const unsorted = await failure(() => client.search({ index: 'items', search_after: [1] }));
      expect(unsorted.status).toBe(400);
    });

    it('with a point in time, takes values for the sort alone or with the tiebreaker', async () => {
      const { id } = await client.openPointInTime({ index: 'items', keep_alive: '1m' });
      // Without the tiebreaker's value, ES does not add it: paging goes after every hit with rank 2.
      const sortOnly: Json = await client.search({ pit: { id }, sort: [{ rank: 'asc' }], search_after: [2], size: 5 });
      for (const hit of sortOnly.hits.hits) {
        expect(hit._source.rank).toBeGreaterThan(2);
        expect(hit.sort).toHaveLength(1);
      }
      const tooMany = await failure(() => client.search({ pit: { id }, sort: [{ rank: 'asc' }], search_after: [2, 0, 0] }));
      expect(tooMany.status).toBe(400);
      await client.closePointInTime({ id });
    });
  });

  describe('scroll', () => {
    it('helpers.scrollSearch and helpers.scrollDocuments walk everything once and clear the scroll', async () => {
      const seen: string[] = [];
      let batches = 0;
      for await (const res of client.helpers.scrollSearch<Json>({ index: 'items', size: 70, scroll: '30s' })) {
        batches++;
        seen.push(...ids(res.body.hits.hits));
      }
      expect(batches).toBe(Math.ceil(DOCS / 70));
      expect(seen).toHaveLength(DOCS);
      expect(new Set(seen).size).toBe(DOCS);

      const docs: Json[] = [];
      for await (const source of client.helpers.scrollDocuments<Json>({ index: 'items', size: 128, sort: ['_doc'] })) docs.push(source);
      expect(docs.map((d) => d.n).sort((a, b) => a - b)).toEqual(Array.from({ length: DOCS }, (_, i) => i));
      for (const d of docs) expect(d).toEqual(doc(d.n));

      const stats: Json = await client.indices.stats({ index: 'items' });
      expect(stats.indices.items.total.search.open_contexts).toBe(0);
    });

    it('client.scroll pages a sorted scroll in the same order a single search gives', async () => {
      let res: Json = await client.search({ index: 'items', scroll: '1m', size: 64, sort: [{ rank: 'desc' }] });
      expect(res.hits.total).toEqual({ value: DOCS, relation: 'eq' });
      const seen: string[] = [];
      let rounds = 0;
      while (res.hits.hits.length > 0 && rounds++ < 100) {
        seen.push(...ids(res.hits.hits));
        res = await client.scroll({ scroll_id: res._scroll_id, scroll: '1m' });
      }
      const expected = Array.from({ length: DOCS }, (_, i) => i).sort((a, b) => doc(b).rank - doc(a).rank || byShardThenWrite(a, b));
      expect(seen).toEqual(expected.map(String));
      expect(await client.clearScroll({ scroll_id: res._scroll_id })).toEqual({ succeeded: true, num_freed: 1 });
    });

    it('refuses disabling track_total_hits in a scroll', async () => {
      const refused = await failure(() => client.search({ index: 'items', scroll: '1m', size: 5, track_total_hits: false }));
      expectEsError(refused, 400, 'action_request_validation_exception');
      expect(refused.body.error.reason).toContain('disabling [track_total_hits] is not allowed in a scroll context');
    });

    it('refuses search_after in a scroll at the first request, leaving no scroll open', async () => {
      try {
        const refused = await failure(() => client.search({ index: 'items', scroll: '1m', size: 10, sort: [{ rank: 'asc' }], search_after: [1] }));
        expectEsError(refused, 400, 'action_request_validation_exception');
        expect(refused.body.error.reason).toContain('[search_after] cannot be used in a scroll context');
        const stats: Json = await client.indices.stats({ index: 'items' });
        expect(stats.indices.items.total.search.scroll_current).toBe(0);
      } finally {
        await client.clearScroll({ scroll_id: '_all' }).catch(() => undefined);
      }
    });

    it('rest_total_hits_as_int gives a number total on the next batches', async () => {
      const first: Json = await client.search({ index: 'items', scroll: '1m', size: 10, rest_total_hits_as_int: true });
      expect(first.hits.total).toBe(DOCS);
      const second: Json = await client.scroll({ scroll_id: first._scroll_id, scroll: '1m', rest_total_hits_as_int: true });
      expect(second.hits.total).toBe(DOCS);
      expect(second.hits.hits).toHaveLength(10);
      await client.clearScroll({ scroll_id: first._scroll_id });
    });

    it('clearScroll frees one id, a list, and _all; an unknown id is 404 with num_freed 0', async () => {
      const open = async () => ((await client.search({ index: 'items', scroll: '1m', size: 5 })) as Json)._scroll_id as string;
      const one = await open();
      expect(await client.clearScroll({ scroll_id: one })).toEqual({ succeeded: true, num_freed: 1 });

      const [a, b] = [await open(), await open()];
      expect(await client.clearScroll({ scroll_id: [a, b] })).toEqual({ succeeded: true, num_freed: 2 });

      await open();
      await open();
      expect(await client.clearScroll({ scroll_id: '_all' })).toEqual({ succeeded: true, num_freed: 2 });

      const unknown = await failure(() => client.clearScroll({ scroll_id: one }));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ succeeded: true, num_freed: 0 });
      const nothing = await failure(() => client.clearScroll({ scroll_id: '_all' }));
      expect(nothing.status).toBe(404);
      expect(nothing.body).toEqual({ succeeded: true, num_freed: 0 });

      const cleared = await failure(() => client.scroll({ scroll_id: one, scroll: '1m' }));
      expectEsError(cleared, 404, 'search_phase_execution_exception', 'search_context_missing_exception');
      const malformed = await failure(() => client.scroll({ scroll_id: 'garbage', scroll: '1m' }));
      expectEsError(malformed, 400, 'illegal_argument_exception', 'illegal_argument_exception', 'Cannot parse scroll id');
    });

    it('expires a scroll after its keep-alive', async () => {
      const res: Json = await client.search({ index: 'items', scroll: '50ms', size: 5 });
      await sleep(200);
      const expired = await failure(() => client.scroll({ scroll_id: res._scroll_id }));
      expectEsError(expired, 404, 'search_phase_execution_exception', 'search_context_missing_exception');
    });

    it('validates: from, size 0, and a batch over index.max_result_window are 400', async () => {
      const from = await failure(() => client.search({ index: 'items', scroll: '1m', from: 5, size: 5 }));
      expectEsError(from, 400, 'action_request_validation_exception');
      expect(from.body.error.reason).toContain('using [from] is not allowed in a scroll context');
      const zero = await failure(() => client.search({ index: 'items', scroll: '1m', size: 0 }));
      expectEsError(zero, 400, 'action_request_validation_exception');
      expect(zero.body.error.reason).toContain('[size] cannot be [0] in a scroll context');

      await client.indices.create({ index: 'windowed', settings: { number_of_shards: 2, max_result_window: 50 } });
      await load(client, 'windowed', 120, 1, doc, () => undefined);
      const big = await failure(() => client.search({ index: 'windowed', scroll: '1m', size: 51 }));
      expect(big.status).toBe(400);
      expect(JSON.stringify(big.body)).toContain('Batch size is too large, size must be less than or equal to: [50] but was [51].');
      // A scroll goes past the window batch by batch.
      const seen: string[] = [];
      for await (const res of client.helpers.scrollSearch<Json>({ index: 'windowed', size: 50 })) seen.push(...ids(res.body.hits.hits));
      expect(new Set(seen).size).toBe(120);
      // Keep-alive over the node's maximum.
      const tooLong = await failure(() => limited.client.search({ index: 'few', scroll: '2m', size: 1 }));
      expectEsError(tooLong, 400, 'illegal_argument_exception');
    });

    it('caps open scrolls at search.max_open_scroll_context with 429', async () => {
      const capped = limited.client;
      const a: Json = await capped.search({ index: 'few', scroll: '1m', size: 1 });
      const b: Json = await capped.search({ index: 'few', scroll: '1m', size: 1 });
      const third = await failure(() => capped.search({ index: 'few', scroll: '1m', size: 1 }));
      expectEsError(third, 429, 'too_many_scroll_contexts_exception');
      expect(JSON.stringify(third.body)).toContain('Trying to create too many scroll contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_scroll_context] setting.');
      const renewTooLong = await failure(() => capped.scroll({ scroll_id: a._scroll_id, scroll: '2m' }));
      expectEsError(renewTooLong, 400, 'illegal_argument_exception');
      expect(await capped.clearScroll({ scroll_id: [a._scroll_id, b._scroll_id] })).toEqual({ succeeded: true, num_freed: 2 });
      const again: Json = await capped.search({ index: 'few', scroll: '1m', size: 1 });
      await capped.clearScroll({ scroll_id: again._scroll_id });
    });

    it('sees a consistent snapshot while documents are deleted, updated and added', async () => {
      await client.indices.create({ index: 'volatile', settings: { number_of_shards: 3 } });
      await load(client, 'volatile', 300, 3);
      let res: Json = await client.search({ index: 'volatile', scroll: '1m', size: 40, sort: [{ n: 'asc' }] });
      const seen: Json[] = [...res.hits.hits];
      let round = 0;
      while (res.hits.hits.length > 0 && round < 50) {
        // Between batches: delete ten documents ahead of the scroll, rewrite five, add five.
        const operations: Json[] = [];
        for (let k = 0; k < 10; k++) {
          const i = (round * 10 + k + 150) % 300;
          operations.push({ delete: { _index: 'volatile', _id: String(i), ...(routingOf(i) !== undefined && { routing: routingOf(i) }) } });
        }
        for (let k = 0; k < 5; k++) {
          const i = round * 5 + k;
          operations.push({ index: { _index: 'volatile', _id: String(i), ...(routingOf(i) !== undefined && { routing: routingOf(i) }) } }, { ...doc(i), title: 'rewritten' });
          operations.push({ index: { _index: 'volatile', _id: `new-${round}-${k}` } }, doc(1000 + round));
        }
        expect((await client.bulk({ operations, refresh: true })).errors).toBe(false);
        round++;
        res = await client.scroll({ scroll_id: res._scroll_id, scroll: '1m' });
        seen.push(...res.hits.hits);
      }
      expect(ids(seen)).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
      for (const hit of seen) expect(hit._source).toEqual(doc(Number(hit._id)));
      await client.clearScroll({ scroll_id: res._scroll_id });
    });
  });

  describe('reindex within the node', () => {
    it('copies every document of a multi-shard source with _source intact and _routing kept', async () => {
      await client.indices.create({ index: 'copy', settings: { number_of_shards: 3 } });
      const res: Json = await client.reindex({ source: { index: 'items', size: 100 }, dest: { index: 'copy' }, refresh: true });
      expect(res).toMatchObject({ timed_out: false, total: DOCS, created: DOCS, updated: 0, deleted: 0, version_conflicts: 0, noops: 0, failures: [], batches: Math.ceil(DOCS / 100), requests_per_second: -1, throttled_millis: 0 });
      expect(res.took).toBeGreaterThanOrEqual(0);
      expect(res.task).toBeUndefined();

      const copied = await everything(client, 'copy');
      expect(copied.size).toBe(DOCS);
      for (let i = 0; i < DOCS; i++) {
        const got = copied.get(String(i))!;
        expect(got.source).toEqual(doc(i));
        expect(got.routing).toBe(routingOf(i));
      }
      // The kept routing places the document: a routed get finds it.
      const routed = await client.get({ index: 'copy', id: '37', routing: routingOf(37) });
      expect(routed._source).toEqual(doc(37));
      expect(routed._routing).toBe(routingOf(37));

      // A second run updates every document.
      const again: Json = await client.reindex({ source: { index: 'items' }, dest: { index: 'copy' }, refresh: true });
      expect(again).toMatchObject({ total: DOCS, created: 0, updated: DOCS, failures: [] });
    });

    it('runs sliced (slices=auto) and still copies each document once', async () => {
      const res: Json = await client.reindex({ source: { index: 'items', size: 50 }, dest: { index: 'sliced' }, slices: 'auto', refresh: true });
      expect(res).toMatchObject({ total: DOCS, created: DOCS, failures: [] });
      const copied = await everything(client, 'sliced');
      expect(copied.size).toBe(DOCS);
      for (let i = 0; i < DOCS; i++) expect(copied.get(String(i))!.source).toEqual(doc(i));
    });

    it('reports each slice under "slices" when sliced, as ES does', async () => {
      const res: Json = await client.reindex({ source: { index: 'items', size: 50 }, dest: { index: 'sliced2' }, slices: 2, refresh: true });
      expect(res.created).toBe(DOCS);
      expect(Array.isArray(res.slices)).toBe(true);
      expect(res.slices).toHaveLength(2);
      expect(res.slices.map((s: Json) => s.slice_id)).toEqual([0, 1]);
      expect(res.slices.reduce((n: number, s: Json) => n + s.created, 0)).toBe(DOCS);
    });

    it('stops at max_docs, sliced or not', async () => {
      const res: Json = await client.reindex({ source: { index: 'items', size: 50 }, dest: { index: 'capped' }, max_docs: 123, refresh: true });
      expect(res).toMatchObject({ total: 123, created: 123 });
      expect((await client.count({ index: 'capped' })).count).toBe(123);

      const sliced: Json = await client.reindex({ source: { index: 'items', size: 50 }, dest: { index: 'capped2' }, max_docs: 101, slices: 'auto', refresh: true });
      expect(sliced.created).toBe(101);
      expect((await client.count({ index: 'capped2' })).count).toBe(101);
    });

    it('with conflicts=proceed, max_docs counts documents written, not conflicts (ES reads on until max_docs are indexed)', async () => {
      // The destination already holds every document but ten; op_type create conflicts on the rest.
      await client.reindex({ source: { index: 'items' }, dest: { index: 'almost' }, refresh: true });
      const missing = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'];
      const deletes = missing.map((id) => ({ delete: { _index: 'almost', _id: id } }));
      expect((await client.bulk({ operations: deletes, refresh: true })).errors).toBe(false);

      const res: Json = await client.reindex({ source: { index: 'items', size: 100 }, dest: { index: 'almost', op_type: 'create' }, conflicts: 'proceed', max_docs: 5, refresh: true });
      expect(res.failures).toEqual([]);
      expect(res.created).toBe(5);
      expect((await client.count({ index: 'almost' })).count).toBe(DOCS - missing.length + 5);
    });

    it('with op_type create: 409 and failures on conflict; conflicts=proceed counts them and goes on', async () => {
      await client.indices.create({ index: 'partial', settings: { number_of_shards: 2 } });
      await client.index({ index: 'partial', id: '5', document: { taken: true }, refresh: true });

      const abort = await failure(() => client.reindex({ source: { index: 'items' }, dest: { index: 'partial', op_type: 'create' }, refresh: true }));
      expect(abort.status).toBe(409);
      expect(abort.body.version_conflicts).toBe(1);
      expect(abort.body.failures).toHaveLength(1);
      expect(abort.body.failures[0]).toMatchObject({ index: 'partial', id: '5', status: 409, cause: { type: 'version_conflict_engine_exception' } });
      expect(abort.body.failures[0].cause.reason).toMatch(/^\[5\]: version conflict, document already exists \(current version \[1\]\)$/);
      expect((await client.get({ index: 'partial', id: '5' }))._source).toEqual({ taken: true });

      const proceed: Json = await client.reindex({ source: { index: 'items' }, dest: { index: 'partial', op_type: 'create' }, conflicts: 'proceed', refresh: true });
      expect(proceed).toMatchObject({ failures: [] });
      expect(proceed.version_conflicts).toBeGreaterThanOrEqual(1);
      expect(proceed.created + proceed.version_conflicts).toBe(DOCS);
      expect((await client.count({ index: 'partial' })).count).toBe(DOCS);
      expect((await client.get({ index: 'partial', id: '5' }))._source).toEqual({ taken: true });
    });

    it('filters _source by includes and excludes, and copies what source.query selects', async () => {
      await client.reindex({ source: { index: 'items', _source: ['rank', 'group'] }, dest: { index: 'narrow' }, refresh: true });
      const narrow = await everything(client, 'narrow');
      expect(narrow.size).toBe(DOCS);
      for (const [id, { source }] of narrow) expect(source).toEqual({ rank: doc(Number(id)).rank, group: doc(Number(id)).group });

      await client.reindex({ source: { index: 'items', _source: { excludes: ['title'] }, query: { match_all: {} } }, dest: { index: 'untitled' }, refresh: true });
      const untitled = await everything(client, 'untitled');
      expect(untitled.size).toBe(DOCS);
      for (const [id, { source }] of untitled) {
        const { title: _title, ...rest } = doc(Number(id));
        expect(source).toEqual(rest);
      }

      const copied = await client.reindex({ source: { index: 'items', query: { term: { rank: 3 } }, size: 7 }, dest: { index: 'rank3' }, refresh: true });
      const rank3 = await everything(client, 'rank3');
      const wanted = Array.from({ length: DOCS }, (_, i) => i).filter((i) => doc(i).rank === 3);
      expect(copied.total).toBe(wanted.length);
      expect([...rank3.keys()].map(Number).sort((a, b) => a - b)).toEqual(wanted);

      // A query deeppage does not know is a 400, and nothing is copied.
      const bad = await failure(() => client.reindex({ source: { index: 'items', query: { no_such_query: {} } as never }, dest: { index: 'nothing' } }));
      expectEsError(bad, 400, 'parsing_exception', undefined, 'unknown query [no_such_query]');
      expect(await client.indices.exists({ index: 'nothing' })).toBe(false);
    });

    it('validates the request as ES does', async () => {
      const raw = (body: Json, querystring: Record<string, string> = {}) => failure(() => client.transport.request({ method: 'POST', path: '/_reindex', body, querystring }));
      const validation = async (body: Json, query: Record<string, string>, text: string) => {
        const got = await raw(body, query);
        expectEsError(got, 400, 'action_request_validation_exception');
        expect(got.body.error.reason).toContain(text);
      };
      const ok = { source: { index: 'items' }, dest: { index: 'v' } };
      expectEsError(await raw({ ...ok, max_docs: -4 }), 400, 'illegal_argument_exception', undefined, '[max_docs] parameter cannot be negative, found [-4]');
      await validation({ ...ok, max_docs: 1 }, { slices: '2' }, '[max_docs] should be >= [slices]');
      expectEsError(await raw({ ...ok, max_docs: 4 }, { max_docs: '5' }), 400, 'illegal_argument_exception', undefined, '[max_docs] set to two different values [4] and [5]');
      await validation({ source: { index: 'items', from: 1 }, dest: { index: 'v' } }, {}, 'from is not supported in this context');
      await validation({ source: { index: 'items' }, dest: {} }, {}, 'index must be specified');
      await validation({ source: { index: 'items', _source: false }, dest: { index: 'v' } }, {}, '_source:false is not supported in this context');
      await validation({ source: { index: 'items' }, dest: { index: 'items' } }, {}, 'reindex cannot write into an index its reading from [items]');
      expectEsError(await raw(ok, { slices: 'x' }), 400, 'illegal_argument_exception', undefined, /^\[slices\] must be a positive integer or the string "auto"/);
      expectEsError(await raw(ok, { requests_per_second: '0' }), 400, 'illegal_argument_exception', undefined, '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.');
      expectEsError(await raw({ ...ok, conflicts: 'cat' }), 400, 'illegal_argument_exception', undefined, 'conflicts may only be "proceed" or "abort" but was [cat]');
      const junk = await raw({ ...ok, junk: 1 });
      expect(junk.status).toBe(400);
      expect(junk.body.error.reason).toContain('unknown field [junk]');
      const missing = await failure(() => client.reindex({ source: { index: 'no-such' }, dest: { index: 'v' } }));
      expectEsError(missing, 404, 'index_not_found_exception');
      expect(await client.indices.exists({ index: 'v' })).toBe(false);
    });
  });

  describe('reindex as a task', () => {
    it('wait_for_completion=false answers a task id; tasks.get shows progress, then the response', async () => {
      const started: Json = await client.reindex({ source: { index: 'items', size: 50 }, dest: { index: 'tasked' }, wait_for_completion: false, requests_per_second: 600, refresh: true });
      expect(started.task).toMatch(/^.+:\d+$/);
      const running: Json = await client.tasks.get({ task_id: started.task });
      expect(running.completed).toBe(false);
      expect(running.task).toMatchObject({ action: 'indices:data/write/reindex', cancellable: true, cancelled: false });
      expect(running.task.description).toBe('reindex from [items] to [tasked]');
      expect(running.task.status.total).toBe(DOCS);
      expect(running.task.status.created).toBeLessThan(DOCS);
      expect(running.task.status.requests_per_second).toBe(600);

      const listed: Json = await client.tasks.list({ actions: '*reindex', detailed: true });
      const nodes = Object.values(listed.nodes) as Json[];
      expect(Object.keys(nodes[0].tasks)).toContain(started.task);

      let done: Json = running;
      for (let k = 0; k < 100 && !done.completed; k++) {
        await sleep(50);
        done = await client.tasks.get({ task_id: started.task });
      }
      expect(done.completed).toBe(true);
      expect(done.response).toMatchObject({ total: DOCS, created: DOCS, failures: [], batches: Math.ceil(DOCS / 50) });
      expect(done.response.throttled_millis).toBeGreaterThan(0);
      expect((await client.count({ index: 'tasked' })).count).toBe(DOCS);
      // The stored result stays readable.
      expect((await client.tasks.get({ task_id: started.task })).response).toEqual(done.response);
    });

    it('tasks.cancel stops a throttled reindex between batches: "canceled: by user request", copies kept', async () => {
      const started: Json = await client.reindex({ source: { index: 'items', size: 20 }, dest: { index: 'cancelled' }, wait_for_completion: false, requests_per_second: 40 });
      let status: Json;
      for (let k = 0; k < 100; k++) {
        status = await client.tasks.get({ task_id: started.task });
        if (status.task.status.created >= 20) break;
        await sleep(20);
      }
      expect(status.completed).toBe(false);
      const cancel: Json = await client.tasks.cancel({ task_id: started.task });
      const nodes = Object.values(cancel.nodes ?? {}) as Json[];
      expect(nodes[0]?.tasks?.[started.task]).toBeDefined();

      const done: Json = await client.tasks.get({ task_id: started.task, wait_for_completion: true, timeout: '10s' });
      expect(done.completed).toBe(true);
      expect(done.response.canceled).toBe('by user request');
      expect(done.response.created).toBeGreaterThanOrEqual(20);
      expect(done.response.created).toBeLessThan(DOCS);
      await client.indices.refresh({ index: 'cancelled' });
      const kept = await everything(client, 'cancelled');
      expect(kept.size).toBe(done.response.created);
      for (const [id, { source }] of kept) expect(source).toEqual(doc(Number(id)));
    });

    it('tasks.cancel by action pattern cancels a running reindex too', async () => {
      const started: Json = await client.reindex({ source: { index: 'items', size: 10 }, dest: { index: 'cancelled2' }, wait_for_completion: false, requests_per_second: 20 });
      const cancel: Json = await client.tasks.cancel({ actions: '*reindex' });
      const nodes = Object.values(cancel.nodes ?? {}) as Json[];
      expect(Object.keys(nodes[0]?.tasks ?? {})).toEqual([started.task]);
      const done: Json = await client.tasks.get({ task_id: started.task, wait_for_completion: true, timeout: '10s' });
      expect(done.response.canceled).toBe('by user request');
      expect(done.response.created).toBeLessThan(DOCS);
    });

    it('tasks.get of an unknown task is 404', async () => {
      const started: Json = await client.reindex({ source: { index: 'items' }, dest: { index: 'tasked' }, wait_for_completion: false });
      const node = String(started.task).split(':')[0];
      await client.tasks.get({ task_id: started.task, wait_for_completion: true });
      const unknown = await failure(() => client.tasks.get({ task_id: `${node}:999999` }));
      expectEsError(unknown, 404, 'resource_not_found_exception');
    });
  });

  describe('reindex from a remote cluster', () => {
    const REMOTE_DOCS = 350;
    const remoteRouting = (i: number) => (i % 25 === 0 ? `rr${i % 2}` : undefined);

    beforeAll(async () => {
      await remote.client.indices.create({ index: 'src', settings: { number_of_shards: 3 } });
      await load(remote.client, 'src', REMOTE_DOCS, 3, doc, remoteRouting);
    });

    it('the remote reports an Elasticsearch 8 version on GET / (reindex-from-remote shapes its requests by it)', async () => {
      const info = await remote.client.info();
      expect(info.version.number).toMatch(/^8\.\d+\.\d+$/);
    });

    it('copies everything from the remote with _source intact and routing kept, then clears its scroll', async () => {
      const res: Json = await client.reindex({ source: { remote: { host: remote.server.url }, index: 'src', size: 100 }, dest: { index: 'copy-remote' }, refresh: true });
      expect(res).toMatchObject({ timed_out: false, total: REMOTE_DOCS, created: REMOTE_DOCS, failures: [], batches: Math.ceil(REMOTE_DOCS / 100) });
      const copied = await everything(client, 'copy-remote');
      expect(copied.size).toBe(REMOTE_DOCS);
      for (let i = 0; i < REMOTE_DOCS; i++) {
        expect(copied.get(String(i))!.source).toEqual(doc(i));
        expect(copied.get(String(i))!.routing).toBe(remoteRouting(i));
      }
      const stats: Json = await remote.client.indices.stats({ index: 'src' });
      expect(stats.indices.src.total.search.open_contexts).toBe(0);
      expect((await nodeIndicesStats(remote.client)).search.open_contexts).toBe(0);
    });

    it('passes the query and _source filter to the remote', async () => {
      const res: Json = await client.reindex({ source: { remote: { host: remote.server.url }, index: 'src', query: { match_all: {} }, _source: ['n'] }, dest: { index: 'copy-remote-1' }, refresh: true });
      expect(res.created).toBe(REMOTE_DOCS);
      for (const [id, { source }] of await everything(client, 'copy-remote-1')) expect(source).toEqual({ n: Number(id) });
    });

    it('runs from a remote as a task too', async () => {
      const started: Json = await client.reindex({ source: { remote: { host: remote.server.url }, index: 'src', size: 50 }, dest: { index: 'copy-remote-task' }, wait_for_completion: false });
      const done: Json = await client.tasks.get({ task_id: started.task, wait_for_completion: true, timeout: '10s' });
      expect(done.completed).toBe(true);
      expect(done.response).toMatchObject({ created: REMOTE_DOCS, failures: [] });
      expect(done.task.description).toMatch(/^reindex from \[host=127\.0\.0\.1 port=\d+ query=.+\]\[src\] to \[copy-remote-task\]$/s);
    });

    it('refuses a host not on reindex.remote.whitelist, and slices over a remote', async () => {
      const port = new URL(remote.server.url).port;
      const refused = await failure(() => client.reindex({ source: { remote: { host: `http://localhost:${port}` }, index: 'src' }, dest: { index: 'nope' } }));
      expectEsError(refused, 400, 'illegal_argument_exception', undefined, `[localhost:${port}] not whitelisted in reindex.remote.whitelist`);
      // The remote server itself allows no remote at all.
      const none = await failure(() => remote.client.reindex({ source: { remote: { host: main.server.url }, index: 'items' }, dest: { index: 'nope' } }));
      expect(none.status).toBe(400);
      const sliced = await failure(() => client.reindex({ source: { remote: { host: remote.server.url }, index: 'src' }, dest: { index: 'nope' }, slices: 2 }));
      expectEsError(sliced, 400, 'action_request_validation_exception');
      expect(sliced.body.error.reason).toContain("reindex from remote sources doesn't support slices > 1 but was [2]");
      const badHost = await failure(() => client.reindex({ source: { remote: { host: 'http' }, index: 'src' }, dest: { index: 'nope' } }));
      expect(badHost.status).toBe(400);
      expect(await client.indices.exists({ index: 'nope' })).toBe(false);
    });

    it('fails with the remote index missing, and leaves no scroll behind', async () => {
      const missing = await failure(() => client.reindex({ source: { remote: { host: remote.server.url }, index: 'absent' }, dest: { index: 'nope' } }));
      expect(missing.status).toBe(404);
      expect((await nodeIndicesStats(remote.client)).search.open_contexts).toBe(0);
    });
  });

  describe('afterwards', () => {
    it('holds no open contexts and retains no _source once everything is closed or expired', async () => {
      // Everything the tests left behind is closed, cleared, or expires now.
      await sleep(100);
      await client.indices.refresh();
      const indices = await nodeIndicesStats(client);
      expect(indices.search.open_contexts).toBe(0);
      expect(indices.search.scroll_current).toBe(0);
      expect(indices.retained_sources.retained).toBe(0);
      const stats: Json = await client.indices.stats({ index: 'items' });
      expect(stats.indices.items.total.search.open_contexts).toBe(0);
      expect(stats._all.total.search.open_contexts).toBe(0);

      const limitedStats = await nodeIndicesStats(limited.client);
      expect(limitedStats.search.open_contexts).toBe(0);
    });
  });
});
