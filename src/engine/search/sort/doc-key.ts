/**
 * `_doc`: index order, the document's ordinal in its shard. Within a segment that is the position;
 * across segments the segment's base (its first ordinal) is added as the run key's offset, so runs
 * stay valid when the segments before them merge and their base moves.
 */
import type { Direction } from '../../../core/index.ts';
import type { SortKeySource } from './key.ts';

export function docKey(order: Direction): SortKeySource {
  const keyOrder = { order };
  return {
    id: JSON.stringify(['doc', order]),
    order: keyOrder,
    column: (live) => live.segment.positions(),
    localOrder: () => keyOrder,
    readAs: (_t, live) => ({ offset: live.base }),
    sortValue: (_t, live, local) => live.base + local,
  };
}
