/**
 * Slices of a search (`slice: {id, max}` with a point in time or a scroll), as Elasticsearch's
 * SliceBuilder assigns them. The search's shards, in tie-break order (shard index i of n):
 *
 * - `max` < n: whole shards, shard i in slice `i % max`.
 * - `max` ≥ n (and any `max` over one shard): slice `id` lies in shard `id % n`, which is split
 *   into the slices that fall on it (`max / n`, one more for the first `max % n` shards); the slice
 *   is part `id / n` of them. A shard with one slice is whole.
 *
 * A shard is split by `_shard_doc` (a point in time's default): its live documents in shard order,
 * cut into contiguous ranges of equal size, so a slice reads only the segments and positions of its
 * range; or by `_id` (a scroll's default): the documents whose id hashes (murmur3) to the part, so
 * that each slice of a scroll, which opens its own snapshot, keeps its documents whatever was
 * written between. A slice's segments carry their documents ({@link SliceDocs}); every page path
 * reads those instead of the segment's live documents. Nothing else changes: sort values, the
 * `_shard_doc` tie-breaker and the shards reported are the unsliced search's.
 */
import { illegalArgument, type EsError } from '../errors.ts';
import { murmur3Id } from '../routing.ts';
import type { IndexSnapshot } from '../search-index/index-snapshot.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import type { Layout, SegmentRef, SliceDocs } from './layout.ts';
import type { SliceRequest } from './request.ts';
import { shardsInTieOrder } from './sort/tie-break.ts';

/** ES's `index.max_slices_per_scroll` default. */
export const MAX_SLICES_PER_SCROLL = 1024;

/** How a shard's documents are split: by ranges of shard order, or by the hash of their ids. */
export type SliceBy = 'shard_doc' | 'id';

/** What the slice means for the shard at `place` of `shards`: none of it, all of it, or part `part` of `parts`. */
export function shardShare(place: number, shards: number, { id, max }: { id: number; max: number }): 'none' | 'all' | { part: number; parts: number } {
  if (shards === 1) return { part: id, parts: max };
  if (max < shards) return place % max === id ? 'all' : 'none';
  if (id % shards !== place) return 'none';
  const parts = Math.floor(max / shards) + (max % shards > place ? 1 : 0);
  return parts === 1 ? 'all' : { part: Math.floor(id / shards), parts };
}

/**
 * The checks ES makes on every shard: the scroll's slice count against each index's limit, and `_id`
 * slicing where a point in time splits a shard. Failures are per target, as the window check's are.
 */
export function sliceChecks(targets: readonly IndexSnapshot[], slice: SliceRequest, scroll: boolean, failures: (EsError | undefined)[]): void {
  const places = shardsInTieOrder(targets);
  targets.forEach((_, t) => {
    if (failures[t]) return;
    if (scroll && slice.max > MAX_SLICES_PER_SCROLL) {
      failures[t] = illegalArgument(`The number of slices [${slice.max}] is too large. It must be less than [${MAX_SLICES_PER_SCROLL}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.`);
      return;
    }
    const splits = places.some((entry, i) => entry.t === t && typeof shardShare(i, places.length, slice) === 'object');
    if (!scroll && slice.field === '_id' && splits) failures[t] = illegalArgument('cannot slice on [_id] when using [point-in-time]');
  });
}

/** How the slice splits a shard: the field it names, else `_shard_doc` with a point in time and `_id` with a scroll. */
export function sliceBy(slice: SliceRequest, scroll: boolean): SliceBy {
  if (slice.field === '_id') return 'id';
  if (slice.field === undefined) return scroll ? 'id' : 'shard_doc';
  return 'shard_doc';
}

/**
 * The layout of the slice: the segments of its shards, those of a split shard with the documents of
 * its part. Kept with a lone target's snapshot (a point in time's or a scroll's batches reuse it).
 */
export function slicedLayout(targets: readonly IndexSnapshot[], layout: Layout, slice: SliceRequest, by: SliceBy): Layout {
  const name = `${by} ${slice.id}/${slice.max}`;
  const cache = layout.shared ? targets[0].cache.slices : undefined;
  const kept = cache?.get(name);
  if (kept) return kept;
  const places = shardsInTieOrder(targets);
  const segments: SegmentRef[] = [];
  let liveCount = 0;
  // The shards in tie-break order, and each shard's segments in the layout's.
  places.forEach(({ t, shard }, place) => {
    const share = shardShare(place, places.length, slice);
    if (share === 'none') return;
    const shardSegments = layout.segments.filter((segment) => segment.target === t && segment.shard === shard.shard);
    const parted = share === 'all' ? shardSegments : by === 'id' ? byId(shardSegments, share) : byShardDoc(shardSegments, share);
    for (const segment of parted) liveCount += segment.only ? segment.only.docs.length : segment.live.segment.count - segment.live.deletedCount;
    segments.push(...parted);
  });
  const out: Layout = { segments, liveCount, shared: layout.shared };
  cache?.set(name, out);
  return out;
}

/** Part `part` of `parts` of a shard by `_shard_doc`: its live documents in shard order, cut into equal ranges. */
function byShardDoc(segments: readonly SegmentRef[], { part, parts }: { part: number; parts: number }): SegmentRef[] {
  const live = segments.reduce((n, { live }) => n + live.segment.count - live.deletedCount, 0);
  const lo = Math.floor((part * live) / parts), hi = Math.floor(((part + 1) * live) / parts);
  const out: SegmentRef[] = [];
  let rank = 0;
  for (const segment of segments) {
    const count = segment.live.segment.count - segment.live.deletedCount;
    const from = Math.max(lo - rank, 0), to = Math.min(hi - rank, count);
    rank += count;
    if (from >= to) continue;
    if (from === 0 && to === count) out.push(segment);
    else out.push({ ...segment, only: liveRange(segment.live, from, to) });
  }
  return out;
}

/** The segment's live documents of live ranks [from, to): positions read straight when nothing is deleted, else counted through the deletes. */
function liveRange(live: LiveSegment, from: number, to: number): SliceDocs {
  const docs = new Uint32Array(to - from);
  const { deleted } = live;
  let p = from;
  if (deleted) {
    // The position of live rank `from`: the deletes before it are skipped.
    for (let rank = 0, q = 0; ; q++) {
      if (deleted[q]) continue;
      if (rank++ === from) {
        p = q;
        break;
      }
    }
  }
  for (let i = 0; i < docs.length; p++) if (!deleted?.[p]) docs[i++] = p;
  return { docs, name: `positions ${docs[0]}-${docs[docs.length - 1]}` };
}

/** Part `part` of `parts` of a shard by `_id`: the live documents whose id's murmur3 hash is `part` modulo `parts`. */
function byId(segments: readonly SegmentRef[], { part, parts }: { part: number; parts: number }): SegmentRef[] {
  return segments.map((segment) => {
    const { live } = segment;
    const { ids, count } = live.segment;
    const docs: number[] = [];
    for (let p = 0; p < count; p++) {
      if (live.deleted?.[p]) continue;
      const hash = murmur3Id(ids.id(p));
      if (((hash % parts) + parts) % parts === part) docs.push(p);
    }
    return { ...segment, only: { docs: Uint32Array.from(docs), name: `ids ${part}/${parts}` } };
  });
}
