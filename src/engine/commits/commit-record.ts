/**
 * A shard's commit point as storage keeps it ({@link ShardCommit}) and back: segment numbers with
 * each segment's deletes packed one bit per document.
 */
import type { ShardCommit } from '../../store/doc-store.ts';
import { decodeSegment, SEGMENT_FORMAT, SegmentFormatError, unknownFormat } from '../segments/format.ts';
import type { CommitPoint } from '../shard/commit-points.ts';

export function commitRecord(point: CommitPoint): ShardCommit {
  return {
    format: SEGMENT_FORMAT,
    checkpoint: point.checkpoint,
    segments: point.segments.map(({ number, deleted }) => (deleted ? { number, deleted: packBits(deleted) } : { number })),
  };
}

/**
 * The commit point a record describes, its segments read through `bytesOf`; throws
 * {@link SegmentFormatError} when a segment is missing or not in a format this node reads.
 */
export function readCommitPoint(record: ShardCommit, bytesOf: (number: number) => Uint8Array | undefined): CommitPoint {
  if (record.format !== SEGMENT_FORMAT) throw unknownFormat(record.format);
  const segments = record.segments.map(({ number, deleted: bits }) => {
    const bytes = bytesOf(number);
    if (!bytes) throw new SegmentFormatError(`segment [${number}] of the commit point is missing`);
    const segment = decodeSegment(bytes);
    if (!bits) return { number, segment, deletedCount: 0 };
    const deleted = unpackBits(bits, segment.count);
    let deletedCount = 0;
    for (let i = 0; i < deleted.length; i++) deletedCount += deleted[i];
    return { number, segment, deleted, deletedCount };
  });
  return { checkpoint: record.checkpoint, segments };
}

export function packBits(flags: Uint8Array): Uint8Array {
  const out = new Uint8Array((flags.length + 7) >>> 3);
  for (let i = 0; i < flags.length; i++) if (flags[i]) out[i >>> 3] |= 1 << (i & 7);
  return out;
}

export function unpackBits(bits: Uint8Array, count: number): Uint8Array {
  if (bits.length !== (count + 7) >>> 3) throw new SegmentFormatError(`deletes of ${bits.length * 8} documents for a segment of ${count}`);
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = (bits[i >>> 3] >>> (i & 7)) & 1;
  return out;
}
