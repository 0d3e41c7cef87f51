/**
 * Bulk retrieval, the two ways the service offers, over HTTP on the loaded index:
 * - `_reindex` of the whole index into a new one (the seed's "reindexing"), timed from the request
 *   to its answer (`refresh=true`, so the copy is searchable when it answers);
 * - a walk of a point in time with `search_after` on `_shard_doc`, `size` hits per request with
 *   their `_source`, each answer parsed and checked (hits in order, none twice, all of them).
 */
import { esCount, esOk } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';

export interface Retrieval {
  docs: number;
  ms: number;
  /** Requests made (one for a reindex). */
  requests: number;
}

interface ReindexAnswer {
  total: number;
  created: number;
  batches: number;
  failures: unknown[];
}

export async function reindexAll(url: string, source: string, dest: string, docs: number, slices: number | 'auto'): Promise<Retrieval & { batches: number }> {
  const body = JSON.stringify({ source: { index: source }, dest: { index: dest } });
  const started = performance.now();
  const { body: answer } = await esOk<ReindexAnswer>(url, 'POST', `/_reindex?refresh=true&slices=${slices}`, body);
  const ms = performance.now() - started;
  if (answer.created !== docs || answer.failures.length > 0) throw new WrongAnswer(`_reindex ${source} → ${dest}: created ${answer.created} of ${docs}, ${answer.failures.length} failures`);
  const copied = await esCount(url, dest);
  if (copied !== docs) throw new WrongAnswer(`${dest}: _count is ${copied} after reindexing ${docs} documents`);
  return { docs, ms, requests: 1, batches: answer.batches };
}

interface Page {
  pit_id: string;
  hits: { hits: { _id: string; _source?: unknown; sort: unknown[] }[] };
}

export async function pitWalk(url: string, index: string, docs: number, size: number): Promise<Retrieval> {
  const { body: opened } = await esOk<{ id: string }>(url, 'POST', `/${encodeURIComponent(index)}/_pit?keep_alive=1m`);
  const seen = new Set<string>();
  let requests = 0;
  const started = performance.now();
  let after: unknown[] | undefined;
  let pit = opened.id;
  for (;;) {
    const query = { size, pit: { id: pit, keep_alive: '1m' }, sort: [{ _shard_doc: 'asc' }], track_total_hits: false, ...(after && { search_after: after }) };
    const { body } = await esOk<Page>(url, 'POST', '/_search', JSON.stringify(query));
    requests++;
    const { hits } = body.hits;
    for (const hit of hits) {
      if (hit._source === undefined) throw new WrongAnswer(`PIT walk: hit ${hit._id} without _source`);
      if (seen.has(hit._id)) throw new WrongAnswer(`PIT walk: ${hit._id} returned twice`);
      seen.add(hit._id);
    }
    pit = body.pit_id;
    if (hits.length < size) break;
    after = hits[hits.length - 1].sort;
  }
  const ms = performance.now() - started;
  await esOk(url, 'DELETE', '/_pit', JSON.stringify({ id: pit }));
  if (seen.size !== docs) throw new WrongAnswer(`PIT walk of ${index}: ${seen.size} documents, expected ${docs}`);
  return { docs, ms, requests };
}
