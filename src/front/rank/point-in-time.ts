/**
 * Points in time on the cluster, in its dialect: Elasticsearch's `_pit` (`{id}`; closed with
 * `DELETE /_pit {id}`) or OpenSearch's `_search/point_in_time` (`{pit_id}`; closed with
 * `DELETE /_search/point_in_time {pit_id: [...]}`). Searches in one look the same in both: `pit`
 * with `id` and `keep_alive` in the body, no index in the path.
 */
import type { ClusterAnswer, ClusterCalls } from '../cluster-calls.ts';
import { indexPath } from './search-shape.ts';

export type Distribution = 'elasticsearch' | 'opensearch';

/** A cluster answer the front cannot use and passes on to the client as it is (a 404 index, a 401, a 400…). */
export class ClusterRefused extends Error {
  constructor(readonly answer: ClusterAnswer) {
    super(`the cluster answered ${answer.status}`);
  }
}

/** Opens a point in time over `indices` (`''`: every index) with the client's headers; its id. */
export async function openPointInTime(calls: ClusterCalls, distribution: Distribution, indices: string, params: URLSearchParams, keepAlive: string, headers: readonly string[]): Promise<string> {
  const query = new URLSearchParams(params);
  query.set('keep_alive', keepAlive);
  const path = `${indexPath(indices === '' ? '_all' : indices)}/${distribution === 'opensearch' ? '_search/point_in_time' : '_pit'}?${query}`;
  const answer = await calls.call('pit', 'POST', path, headers);
  if (answer.status !== 200) throw new ClusterRefused(answer);
  const body = JSON.parse(answer.text) as { id?: string; pit_id?: string };
  const id = distribution === 'opensearch' ? body.pit_id : body.id;
  if (typeof id !== 'string') throw new Error(`the cluster opened a point in time without an id: ${answer.text.slice(0, 200)}`);
  return id;
}

/** Closes a point in time; one already gone is no error. */
export async function closePointInTime(calls: ClusterCalls, distribution: Distribution, id: string, headers: readonly string[]): Promise<void> {
  if (distribution === 'opensearch') await calls.call('pit', 'DELETE', '/_search/point_in_time', headers, { pit_id: [id] });
  else await calls.call('pit', 'DELETE', '/_pit', headers, { id });
}

/** Whether an answer says the point in time is gone (expired, or lost with a node): a rebuild on a new one. */
export function pointInTimeGone(answer: ClusterAnswer): boolean {
  return answer.status === 404 && answer.text.includes('search_context_missing_exception');
}
