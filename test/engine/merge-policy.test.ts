/**
 * The merge policy (src/engine/segments/merge-policy.ts): which run of adjacent segments merges
 * next, on its own and under a force merge's goal.
 */
import { describe, expect, it } from 'vitest';
import { EXPUNGE_DELETES_ALLOWED, MAX_MERGE_AT_ONCE_EXPLICIT, MAX_SEGMENTS, nextMerge, type PolicySegment } from '../../src/engine/segments/merge-policy.ts';
import { MAX_TEXT } from '../../src/engine/segments/ids.ts';
import type { Segment } from '../../src/engine/segments/segment.ts';

/** A segment as the policy reads it: its count, deletes, and the length of its ids' text. */
const seg = (count: number, deletedCount = 0, idText = count * 8): PolicySegment => ({ segment: { count, ids: { text: { length: idText } } } as unknown as Segment, deletedCount });

describe('nextMerge', () => {
  it('leaves a shard of up to MAX_SEGMENTS alone, and past that merges the cheapest run of two to four', () => {
    expect(nextMerge(Array.from({ length: MAX_SEGMENTS }, () => seg(100)))).toBeUndefined();
    // Nine segments, three small ones side by side: those three merge at once.
    const segments = [seg(1000), seg(1000), seg(10), seg(10), seg(10), seg(1000), seg(1000), seg(1000), seg(1000)];
    expect(nextMerge(segments)).toEqual({ at: 2, k: 3 });
  });

  it('under max_num_segments merges as many adjacent segments as the goal needs, up to thirty at once', () => {
    const five = Array.from({ length: 5 }, () => seg(100));
    expect(nextMerge(five, { maxSegments: 1 })).toEqual({ at: 0, k: 5 });
    expect(nextMerge(five, { maxSegments: 3 })).toEqual({ at: 0, k: 3 });
    expect(nextMerge(five, { maxSegments: 5 })).toBeUndefined();
    // The goal comes before the shard's own policy: thirty of forty at once, not four.
    const many = Array.from({ length: 40 }, () => seg(100));
    expect(nextMerge(many, { maxSegments: 1 })).toEqual({ at: 0, k: 30 });
    expect(nextMerge(many, { expungeDeletes: true })?.k).toBeLessThanOrEqual(4);
    const eight = Array.from({ length: 8 }, (_, i) => seg(i === 7 ? 10 : 100));
    expect(nextMerge(eight, { maxSegments: 2 })).toEqual({ at: 1, k: 7 });
    expect(MAX_MERGE_AT_ONCE_EXPLICIT).toBe(30);
  });

  it('takes a shorter run when a long one would hold more ids than a segment can', () => {
    const big = Array.from({ length: 4 }, () => seg(100, 0, Math.floor(MAX_TEXT / 3)));
    // All four do not fit one segment's ids; three do.
    expect(nextMerge(big, { maxSegments: 1 })).toEqual({ at: 0, k: 3 });
    const huge = [seg(100, 0, MAX_TEXT), seg(100, 0, MAX_TEXT)];
    expect(nextMerge(huge, { maxSegments: 1 })).toBeUndefined();
  });

  it('under only_expunge_deletes rewrites, alone, the first segment with more than 10 % deleted', () => {
    expect(EXPUNGE_DELETES_ALLOWED).toBe(0.1);
    expect(nextMerge([seg(100, 10), seg(100, 5)], { expungeDeletes: true })).toBeUndefined();
    expect(nextMerge([seg(100, 10), seg(100, 11), seg(100, 50)], { expungeDeletes: true })).toEqual({ at: 1, k: 1 });
  });
});
