/**
 * What the cluster itself delivers to a rank index: a point in time walked in sort order with
 * `search_after`, sort values only (`_source: false`), 10,000 hits a request, every answer parsed;
 * in one walk (its sort values checked against the data set), and in slices walked side by side
 * (each slice's values in order, every document once over the slices), where the cluster takes
 * `slice`.
 */
import { esOk, esRequest } from '../lib/es-client.ts';
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

export interface SlicedWalk extends KeyWalk {
  slices: number;
}

/** The walk in `slices` slices side by side; the cluster's refusal (its reason) when it takes no `slice`. */
export async function walkKeysSliced(url: string, index: string, key: SortKey, slices: number): Promise<SlicedWalk | { refused: string }> {
  const { body: opened } = await esOk<{ id: string }>(url, 'POST', `/${encodeURIComponent(index)}/_pit?keep_alive=1m`);
  const pit = opened.id;
  const before = (a: unknown, b: unknown) => (key.order === 'asc' ? (a as number) < (b as number) : (a as number) > (b as number));
  let requests = 0;
  const started = performance.now();
  const walkSlice = async (id: number): Promise<number | { refused: string }> => {
    let docs = 0;
    let after: unknown[] | undefined;
    for (;;) {
      const body = { size: WALK_SIZE, pit: { id: pit, keep_alive: '1m' }, slice: { id, max: slices }, sort: [{ [key.field]: key.order }], _source: false, track_total_hits: false, ...(after && { search_after: after }) };
      const answer = await esRequest(url, 'POST', '/_search', JSON.stringify(body));
      requests++;
      if (answer.status === 400 && docs === 0) return { refused: JSON.stringify((answer.json as { error?: { reason?: unknown } }).error?.reason ?? answer.json).slice(0, 200) };
      if (answer.status !== 200) throw new WrongAnswer(`sliced key walk of ${index}: slice ${id}: status ${answer.status}: ${JSON.stringify(answer.json).slice(0, 300)}`);
      const hits = (answer.json as { hits: { hits: { sort: unknown[] }[] } }).hits.hits;
      for (let i = 0; i < hits.length; i++) {
        const previous = i > 0 ? hits[i - 1].sort[0] : after?.[0];
        if (previous !== undefined && before(hits[i].sort[0], previous)) throw new WrongAnswer(`sliced key walk of ${index}: slice ${id} out of order at ${JSON.stringify(hits[i].sort)}`);
      }
      docs += hits.length;
      if (hits.length < WALK_SIZE) return docs;
      after = hits[hits.length - 1].sort;
    }
  };
  const walked = await Promise.all(Array.from({ length: slices }, (_, id) => walkSlice(id)));
  const ms = performance.now() - started;
  await esOk(url, 'DELETE', '/_pit', JSON.stringify({ id: pit }));
  const refused = walked.find((w): w is { refused: string } => typeof w !== 'number');
  if (refused) return refused;
  const docs = (walked as number[]).reduce((a, b) => a + b, 0);
  if (docs !== key.ranked.length) throw new WrongAnswer(`sliced key walk of ${index}: ${docs} documents over ${slices} slices, expected ${key.ranked.length}`);
  return { docs, ms, requests, slices };
}
