/**
 * `_doc`: index order, the document's ordinal in its shard. Within a segment that is the position;
 * across segments the segment's base (its first ordinal) is added as the run key's offset, so runs
 * stay valid when the segments before them merge and their base moves.
 *
 * `_shard_doc`, a point in time's tiebreaker, is the same order with the shard in front: the shard's
 * place in the search's shard order times 2^32, plus the ordinal (Elasticsearch's layout of the value).
 * Both keep the same runs (positions in order), so they share a run key.
 */
import type { Direction } from '../../../core/index.ts';
import type { SegmentRef } from '../layout.ts';
import { keyName } from '../order-key.ts';
import type { SortKeySource } from './key.ts';
import { afterNumber } from './after-value.ts';

export function docKey(order: Direction): SortKeySource {
  const keyOrder = { order };
  return {
    id: keyName('doc', order),
    order: keyOrder,
    column: (live) => live.segment.positions(),
    columnId: 'positions',
    localOrder: () => keyOrder,
    readAs: ({ live }) => ({ offset: live.base }),
    sortValue: ({ live }, local) => live.base + local,
    afterValue: (value) => afterNumber('_doc', value),
  };
}

/** Shards a `_shard_doc` value can tell apart: the shard's place sits above the 32 bits of the ordinal. */
export const SHARD_DOC_SHIFT = 2 ** 32;

/** @param shardIndex the place of target t's shard in the search's shard order. */
export function shardDocKey(order: Direction, shardIndex: (t: number, shard: number) => number): SortKeySource {
  const keyOrder = { order };
  const offset = ({ target, shard, live }: SegmentRef) => shardIndex(target, shard) * SHARD_DOC_SHIFT + live.base;
  return {
    id: keyName('doc', order),
    order: keyOrder,
    column: (live) => live.segment.positions(),
    columnId: 'positions',
    localOrder: () => keyOrder,
    readAs: (segment) => ({ offset: offset(segment) }),
    sortValue: (segment, local) => offset(segment) + local,
    afterValue: (value) => afterNumber('_shard_doc', value),
  };
}
