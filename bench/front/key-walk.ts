/**
 * What the cluster itself delivers to a rank index: a point in time walked in sort order with
 * `search_after`, sort values only (`_source: false`), 10,000 hits a request, one slice (the
 * stand-in refuses `slice`), every answer parsed and the sort values checked against the data set.
 */
import { esOk } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { SortKey } from './pages.ts';

export interface KeyWalk {
  docs: number;
  ms: number;
  requests: number;
}

const WALK_SIZE = 10_000;

export async function walkKeys(url: string, index: string, key: SortKey): Promise<KeyWalk> {
  const { body: opened } = await esOk<{ id: string }>(url, 'POST', `/${encodeURIComponent(index)}/_pit?keep_alive=1m`);
  let pit = opened.id;
  let docs = 0;
  let requests = 0;
  let after: unknown[] | undefined;
  const started = performance.now();
  for (;;) {
    const body = { size: WALK_SIZE, pit: { id: pit, keep_alive: '1m' }, sort: [{ [key.field]: key.order }], _source: false, track_total_hits: false, ...(after && { search_after: after }) };
    const { body: answer } = await esOk<{ pit_id: string; hits: { hits: { sort: unknown[] }[] } }>(url, 'POST', '/_search', JSON.stringify(body));
    requests++;
    const hits = answer.hits.hits;
    for (const hit of hits) {
      if (hit.sort[0] !== key.ranked[docs]) throw new WrongAnswer(`key walk of ${index}: rank ${docs} has ${JSON.stringify(hit.sort[0])}, expected ${JSON.stringify(key.ranked[docs])}`);
      docs++;
    }
    pit = answer.pit_id;
    if (hits.length < WALK_SIZE) break;
    after = hits[hits.length - 1].sort;
  }
  const ms = performance.now() - started;
  await esOk(url, 'DELETE', '/_pit', JSON.stringify({ id: pit }));
  if (docs !== key.ranked.length) throw new WrongAnswer(`key walk of ${index}: ${docs} documents, expected ${key.ranked.length}`);
  return { docs, ms, requests };
}
