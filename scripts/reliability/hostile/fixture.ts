/**
 * The data hostile requests run against, through any way of sending a request (the app in
 * process, or a socket): a fixture index that must never change, a scratch index writes may go
 * to, and a point in time and a scroll over the fixture, whose ids the requests use. A snapshot
 * reads back everything of the fixture that a write could change.
 */
import type { HostileTargets } from './requests.ts';

export interface Sent {
  status: number;
  body: string;
}

/** Sends one request with a JSON (or, for `_bulk`, NDJSON) body. */
export type Send = (method: string, target: string, body?: string) => Promise<Sent>;

export const FIXTURE = 'fixture';
export const SCRATCH = ['scratch', 'scratch-2', 'ünï', '😀', 'scratch.dots', 'a'.repeat(255)];
const DOCS = 24;
export const FIXTURE_IDS = Array.from({ length: DOCS }, (_, i) => (i % 5 === 4 ? `id-é-${i}` : String(i)));

async function ok(send: Send, method: string, target: string, body?: string): Promise<Record<string, unknown>> {
  const res = await send(method, target, body);
  if (res.status >= 300) throw new Error(`fixture: ${method} ${target} answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** Creates the fixture and scratch indices and opens the cursors; returns what the generator needs besides the server's own settings. */
export async function loadFixture(send: Send): Promise<Pick<HostileTargets, 'fixture' | 'fixtureIds' | 'scratch' | 'pitId' | 'scrollId' | 'spare' | 'nodeId'>> {
  await ok(send, 'PUT', `/${FIXTURE}`, JSON.stringify({
    settings: { number_of_shards: 2 },
    mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, title: { type: 'text' }, date: { type: 'date' }, flag: { type: 'boolean' }, obj: { properties: { x: { type: 'long' } } } } },
  }));
  const lines = FIXTURE_IDS.flatMap((id, i) => [
    JSON.stringify({ index: { _id: id } }),
    JSON.stringify({ n: i, tag: ['a', 'b', 'c'][i % 3], title: i % 2 ? 'quick fox' : 'lazy dog', date: `2024-01-${String(1 + i).padStart(2, '0')}`, flag: i % 2 === 0, obj: { x: -i } }),
  ]);
  // Two batches, so that each shard holds two segments.
  for (const half of [lines.slice(0, DOCS), lines.slice(DOCS)]) {
    const res = await ok(send, 'POST', `/${FIXTURE}/_bulk?refresh=true`, half.join('\n') + '\n');
    if (res.errors !== false) throw new Error(`fixture: bulk failed: ${JSON.stringify(res)}`);
  }
  await ok(send, 'PUT', `/${SCRATCH[0]}/_doc/1?refresh=true`, JSON.stringify({ n: 1, tag: 'a' }));
  const pit = async () => (await ok(send, 'POST', `/${FIXTURE}/_pit?keep_alive=1h`)).id as string;
  const scroll = async () => (await ok(send, 'POST', `/${FIXTURE}/_search?scroll=1h&size=2`))._scroll_id as string;
  const [nodeId] = Object.keys((await ok(send, 'GET', '/_nodes/stats')).nodes as object);
  return { fixture: FIXTURE, fixtureIds: FIXTURE_IDS, scratch: SCRATCH, nodeId, pitId: await pit(), scrollId: await scroll(), spare: { pitId: await pit(), scrollId: await scroll() } };
}

/** Everything of the fixture a write could change: each document as GET shows it, mappings, settings, the count, and what searches find. */
export async function fixtureSnapshot(send: Send): Promise<string[]> {
  const targets = [
    `/${FIXTURE}`,
    `/${FIXTURE}/_count`,
    `/${FIXTURE}/_search?size=100&sort=n:asc&filter_path=hits.total,hits.hits._id,hits.hits._source,hits.hits.sort`,
    `/${FIXTURE}/_search?q=title:quick&size=100&sort=n:desc&filter_path=hits.total,hits.hits._id`,
    ...FIXTURE_IDS.map((id) => `/${FIXTURE}/_doc/${encodeURIComponent(id)}`),
  ];
  const out: string[] = [];
  for (const target of targets) {
    const res = await send('GET', target);
    out.push(`${target} ${res.status} ${res.body}`);
  }
  return out;
}
