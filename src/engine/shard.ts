/**
 * A shard: the documents routed to it, as a write buffer plus a list of immutable segments.
 * Writes land in the buffer and the id table at once (GET is real time, as in Elasticsearch);
 * searches see them after the next refresh, which seals the buffer into a segment, applies the
 * pending deletes to fresh bitsets and publishes a new {@link ShardSnapshot}.
 */
import type { DocValues, IndexFamily } from './mapping.ts';
import { idHash, MAX_TEXT } from './segments/ids.ts';
import { Segment, type SegmentDoc } from './segments/segment.ts';

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

/** Where the live version of a document is: in a segment, or (segment undefined, local -1) in the buffer. */
export interface DocLocation {
  seq: number;
  version: number;
  routing?: string;
  segment?: Segment;
  local: number;
}

/** A segment's deletes in real time (refreshed or not); searches see them once a refresh publishes them. */
interface Deletes {
  deleted: Uint8Array;
  count: number;
  /** The array is also a published snapshot's: copy it before the next change. */
  shared: boolean;
}

/** A shard's segments as a commit point: what a flush makes durable and a restart loads. */
export interface CommitPoint {
  /** Every operation with a seq up to this one is in the segments and their deletes. */
  checkpoint: number;
  segments: { number: number; segment: Segment; deleted?: Uint8Array; deletedCount: number }[];
}

/** How long a deleted id's version is remembered, so a new write continues it (ES's `index.gc_deletes`). */
const TOMBSTONE_MS = 60_000;

/** More segments than this and refresh merges the adjacent pair holding the fewest live documents. */
const MAX_SEGMENTS = 8;

export class Shard {
  snapshot: ShardSnapshot;
  /** Written documents not yet in a segment, by seq (so in seq order). */
  #buffer = new Map<number, SegmentDoc>();
  /** The buffered documents by id. */
  #bufferIds = new Map<string, SegmentDoc>();
  /** Per segment with deletes not yet published, every delete so far. */
  #deletes = new Map<Segment, Deletes>();
  #tombstones = new Map<string, { version: number; at: number }>();
  #docCount = 0;
  #nextSeq = 0;
  /** Segment numbers: the key each segment has, or will have, in storage. */
  #numbers = new WeakMap<Segment, number>();
  #nextNumber = 0;
  /** The segments of the last durable commit point, by number. */
  #committed = new Set<number>();
  /** Writes (puts and deletes) since the last durable commit point: what a restart would replay. */
  #uncommittedOps = 0;
  /**
   * Writes planned but not yet durable, by id: the version each leaves the id at and, unless it
   * deletes, the document's place to be. Planning reads through them; nothing else sees them.
   */
  #staged = new Map<string, { batch: number; version: number; location?: DocLocation }>();
  /** The highest seq of an applied write: every write up to it is in memory (seqs apply in order). */
  #appliedSeq = -1;

  constructor(
    readonly number: number,
    private readonly familyOf: (field: string) => IndexFamily | undefined,
    /** Told of segments that leave the shard for good (merged away, or all deleted), so what is kept for them can go. */
    private readonly onDrop: (segments: Segment[]) => void = () => {},
  ) {
    this.snapshot = { shard: number, generation: 0, segments: [], liveCount: 0 };
  }

  /** Documents written, refreshed or not. */
  get docCount(): number {
    return this.#docCount;
  }

  get dirty(): boolean {
    if (this.#buffer.size > 0) return true;
    for (const deletes of this.#deletes.values()) if (!deletes.shared) return true;
    return false;
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

  /** Remembers a delete's version for a while, as ES does. */
  #tombstone(id: string, version: number): void {
    this.#tombstones.set(id, { version, at: Date.now() });
  }

  /** The live document with this id once the planned writes apply: staged ones first, then applied ones. */
  planned(id: string): DocLocation | undefined {
    const staged = this.#staged.get(id);
    return staged ? staged.location : this.locate(id);
  }

  /**
   * The version a new write of `id` follows, planned writes included: the live document's (`live`,
   * what {@link planned} answered), or a recent delete's, else 0.
   */
  plannedVersion(id: string, live: DocLocation | undefined): number {
    if (live) return live.version;
    return this.#staged.get(id)?.version ?? this.#tombstones.get(id)?.version ?? 0;
  }

  /** Plans a write of a document: its seq and place, staged until {@link unstage}. */
  stagePut(id: string, version: number, batch: number, routing?: string): DocLocation {
    const location: DocLocation = { seq: this.#nextSeq++, version, local: -1, ...(routing !== undefined && { routing }) };
    this.#staged.set(id, { batch, version, location });
    return location;
  }

  /** Plans the delete of a document, leaving its id at `version`; returns the delete's seq. */
  stageDelete(id: string, version: number, batch: number): number {
    this.#staged.set(id, { batch, version });
    return this.#nextSeq++;
  }

  /** The batch applied: its staged write of `id` goes (unless a later batch staged the id again). */
  unstage(batch: number, id: string): void {
    if (this.#staged.get(id)?.batch === batch) this.#staged.delete(id);
  }

  /** Every planned write failed: planning starts again from what is applied. */
  discardStaged(): void {
    this.#staged.clear();
  }

  /** Applies a planned delete (durable now): the id goes, and its version is remembered a while. */
  applyDelete(id: string, version: number, seq: number): DocLocation | undefined {
    const removed = this.remove(id);
    this.#tombstone(id, version);
    this.#appliedSeq = Math.max(this.#appliedSeq, seq);
    return removed;
  }

  /**
   * The live document with this id, refreshed or not. A segment holds an id at most once, and an
   * older segment's copy of an id is always deleted once a newer one exists (layout order is write
   * order), so the newest copy found decides.
   */
  locate(id: string): DocLocation | undefined {
    const buffered = this.#bufferIds.get(id);
    if (buffered) return { seq: buffered.seq, version: buffered.version, local: -1, ...(buffered.routing !== undefined && { routing: buffered.routing }) };
    return this.#locateInSegments(id, (live, local) => this.#isDeleted(live, local));
  }

  /** The document with this id as the published snapshot shows it: its segments and the deletes published with them. */
  locatePublished(id: string): DocLocation | undefined {
    return this.#locateInSegments(id, (live, local) => live.deleted?.[local] === 1);
  }

  #locateInSegments(id: string, isDeleted: (live: LiveSegment, local: number) => boolean): DocLocation | undefined {
    const segments = this.snapshot.segments;
    const hash = idHash(id);
    for (let s = segments.length - 1; s >= 0; s--) {
      const live = segments[s];
      const local = live.segment.ids.find(id, hash);
      if (local < 0) continue;
      if (isDeleted(live, local)) return undefined;
      const { segment } = live;
      const routing = segment.routings.size > 0 ? segment.routings.get(local) : undefined;
      return { seq: segment.seqs[local], version: segment.versions[local], segment, local, ...(routing !== undefined && { routing }) };
    }
    return undefined;
  }

  /**
   * Writes a document, replacing any live one with the same id.
   * @param seq storage sequence number: given when replaying storage, else the next one.
   * @param replaces false when the id is known to have no live document (a write planned on one
   *   that had none: every write planned before it has applied, so none has since), saving the lookup.
   * @returns the new location, and the replaced document's, if any.
   */
  put(id: string, values: DocValues, version: number, routing?: string, seq = this.#nextSeq, replaces = true): { location: DocLocation; replaced?: DocLocation } {
    const replaced = replaces ? this.remove(id) : undefined;
    this.#tombstones.delete(id);
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1);
    this.#appliedSeq = Math.max(this.#appliedSeq, seq);
    const doc: SegmentDoc = { id, seq, version, values, ...(routing !== undefined && { routing }) };
    this.#buffer.set(seq, doc);
    this.#bufferIds.set(id, doc);
    this.#docCount++;
    this.#uncommittedOps++;
    const location: DocLocation = { seq, version, local: -1, ...(routing !== undefined && { routing }) };
    return { location, replaced };
  }

  /** Deletes the live document with this id; it stays visible to searches until the next refresh. */
  remove(id: string): DocLocation | undefined {
    const location = this.locate(id);
    if (!location) return undefined;
    this.#docCount--;
    this.#uncommittedOps++;
    if (location.segment) this.#markDeleted(location.segment, location.local);
    else {
      this.#buffer.delete(location.seq);
      this.#bufferIds.delete(id);
    }
    return location;
  }

  /** Replaying storage: the document stored at `seq` was deleted by the write at `at` (if the shard still holds it live). */
  removeSeq(seq: number, at: number): void {
    this.#appliedSeq = Math.max(this.#appliedSeq, at);
    this.#nextSeq = Math.max(this.#nextSeq, at + 1);
    const buffered = this.#buffer.get(seq);
    if (buffered) {
      this.remove(buffered.id);
      return;
    }
    const segments = this.snapshot.segments;
    // Seqs ascend through the segments in layout order: the last segment starting at or before seq.
    let lo = 0, hi = segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (segments[mid].segment.seqs[0] <= seq) lo = mid + 1;
      else hi = mid;
    }
    const live = segments[lo - 1];
    const local = live ? live.segment.localOfSeq(seq) : -1;
    if (local < 0 || this.#isDeleted(live, local)) return;
    this.#docCount--;
    this.#uncommittedOps++;
    this.#markDeleted(live.segment, local);
  }

  /** Makes every write so far visible to searches. */
  refresh(): void {
    const now = Date.now();
    for (const [id, { at }] of this.#tombstones) if (now - at > TOMBSTONE_MS) this.#tombstones.delete(id);
    if (!this.dirty) return;
    let segments = this.snapshot.segments.map((live) => this.#applyDeletes(live));
    if (this.#buffer.size > 0) {
      segments.push({ segment: Segment.build([...this.#buffer.values()], this.familyOf), deletedCount: 0, base: 0 });
      this.#buffer.clear();
      this.#bufferIds.clear();
    }
    segments = segments.filter((s) => s.deletedCount < s.segment.count);
    for (let merged = segments; segments.length > MAX_SEGMENTS && (merged = this.#mergeSmallestPair(segments)) !== segments; ) segments = merged;
    const before = this.snapshot.segments.map((s) => s.segment);
    this.#publish(segments);
    const kept = new Set(segments.map((s) => s.segment));
    const dropped = before.filter((segment) => !kept.has(segment));
    for (const segment of dropped) this.#deletes.delete(segment);
    if (dropped.length > 0) this.onDrop(dropped);
  }

  /** Writes since the last durable commit point. */
  get uncommittedOps(): number {
    return this.#uncommittedOps;
  }

  /**
   * The published snapshot as a commit point, every segment numbered; call right after a refresh so
   * that it holds every applied write (the checkpoint is the last applied seq; planned writes are not
   * in it, and replay after it). `added` are the segments
   * storage does not have yet, `dropped` the numbers it has that the point no longer lists.
   */
  commitPoint(): { point: CommitPoint; added: Segment[]; dropped: number[]; ops: number } {
    if (this.dirty) throw new Error('a commit point needs a refreshed shard');
    const added: Segment[] = [];
    const segments = this.snapshot.segments.map(({ segment, deleted, deletedCount }) => {
      let number = this.#numbers.get(segment);
      if (number === undefined) this.#numbers.set(segment, (number = this.#nextNumber++));
      if (!this.#committed.has(number)) added.push(segment);
      return { number, segment, deleted, deletedCount };
    });
    const listed = new Set(segments.map((s) => s.number));
    const dropped = [...this.#committed].filter((number) => !listed.has(number));
    return { point: { checkpoint: this.#appliedSeq, segments }, added, dropped, ops: this.#uncommittedOps };
  }

  /** Storage holds the commit point now; `ops` is what {@link commitPoint} counted. */
  committed(point: CommitPoint, ops: number): void {
    this.#committed = new Set(point.segments.map((s) => s.number));
    this.#uncommittedOps = Math.max(0, this.#uncommittedOps - ops);
  }

  /** On start-up, before any write: the shard as a stored commit point left it. */
  load(point: CommitPoint): void {
    for (const { number, segment } of point.segments) {
      this.#numbers.set(segment, number);
      this.#nextNumber = Math.max(this.#nextNumber, number + 1);
    }
    this.#committed = new Set(point.segments.map((s) => s.number));
    this.continueAfter(point.checkpoint);
    this.#appliedSeq = point.checkpoint;
    this.#docCount = point.segments.reduce((n, s) => n + s.segment.count - s.deletedCount, 0);
    this.#publish(point.segments.map(({ segment, deleted, deletedCount }) => ({ segment, deleted, deletedCount, base: 0 })));
  }

  /** On start-up: storage holds these segments from a commit point that could not be read; the next commit drops them. */
  replacesStored(numbers: readonly number[]): void {
    this.#committed = new Set(numbers);
    for (const number of numbers) this.#nextNumber = Math.max(this.#nextNumber, number + 1);
  }

  /** The segments of the published snapshot (for what the shard hands over when its index goes). */
  get segments(): Segment[] {
    return this.snapshot.segments.map((s) => s.segment);
  }

  /** The segment as searches will see it with its deletes so far; the array is shared until the next delete. */
  #applyDeletes(live: LiveSegment): LiveSegment {
    const deletes = this.#deletes.get(live.segment);
    if (!deletes || deletes.shared) return live;
    deletes.shared = true;
    return { segment: live.segment, deleted: deletes.deleted, deletedCount: deletes.count, base: live.base };
  }

  #isDeleted(live: LiveSegment, local: number): boolean {
    const deletes = this.#deletes.get(live.segment);
    return (deletes ? deletes.deleted[local] : live.deleted?.[local]) === 1;
  }

  #markDeleted(segment: Segment, local: number): void {
    let deletes = this.#deletes.get(segment);
    if (!deletes) {
      const published = this.snapshot.segments.find((s) => s.segment === segment)!;
      deletes = { deleted: published.deleted ?? new Uint8Array(segment.count), count: published.deletedCount, shared: published.deleted !== undefined };
      this.#deletes.set(segment, deletes);
    }
    if (deletes.shared) {
      deletes.deleted = deletes.deleted.slice();
      deletes.shared = false;
    }
    deletes.count += 1 - deletes.deleted[local];
    deletes.deleted[local] = 1;
  }

  /**
   * Merges the adjacent pair holding the fewest live documents (adjacent only, so documents keep
   * their relative order, and tie order, for good); the same list when no pair fits in one segment.
   */
  #mergeSmallestPair(segments: LiveSegment[]): LiveSegment[] {
    let best = -1;
    const live = (s: LiveSegment) => s.segment.count - s.deletedCount;
    for (let i = 0; i + 1 < segments.length; i++) {
      if (segments[i].segment.ids.text.length + segments[i + 1].segment.ids.text.length > MAX_TEXT) continue;
      if (best < 0 || live(segments[i]) + live(segments[i + 1]) < live(segments[best]) + live(segments[best + 1])) best = i;
    }
    if (best < 0) return segments;
    const merged = Segment.concat(segments.slice(best, best + 2).map((s) => ({ segment: s.segment, locals: liveLocals(s) })));
    return [...segments.slice(0, best), { segment: merged, deletedCount: 0, base: 0 }, ...segments.slice(best + 2)];
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
