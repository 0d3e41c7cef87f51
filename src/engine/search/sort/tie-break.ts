/**
 * The tie-break, Elasticsearch's and Lucene's (TopDocs.merge): hits equal on every sort key come in
 * shard order, then by the document's ordinal in its shard. deeppage states it once, here, as the
 * order in which the search lays out its segments: shards by number, then by index (ES's ShardId
 * order), and within a shard its segments in order. The merge kernel breaks ties by run index, then
 * position in the run, and a run keeps equal keys in position order, so laying runs out in this
 * order is the whole rule.
 */
import type { IndexSnapshot } from '../../search-index/index-snapshot.ts';
import type { Layout } from '../layout.ts';
import type { SearchRequest } from '../request.ts';

/** Every segment of the targets that take part (not failed), in tie-break order; kept with a lone target's snapshot. */
export function segmentsInTieOrder(targets: readonly IndexSnapshot[], failed: (t: number) => boolean): Layout {
  if (targets.length === 1 && !failed(0)) return (targets[0].cache.layout ??= { ...layOut(targets, failed), shared: true });
  return { ...layOut(targets, failed), shared: false };
}

/** The targets' shards in tie-break order: by shard number, then by target (ES's ShardId order). */
export function shardsInTieOrder(targets: readonly IndexSnapshot[], failed: (t: number) => boolean = () => false) {
  return targets
    .flatMap((target, t) => (failed(t) ? [] : target.shards.map((shard) => ({ t, shard }))))
    .sort((a, b) => a.shard.shard - b.shard.shard || a.t - b.t);
}

/** Each target's shard's place in the tie-break order of all the targets' shards (what `_shard_doc` puts above the ordinal). */
export function shardPlaces(targets: readonly IndexSnapshot[]): (t: number, shard: number) => number {
  const places: number[][] = targets.map(() => []);
  shardsInTieOrder(targets).forEach(({ t, shard }, i) => (places[t][shard.shard] = i));
  return (t, shard) => places[t][shard] ?? 0;
}

function layOut(targets: readonly IndexSnapshot[], failed: (t: number) => boolean): Omit<Layout, 'shared'> {
  const shards = shardsInTieOrder(targets, failed);
  const segments = shards.flatMap(({ t, shard }) => shard.segments.map((live) => ({ target: t, shard: shard.shard, live })));
  return { segments, liveCount: segments.reduce((n, { live }) => n + live.segment.count - live.deletedCount, 0) };
}

/**
 * Elasticsearch's implicit tiebreaker for searches over a point in time: a sorted search gets a
 * final `_shard_doc` ascending, unless it ends with one or its `search_after` has no value for it
 * (SearchRequest's rewrite), so that every hit has a unique position to continue after.
 */
export function withPitTiebreaker(request: SearchRequest): SearchRequest {
  const { sort, after } = request;
  if (sort.length === 0 || sort[sort.length - 1].kind === 'shard_doc') return request;
  if (after !== undefined && after.length !== sort.length + 1) return request;
  return { ...request, sort: [...sort, { kind: 'shard_doc', order: 'asc' }] };
}
