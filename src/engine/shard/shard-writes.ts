/**
 * A shard's write path: documents written and not yet in a published segment (the write buffer),
 * the ids the shard may hold, deletes not yet published, and the sequence numbers and versions of
 * writes, planned and applied. Writes land here at once, so GET is real time, as in Elasticsearch;
 * searches see them once a refresh (shard.ts) seals the buffer and publishes the deletes.
 */
import { firstNotBefore } from '../binary-search.ts';
import type { DocValues } from '../mapping.ts';
import { IdFilter } from '../segments/id-filter.ts';
import { idHash } from '../segments/ids.ts';
import type { Segment } from '../segments/segment.ts';
import { WriteBuffer, type BufferedDocs } from '../segments/write-buffer.ts';
import { PendingDeletes } from './pending-deletes.ts';
import type { LiveSegment, ShardSnapshot } from './shard-snapshot.ts';

/** Where the live version of a document is: in a segment, or (segment undefined, local -1) in the buffer. */
export interface DocLocation {
  seq: number;
  version: number;
  routing?: string;
  segment?: Segment;
  local: number;
}

/** A planned put: where the document will be (see {@link ShardWrites.stagePut}). */
type StagedPut = DocLocation & { batch: number; deleted: false };
/** A planned write of an id, staged until its batch applies. */
type Staged = StagedPut | { batch: number; version: number; deleted: true };

/** How long a deleted id's version is remembered, so a new write continues it (ES's `index.gc_deletes`). */
const TOMBSTONE_MS = 60_000;

export class ShardWrites {
  /** Written documents not yet in a published segment, in seq order, by id and by seq. */
  #buffer = new WriteBuffer();
  /** Every id the buffer or a segment may hold (more, never fewer): a fresh id is answered here. */
  #ids = new IdFilter(0);
  /** Deletes of documents in published segments, until a refresh publishes them. */
  readonly deletes = new PendingDeletes();
  #tombstones = new Map<string, { version: number; at: number }>();
  #docCount = 0;
  #nextSeq = 0;
  /** The highest seq of an applied write: every write up to it is in memory (seqs apply in order). */
  #appliedSeq = -1;
  /** Writes (puts and deletes) since the last durable commit point: what a restart would replay. */
  #uncommittedOps = 0;
  /**
   * Writes planned but not yet durable, by id: a put's document location to be, or the version a
   * delete leaves the id at. Planning reads through them; nothing else sees them.
   */
  #staged = new Map<string, Staged>();
  /** The highest seq taken by a seal: buffered documents after it are not in one yet. */
  #sealedThrough = -1;
  /** Buffered documents after {@link #sealedThrough}. */
  #unsealed = 0;

  /** @param shard holds the snapshot the shard published last (what "in a segment" means here). */
  constructor(private readonly shard: { readonly snapshot: ShardSnapshot }) {}

  /** Documents written, refreshed or not. */
  get docCount(): number {
    return this.#docCount;
  }

  /** Something written since the last refresh: a buffered document, or an unpublished delete. */
  get dirty(): boolean {
    return this.#buffer.size > 0 || this.deletes.unpublished;
  }

  /** A sequence number for an operation that stores nothing new (a delete), so `_seq_no` keeps rising. */
  takeSeq(): number {
    return this.#nextSeq++;
  }

  /** The highest sequence number handed out, -1 before any. */
  get maxSeq(): number {
    return this.#nextSeq - 1;
  }

  /** The highest seq of an applied write, -1 before any. */
  get appliedSeq(): number {
    return this.#appliedSeq;
  }

  /** On start-up: continue after a sequence number handed out before the restart. */
  continueAfter(seq: number): void {
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1);
  }

  /** The live document with this id once the planned writes apply: staged ones first, then applied ones. */
  planned(id: string): DocLocation | undefined {
    const staged = this.#staged.get(id);
    if (!staged) return this.locate(id);
    return staged.deleted ? undefined : staged;
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
    // The location is the staged entry itself (one object a planned write, not two).
    const location: StagedPut = { seq: this.#nextSeq++, version, local: -1, routing, batch, deleted: false };
    this.#staged.set(id, location);
    return location;
  }

  /** Plans the delete of a document, leaving its id at `version`; returns the delete's seq. */
  stageDelete(id: string, version: number, batch: number): number {
    this.#staged.set(id, { batch, version, deleted: true });
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

  /** Applies a planned delete (durable now): the id goes, and its version is remembered a while, as ES does. */
  applyDelete(id: string, version: number, seq: number): DocLocation | undefined {
    const removed = this.remove(id);
    this.#tombstones.set(id, { version, at: Date.now() });
    this.#appliedSeq = Math.max(this.#appliedSeq, seq);
    return removed;
  }

  /**
   * The live document with this id, refreshed or not. A segment holds an id at most once, and an
   * older segment's copy of an id is always deleted once a newer one exists (layout order is write
   * order), so the newest copy found decides.
   */
  locate(id: string): DocLocation | undefined {
    const hash = idHash(id);
    if (!this.#ids.mayHold(hash)) return undefined;
    const buffer = this.#buffer, at = buffer.find(id, hash);
    if (at >= 0) {
      const routing = buffer.routing(at);
      return { seq: buffer.seq(at), version: buffer.version(at), local: -1, ...(routing !== undefined && { routing }) };
    }
    return this.#locateInSegments(id, hash, false);
  }

  /** The document with this id as the published snapshot shows it: its segments and the deletes published with them. */
  locatePublished(id: string): DocLocation | undefined {
    const hash = idHash(id);
    return this.#ids.mayHold(hash) ? this.#locateInSegments(id, hash, true) : undefined;
  }

  /** `published`: read the deletes the snapshot was published with, else every delete so far. */
  #locateInSegments(id: string, hash: number, published: boolean): DocLocation | undefined {
    const segments = this.shard.snapshot.segments;
    for (let s = segments.length - 1; s >= 0; s--) {
      const live = segments[s];
      const local = live.segment.ids.find(id, hash);
      if (local < 0) continue;
      if (published ? live.deleted?.[local] === 1 : this.deletes.isDeleted(live, local)) return undefined;
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
   * @returns where the replaced document was, if any.
   */
  put(id: string, values: DocValues, version: number, routing?: string, seq = this.#nextSeq, replaces = true): DocLocation | undefined {
    const replaced = replaces ? this.remove(id) : undefined;
    this.#tombstones.delete(id);
    this.#nextSeq = Math.max(this.#nextSeq, seq + 1);
    this.#appliedSeq = Math.max(this.#appliedSeq, seq);
    const hash = idHash(id);
    this.#buffer.add(id, hash, seq, version, values, routing);
    this.#ids.add(hash);
    if (this.#ids.full) this.#ids = this.#idFilter();
    if (seq > this.#sealedThrough) this.#unsealed++;
    this.#docCount++;
    this.#uncommittedOps++;
    return replaced;
  }

  /** Deletes the live document with this id; it stays visible to searches until the next refresh. */
  remove(id: string): DocLocation | undefined {
    const location = this.locate(id);
    if (!location) return undefined;
    this.#docCount--;
    this.#uncommittedOps++;
    if (location.segment) this.deletes.mark(this.shard.snapshot, location.segment, location.local);
    else {
      this.#buffer.remove(id);
      if (location.seq > this.#sealedThrough) this.#unsealed--;
    }
    return location;
  }

  /** Replaying storage: the document stored at `seq` was deleted by the write at `at` (if the shard still holds it live). */
  removeSeq(seq: number, at: number): void {
    this.#appliedSeq = Math.max(this.#appliedSeq, at);
    this.#nextSeq = Math.max(this.#nextSeq, at + 1);
    const buffered = this.#buffer.findSeq(seq);
    if (buffered >= 0) {
      this.remove(this.#buffer.id(buffered));
      return;
    }
    const segments = this.shard.snapshot.segments;
    // Seqs ascend through the segments in layout order: the last segment starting at or before seq.
    const live = segments[firstNotBefore(0, segments.length, (s) => segments[s].segment.seqs[0] <= seq) - 1];
    const local = live ? live.segment.localOfSeq(seq) : -1;
    if (local < 0 || this.deletes.isDeleted(live, local)) return;
    this.#docCount--;
    this.#uncommittedOps++;
    this.deletes.mark(this.shard.snapshot, live.segment, local);
  }

  /** Buffered documents no seal has taken: what a refresh would seal at once. */
  get unsealed(): number {
    return this.#unsealed;
  }

  /** Takes the buffered documents after the last seal's, in seq order (the buffer's order), for a seal. */
  takeUnsealed(): BufferedDocs {
    const docs = this.#buffer.take(this.#sealedThrough);
    const { positions } = docs;
    if (positions.length > 0) this.#sealedThrough = docs.seqs[positions[positions.length - 1]];
    this.#unsealed = 0;
    return docs;
  }

  /** A segment sealed from `docs` as published: their documents deleted or replaced since they were taken from the buffer are deleted. */
  sealedAsPublished(docs: BufferedDocs, segment: Segment): LiveSegment {
    const { positions } = docs;
    let deleted: Uint8Array | undefined, deletedCount = 0;
    for (let i = 0; i < positions.length; i++) {
      if (this.#buffer.holds(positions[i])) continue;
      (deleted ??= new Uint8Array(positions.length))[i] = 1;
      deletedCount++;
    }
    return { segment, deleted, deletedCount, base: 0 };
  }

  /** A refresh began: the versions of ids deleted long enough ago are forgotten. */
  expireTombstones(): void {
    const now = Date.now();
    for (const [id, { at }] of this.#tombstones) if (now - at > TOMBSTONE_MS) this.#tombstones.delete(id);
  }

  /** A refresh published every buffered document in a segment: the buffer is empty again. */
  published(): void {
    this.#buffer.clear();
  }

  /** Writes since the last durable commit point. */
  get uncommittedOps(): number {
    return this.#uncommittedOps;
  }

  /** Storage holds a commit point of `ops` of the writes. */
  committed(ops: number): void {
    this.#uncommittedOps = Math.max(0, this.#uncommittedOps - ops);
  }

  /** On start-up, before any write, once the shard published the segments of a stored commit point with every write up to `checkpoint`. */
  loaded(checkpoint: number): void {
    this.continueAfter(checkpoint);
    this.#appliedSeq = checkpoint;
    this.#docCount = this.shard.snapshot.liveCount;
    this.#ids = this.#idFilter();
  }

  /**
   * A filter of the ids the shard holds now, with room for as many more: from the hashes its
   * published segments keep and those of the buffer (which still holds every document sealed since).
   */
  #idFilter(): IdFilter {
    const lists: ArrayLike<number>[] = this.shard.snapshot.segments.map((s) => s.segment.ids.hashes);
    lists.push(this.#buffer.liveHashes());
    return IdFilter.of(lists, lists.reduce((n, hashes) => n + hashes.length, 0));
  }
}
