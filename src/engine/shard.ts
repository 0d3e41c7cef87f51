/**
 * A shard: the documents routed to it, as a write buffer plus a list of immutable segments.
 * Writes land in the buffer and the id table at once (GET is real time, as in Elasticsearch);
 * searches see them after the next refresh, which seals the buffer into a segment, applies the
 * pending deletes to fresh bitsets and publishes a new {@link ShardSnapshot}.
 */
import type { DocValues } from './mapping.ts';
import { Segment, type SegmentDoc } from './segment.ts';

/** A segment as one snapshot sees it: which of its documents are deleted, and its first ordinal. */
export interface LiveSegment {
  segment: Segment;
  /** 1 where the document is deleted; absent when none is. Never changes once published. */
  deleted?: Uint8Array;
  deletedCount: number;
  /** The shard ordinal of the segment's first document: the segments' counts before it. */
  base: number;
}

/** What one search sees of a shard. Immutable, so pages taken from it never tear. */
export interface ShardSnapshot {
  shard: number;
  /** Counts the shard's published snapshots (0 before the first refresh): what the owner of `_source` keeps documents for. */
  generation: number;
  segments: readonly LiveSegment[];
  liveCount: number;
}

/** Where the live version of a document is: in a segment, or (segment undefined) in the buffer. */
export interface DocLocation {
  seq: number;
  version: number;
  routing?: string;
  segment?: Segment;
  local: number;
  /** Replaced or deleted: no longer the live version of its id. */
  removed?: true;
}

/** How long a deleted id's version is remembered, so a new write continues it (ES's `index.gc_deletes`). */
const TOMBSTONE_MS = 60_000;

/** More segments than this and refresh merges the adjacent pair holding the fewest live documents. */
const MAX_SEGMENTS = 8;

export class Shard {
  snapshot: ShardSnapshot;
  #buffer = new Map<number, SegmentDoc>();
  /** The location of each buffered document, by seq. */
  #buffered = new Map<number, DocLocation>();
  /** Per segment, the location of each of its documents by position: a merge moves them without looking ids up. */
  #locations = new WeakMap<Segment, DocLocation[]>();
  #pendingDeletes = new Map<Segment, number[]>();
  #ids = new Map<string, DocLocation>();
  #tombstones = new Map<string, { version: number; at: number }>();
  #nextSeq = 0;

  constructor(
    readonly number: number,
    private readonly familyOf: (field: string) => 'number' | 'keyword' | 'none',
    /** Told of segments that leave the shard for good (merged away, or all deleted), so what is kept for them can go. */
    private readonly onDrop: (segments: Segment[]) => void = () => {},
  ) {
    this.snapshot = { shard: number, generation: 0, segments: [], liveCount: 0 };
  }

  /** Documents written, refreshed or not. */
  get docCount(): number {
    return this.#ids.size;
  }

  get dirty(): boolean {
    return this.#buffer.size > 0 || this.#pendingDeletes.size > 0;
  }

  /** A sequence number for an operation that stores nothing new (a delete), so `_seq_no` keeps rising. */
  takeSeq(): number {
    return this.#nextSeq++;
  }

  /** The highest sequence number handed out, -1 before any. */
  get maxSeq(): number {
    return this.#nextSeq - 1;
  }

  /** On start-up: continue after a sequence number handed out before the restart. */
  continueAfter(seq: number): void {
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1);
  }

  /** The version a new write of `id` follows: the live document's, or a recent delete's, else 0. */
  lastVersion(id: string): number {
    return this.#ids.get(id)?.version ?? this.#tombstones.get(id)?.version ?? 0;
  }

  /** Remembers a delete's version for a while, as ES does. */
  tombstone(id: string, version: number): void {
    this.#tombstones.set(id, { version, at: Date.now() });
  }

  locate(id: string): DocLocation | undefined {
    return this.#ids.get(id);
  }

  /**
   * Writes a document, replacing any live one with the same id.
   * @param seq storage sequence number: given when replaying storage, else the next one.
   * @returns the new location, and the replaced document's, if any.
   */
  put(id: string, values: DocValues, version: number, routing?: string, seq = this.#nextSeq): { location: DocLocation; replaced?: DocLocation } {
    const replaced = this.remove(id);
    this.#tombstones.delete(id);
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1);
    this.#buffer.set(seq, { id, seq, values, ...(routing !== undefined && { routing }) });
    const location: DocLocation = { seq, version, local: -1, ...(routing !== undefined && { routing }) };
    this.#buffered.set(seq, location);
    this.#ids.set(id, location);
    return { location, replaced };
  }

  /** Deletes the live document with this id; it stays visible to searches until the next refresh. */
  remove(id: string): DocLocation | undefined {
    const location = this.#ids.get(id);
    if (!location) return undefined;
    this.#ids.delete(id);
    location.removed = true;
    if (location.segment) {
      const list = this.#pendingDeletes.get(location.segment);
      if (list) list.push(location.local);
      else this.#pendingDeletes.set(location.segment, [location.local]);
    } else {
      this.#buffer.delete(location.seq);
      this.#buffered.delete(location.seq);
    }
    return location;
  }

  /** Makes every write so far visible to searches. */
  refresh(): void {
    const now = Date.now();
    for (const [id, { at }] of this.#tombstones) if (now - at > TOMBSTONE_MS) this.#tombstones.delete(id);
    if (!this.dirty) return;
    let segments = this.snapshot.segments.map((live) => this.#applyDeletes(live));
    this.#pendingDeletes.clear();
    if (this.#buffer.size > 0) {
      const docs = [...this.#buffer.values()];
      const segment = Segment.build(docs, this.familyOf);
      this.#place(segment, docs.map((doc) => this.#buffered.get(doc.seq)!));
      this.#buffer.clear();
      this.#buffered.clear();
      segments.push({ segment, deletedCount: 0, base: 0 });
    }
    segments = segments.filter((s) => s.deletedCount < s.segment.count);
    while (segments.length > MAX_SEGMENTS) segments = this.#mergeSmallestPair(segments);
    const before = this.snapshot.segments.map((s) => s.segment);
    this.#publish(segments);
    const kept = new Set(segments.map((s) => s.segment));
    const dropped = before.filter((segment) => !kept.has(segment));
    if (dropped.length > 0) this.onDrop(dropped);
  }

  /** The segments of the published snapshot (for what the shard hands over when its index goes). */
  get segments(): Segment[] {
    return this.snapshot.segments.map((s) => s.segment);
  }

  #applyDeletes(live: LiveSegment): LiveSegment {
    const locals = this.#pendingDeletes.get(live.segment);
    if (!locals) return live;
    const deleted = live.deleted ? live.deleted.slice() : new Uint8Array(live.segment.count);
    let deletedCount = live.deletedCount;
    for (const local of locals) {
      deletedCount += 1 - deleted[local];
      deleted[local] = 1;
    }
    return { segment: live.segment, deleted, deletedCount, base: live.base };
  }

  /** Merges adjacent segments only, so documents keep their relative order (and tie order) for good. */
  #mergeSmallestPair(segments: LiveSegment[]): LiveSegment[] {
    let best = 0;
    const live = (s: LiveSegment) => s.segment.count - s.deletedCount;
    for (let i = 1; i + 1 < segments.length; i++) {
      if (live(segments[i]) + live(segments[i + 1]) < live(segments[best]) + live(segments[best + 1])) best = i;
    }
    const parts = segments.slice(best, best + 2).map((s) => ({ segment: s.segment, locals: liveLocals(s) }));
    const merged = Segment.concat(parts);
    const moved: DocLocation[] = [];
    for (const { segment, locals } of parts) {
      const locations = this.#locations.get(segment)!;
      for (let i = 0; i < locals.length; i++) moved.push(locations[locals[i]]);
    }
    this.#place(merged, moved);
    return [...segments.slice(0, best), { segment: merged, deletedCount: 0, base: 0 }, ...segments.slice(best + 2)];
  }

  /**
   * Points each document's location at its position in `segment` (`locations` in segment order),
   * unless it was replaced or deleted meanwhile, and keeps them for the segment's next merge.
   */
  #place(segment: Segment, locations: DocLocation[]): void {
    for (let i = 0; i < locations.length; i++) {
      const location = locations[i];
      if (location.removed) continue;
      location.segment = segment;
      location.local = i;
    }
    this.#locations.set(segment, locations);
  }

  #publish(segments: LiveSegment[]): void {
    let base = 0, liveCount = 0;
    const published = segments.map((s) => {
      const out = s.base === base ? s : { ...s, base };
      base += s.segment.count;
      liveCount += s.segment.count - s.deletedCount;
      return out;
    });
    this.snapshot = { shard: this.number, generation: this.snapshot.generation + 1, segments: published, liveCount };
  }
}

function liveLocals(live: LiveSegment): Uint32Array {
  const out = new Uint32Array(live.segment.count - live.deletedCount);
  for (let i = 0, at = 0; i < live.segment.count; i++) if (!live.deleted?.[i]) out[at++] = i;
  return out;
}
