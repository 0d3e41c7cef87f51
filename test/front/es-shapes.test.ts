/**
 * The front against a cluster that answers in Elasticsearch's own shapes, not deeppage's: a small
 * stand-in written here from the facts in ../shared/reference (es-semantics.md, front-mode.md): point
 * in time ids as opaque base64 that change between answers, `pit_id` in every answer of a point in
 * time, the `_shard_doc` tie-breaker as a long (shard index above the 32 bits of the doc id), a
 * missing long shown as `9223372036854775807` (Long.MAX_VALUE, beyond 2^53), `X-Elastic-Product:
 * Elasticsearch` on every answer, and the 10,000-hit window's 400. The official client pages
 * through the front past the window; sort values come back digit for digit.
 */
import { Client } from '@elastic/elasticsearch';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, start, type Started } from './processes.ts';

const LONG_MAX = '9223372036854775807';
const WINDOW = 20;
const SHARDS = 3;

interface Doc {
  id: string;
  shard: number;
  doc: number;
  n?: number;
}

/** 100 documents over 3 shards, `n` with ties, every seventh without it. */
const DOCS: Doc[] = Array.from({ length: 100 }, (_, i) => ({ id: `d${i}`, shard: i % SHARDS, doc: Math.floor(i / SHARDS), ...(i % 7 === 0 ? {} : { n: (i * 37) % 11 }) }));

/** The order of `sort: [{n: asc}]` in a point in time: missing last (as Long.MAX_VALUE), then `_shard_doc`. */
const shardDoc = (d: Doc) => d.shard * 2 ** 32 + d.doc;
const key = (d: Doc): [bigint, number] => [d.n === undefined ? BigInt(LONG_MAX) : BigInt(d.n), shardDoc(d)];
const ORDERED = [...DOCS].sort((a, b) => {
  const [x, y] = [key(a), key(b)];
  return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1];
});

const requests: { method: string; url: string; body: any }[] = [];
let pits = 0;
/** Open points in time by every id they were given: an id's prefix (before the dot) names the point in time. */
const open = new Set<string>();
const pitOf = (id: string) => id.split('.')[0];
/** Every id given, in order. */
const issued: string[] = [];

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'X-elastic-product': 'Elasticsearch' });
  res.end(text);
}

function hitText(d: Doc, sortText: string, source: boolean): string {
  return `{"_index":"es","_id":"${d.id}","_score":null${source ? `,"_source":{"n":${d.n ?? 'null'}}` : ''},"sort":${sortText}}`;
}

/** A search on the stand-in: PIT or not, search_after (exact text), size, from within the window. */
function search(body: any, res: ServerResponse): void {
  const pit = body.pit?.id as string | undefined;
  if (pit !== undefined && !open.has(pitOf(pit))) return reply(res, 404, '{"error":{"root_cause":[{"type":"search_context_missing_exception","reason":"No search context found"}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":404}');
  const from = body.from ?? 0;
  const size = body.size ?? 10;
  if (from + size > WINDOW) return reply(res, 400, `{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Result window is too large, from + size must be less than or equal to: [${WINDOW}] but was [${from + size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":400}`);
  if (body.slice) return reply(res, 400, '{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"[slice] is not allowed here"}],"type":"illegal_argument_exception","reason":"[slice] is not allowed here"},"status":400}');
  let docs = ORDERED;
  if (body.search_after) {
    const [n, sd] = body.search_after as [string, number];
    const after: [bigint, number] = [BigInt(n), sd];
    docs = docs.filter((d) => {
      const k = key(d);
      return k[0] > after[0] || (k[0] === after[0] && k[1] > after[1]);
    });
  }
  const page = docs.slice(from, from + size);
  const sortText = (d: Doc) => `[${d.n === undefined ? LONG_MAX : d.n}${pit ? `,${shardDoc(d)}` : ''}]`;
  const hits = page.map((d) => hitText(d, sortText(d), body._source !== false)).join(',');
  const total = body.track_total_hits === false ? '' : `"total":{"value":${DOCS.length},"relation":"eq"},`;
  // Every answer in a point in time gives a new id for it (es#135231): the front must use the newest.
  let id = '';
  if (pit) {
    // The old id still names it, as in Elasticsearch, but the newest is the one to use.
    id = `${pitOf(pit)}.${++pits}`;
    issued.push(id);
  }
  // A `terms`-like aggregation of the stand-in's own: documents per n, over every match.
  const aggregations = body.aggs ? `,"aggregations":{"per_n":{"buckets":[${[...new Set(DOCS.map((d) => d.n ?? null))].map((n) => `{"key":${n},"doc_count":${DOCS.filter((d) => (d.n ?? null) === n).length}}`).join(',')}]}}` : '';
  reply(res, 200, `{${pit ? `"pit_id":"${id}",` : ''}"took":1,"timed_out":false,"_shards":{"total":${SHARDS},"successful":${SHARDS},"skipped":0,"failed":0},"hits":{${total}"max_score":null,"hits":[${hits}]}${aggregations}}`);
}

function handle(req: IncomingMessage, res: ServerResponse, text: string): void {
  const body = text === '' ? {} : JSON.parse(text.replace(new RegExp(LONG_MAX, 'g'), `"${LONG_MAX}"`));
  requests.push({ method: req.method!, url: req.url!, body });
  const path = req.url!.split('?')[0];
  if (path === '/') return reply(res, 200, '{"name":"es1","cluster_name":"es","version":{"number":"8.19.0","build_flavor":"default"},"tagline":"You Know, for Search"}');
  if (req.method === 'POST' && path === '/es/_pit') {
    const id = `${Buffer.from(`pit-${++pits}`).toString('base64')}.0`;
    open.add(pitOf(id));
    issued.push(id);
    return reply(res, 200, `{"id":"${id}","_shards":{"total":${SHARDS},"successful":${SHARDS},"skipped":0,"failed":0}}`);
  }
  if (req.method === 'DELETE' && path === '/_pit') {
    const freed = open.delete(pitOf(body.id));
    return reply(res, 200, `{"succeeded":true,"num_freed":${freed ? 1 : 0}}`);
  }
  if (path === '/_search' || path === '/es/_search') return search(body, res);
  // The mapping a cold page reads before it bisects; the bisection's _count is not in this stand-in.
  if (req.method === 'GET' && path === '/es/_mapping') return reply(res, 200, '{"es":{"mappings":{"properties":{"n":{"type":"long"}}}}}');
  reply(res, 400, '{"error":{"type":"illegal_argument_exception","reason":"not in this stand-in"},"status":400}');
}

let es: Server;
let front: Started;
beforeAll(async () => {
  es = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => handle(req, res, text));
  });
  es.listen(0, '127.0.0.1');
  await once(es, 'listening');
  front = await start(['-E', `front.hosts=http://127.0.0.1:${(es.address() as { port: number }).port}`]);
});
afterAll(async () => {
  await killAll();
  es.close();
});

describe('a cluster answering as Elasticsearch does', () => {
  it('is paged through the front past its window with the official client, sort values digit for digit', async () => {
    const client = new Client({ node: front.url });
    const sort = [{ n: 'asc' as const }];
    // The first deep page: cold (found inside a tie, in a point in time of its own, kept a minute),
    // and only then is the rank index built: its point in time is opened once the page's requests
    // are done, which its walk would otherwise slow down.
    await client.search({ index: 'es', sort, from: 40, size: 5 });
    const isBuildPit = (r: { method: string; url: string }) => r.method === 'POST' && r.url.startsWith('/es/_pit') && !r.url.includes('keep_alive=1m');
    for (let i = 0; i < 200 && !requests.some(isBuildPit); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const closed = requests.findIndex((r) => r.method === 'DELETE' && r.url === '/_pit');
    expect(closed).toBeGreaterThan(requests.findIndex((r) => r.url.startsWith('/es/_mapping')));
    expect(requests.findIndex(isBuildPit)).toBeGreaterThan(closed);
    for (let i = 0; i < 200 && (await (await fetch(`${front.url}/_front/stats`)).json()).rank_indices.count === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    for (let from = 0; from < DOCS.length; from += 7) {
      const answer = await client.search({ index: 'es', sort, from, size: 7 }, { meta: true });
      expect(answer.headers['x-deeppage-page']).toBe('warm');
      expect(answer.body.hits.hits.map((hit) => hit._id)).toEqual(ORDERED.slice(from, from + 7).map((d) => d.id));
      expect((answer.body as { pit_id?: string }).pit_id).toBeUndefined();
      expect(answer.body.hits.total).toEqual({ value: 100, relation: 'eq' });
    }
    // The raw text: Long.MAX_VALUE as the cluster wrote it, no tie-breaker.
    const raw = await (await fetch(`${front.url}/es/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sort, from: 95, size: 5 }) })).text();
    expect(raw).toContain(`"sort":[${LONG_MAX}]`);
    expect(raw).not.toContain('pit_id');
    // Every page asked in the newest id the cluster gave, and search_after carried Long.MAX_VALUE exactly.
    const pages = requests.filter((r) => r.url.split('?')[0] === '/_search' && r.body.size !== 0 && r.body._source !== false);
    expect(pages.every((r) => issued.includes(r.body.pit.id))).toBe(true);
    for (let i = 1; i < pages.length; i++) expect(issued.indexOf(pages[i].body.pit.id)).toBeGreaterThanOrEqual(issued.indexOf(pages[i - 1].body.pit.id));
    expect(pages.at(-1)!.body.search_after[0]).toBe(LONG_MAX);
  });

  it('joins a search\'s aggregations, asked in the same point in time with size 0, to its page, cold or warm', async () => {
    // Cold, past the window, with a sort no rank index holds yet: the page waits for one, aggregations and all.
    const cold = await fetch(`${front.url}/es/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sort: [{ n: 'desc' }], from: 50, size: 3, aggs: { per_n: { terms: { field: 'n' } } } }) });
    expect(cold.headers.get('x-deeppage-page')).toBe('cold');
    expect((await cold.json()).aggregations.per_n.buckets.length).toBeGreaterThan(0);
    const aggs = { per_n: { terms: { field: 'n' } } };
    const answer = await (await fetch(`${front.url}/es/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sort: [{ n: 'asc' }], from: 50, size: 3, aggs }) })).json();
    expect(answer.hits.hits.map((hit: { _id: string }) => hit._id)).toEqual(ORDERED.slice(50, 53).map((d) => d.id));
    expect(answer.aggregations.per_n.buckets.reduce((sum: number, b: { doc_count: number }) => sum + b.doc_count, 0)).toBe(DOCS.length);
    const asked = requests.filter((r) => r.body.aggs !== undefined).at(-1)!;
    expect(asked.body).toMatchObject({ size: 0, aggs, track_total_hits: false });
    expect(asked.body.pit.id).toBeDefined();
    expect(asked.body.sort).toBeUndefined();
  });

  it('walks unsliced when the cluster refuses slices, and closes its point in time at shutdown', async () => {
    const walks = requests.filter((r) => r.url.split('?')[0] === '/_search' && r.body._source === false);
    expect(walks.some((r) => r.body.slice !== undefined)).toBe(true);
    expect(walks.some((r) => r.body.slice === undefined)).toBe(true);
    // One request learns the window (the cluster refuses it); every other asks for at most one window.
    expect(walks.filter((r) => r.body.size > WINDOW).length).toBeLessThanOrEqual(1);
    front.child.kill('SIGTERM');
    await once(front.child, 'exit');
    expect(open.size).toBe(0);
    expect(requests.some((r) => r.method === 'DELETE' && r.url === '/_pit')).toBe(true);
  });
});
