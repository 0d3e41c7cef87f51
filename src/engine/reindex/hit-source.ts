/**
 * What a reindex reads from: the hits of its source, batch by batch. A point in time over a local
 * index (local-source.ts) and a scroll on a remote cluster (remote-source.ts) both provide one.
 */

/** One document read from a source index. */
export interface SourceHit {
  index: string;
  id: string;
  routing?: string;
  source: Record<string, unknown>;
  /** The source's JSON as stored (its text or UTF-8 bytes), when the source has it: the destination stores it as it is. */
  text?: string | Uint8Array;
}
/**
 * Batches of a source, in order; an empty batch means the end. `next(extraKeepAliveMs)` keeps the
 * source alive that much longer than its keep-alive (a reindex about to wait before the next read).
 */
export interface HitSource { readonly total: number; next(extraKeepAliveMs?: number): Promise<SourceHit[]>; close(): Promise<void> }
