/**
 * What the cluster itself delivers to a rank index: a point in time walked in sort order with
 * `search_after`, sort values only (`_source: false`), 10,000 hits a request, every answer parsed;
 * in one walk (its sort values checked against the data set), and in slices walked side by side
 * (each slice's values in order, every document once over the slices), where the cluster takes
 * `slice`.
 */
import { esOk, esRequest } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Call } from './client.ts';
import type { SortKey } from './pages.ts';

export interface KeyWalk {
  docs: number;
  ms: number;
  requests: number;
}

const WALK_SIZE = 10_000;

/**
 * Where a page's `search_after` starts, in a point in time the walk leaves open: the sort values
 * (with the `_shard_doc` tie-breaker) of the hit at rank from − 1, for each from kept. What a warm
 * page of the front asks the cluster, asked directly.
 */
export interface Positions {
  pit: string;
  /** By from; none for from 0, which starts at the top. */
  afters: Map<number, unknown[]>;
}

/** The walk; `keep` the froms whose positions to keep, in a point in time left open (close it with {@link closePit}). */
export async function walkKeys(url: string, index: string, key: SortKey, keep: number[] = []): Promise<{ walk: KeyWalk; positions: Positions }> {
  const { body: opened } = await esOk<{ id: string }>(url, 'POST', `/${encodeURIComponent(index)}/_pit?keep_alive=${KEEP_ALIVE}`);
  let pit = opened.id;
  let docs = 0;
  let requests = 0;
  let after: unknown[] | undefined;
  const afters = new Map<number, unknown[]>();
  const wanted = new Set(keep.filter((from) => from > 0).map((from) => from - 1));
  const started = performance.now();
  for (;;) {
    const body = { size: WALK_SIZE, pit: { id: pit, keep_alive: KEEP_ALIVE }, sort: [{ [key.field]: key.order }], _source: false, track_total_hits: false, ...(after && { search_after: after }) };
    const { body: answer } = await esOk<{ pit_id: string; hits: { hits: { sort: unknown[] }[] } }>(url, 'POST', '/_search', JSON.stringify(body));
    requests++;
    const hits = answer.hits.hits;
    for (const hit of hits) {
      if (hit.sort[0] !== key.ranked[docs]) throw new WrongAnswer(`key walk of ${index}: rank ${docs} has ${JSON.stringify(hit.sort[0])}, expected ${JSON.stringify(key.ranked[docs])}`);
      if (wanted.has(docs)) afters.set(docs + 1, hit.sort);
      docs++;
    }
    pit = answer.pit_id;
    if (hits.length < WALK_SIZE) break;
    after = hits[hits.length - 1].sort;
  }
  const ms = performance.now() - started;
  if (keep.length === 0) await closePit(url, pit);
  if (docs !== key.ranked.length) throw new WrongAnswer(`key walk of ${index}: ${docs} documents, expected ${key.ranked.length}`);
  return { walk: { docs, ms, requests }, positions: { pit, afters } };
}

export async function closePit(url: string, pit: string): Promise<void> {
  await esOk(url, 'DELETE', '/_pit', JSON.stringify({ id: pit }));
}

/** Long enough for a sweep, which asks pages in the walk's point in time. */
const KEEP_ALIVE = '1h';

/** The page at `from` as the front asks it of a warm rank index: one `search_after` in the point in time. */
export function searchAfterCall(positions: Positions, key: SortKey, from: number, size: number): Call {
  const after = positions.afters.get(from);
  const body = { size, pit: { id: positions.pit, keep_alive: KEEP_ALIVE }, sort: [{ [key.field]: key.order }], track_total_hits: false, ...(after && { search_after: after }) };
  return { method: 'POST', path: '/_search', body: JSON.stringify(body) };
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
