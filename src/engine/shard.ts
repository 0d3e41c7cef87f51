/**
 * A shard: the documents routed to it, as a write buffer plus a list of immutable segments.
 * Writes land in the buffer and the id table at once (GET is real time, as in Elasticsearch);
 * searches see them after the next refresh, which seals the buffer into segments, applies the
 * pending deletes to fresh bitsets and publishes a new {@link ShardSnapshot}.
 *
 * Long work goes a slice at a time (steps.ts) when the caller can wait: {@link Shard.sealing} seals
 * the buffer's documents into a segment between other work, ahead of the refresh that publishes it,
 * and {@link Shard.merging} merges two segments and publishes the result, as Lucene's merges run
 * beside searches. A merge changes where documents are, never what a search finds.
 */
import type { IndexFamily } from './field-types.ts';
import type { DocValues } from './mapping.ts';
import { buildSegment } from './segments/build.ts';
import { IdFilter } from './segments/id-filter.ts';
import { idHash } from './segments/ids.ts';
import { nextMerge, type ForceMergeGoal } from './segments/merge-policy.ts';
import { mergeSegments, type MergedSegment } from './segments/merge.ts';
import type { Segment } from './segments/segment.ts';
import { WriteBuffer, type BufferedDocs } from './segments/write-buffer.ts';
import { finish, type Steps } from './steps.ts';

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

/** A planned put: where the document will be (see {@link Shard.stagePut}). */
type StagedPut = DocLocation & { batch: number; deleted: false };
/** A planned write of an id, staged until its batch applies. */
type Staged = StagedPut | { batch: number; version: number; deleted: true };

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


/** Buffered documents sealed, not yet published: still in the buffer (so lookups find them) until a refresh publishes the segment. */
interface Sealed {
  docs: BufferedDocs;
  segment: Segment;
}

/** A merge under way: the segments as they were published when it began, and the documents it keeps of each. */
interface Merge {
  parts: { segment: Segment; locals: Uint32Array }[];
  steps: Steps<MergedSegment>;
}

export class Shard {
  snapshot: ShardSnapshot;
  /** Written documents not yet in a published segment, in seq order, by id and by seq. */
  #buffer = new WriteBuffer();
  /** Every id the buffer or a segment may hold (more, never fewer): a fresh id is answered here. */
  #ids = new IdFilter(0);
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
   * Writes planned but not yet durable, by id: a put's document location to be, or the version a
   * delete leaves the id at. Planning reads through them; nothing else sees them.
   */
  #staged = new Map<string, Staged>();
  /** The highest seq of an applied write: every write up to it is in memory (seqs apply in order). */
  #appliedSeq = -1;
  /** Buffered documents sealed into segments that no refresh has published yet. */
  #sealed: Sealed[] = [];
  /** A seal under way, of the documents it took from the buffer. */
  #sealing: { docs: BufferedDocs; steps: Steps<Segment> } | undefined;
  /** The highest seq taken by a seal: buffered documents after it are not in one yet. */
  #sealedThrough = -1;
  /** Buffered documents after {@link #sealedThrough}. */
  #unsealed = 0;
  #merge: Merge | undefined;
  /** The goal of the force merge under way, if one is. */
  #forceGoal: ForceMergeGoal | undefined;

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
    const segments = this.snapshot.segments;
    for (let s = segments.length - 1; s >= 0; s--) {
      const live = segments[s];
      const local = live.segment.ids.find(id, hash);
      if (local < 0) continue;
      if (published ? live.deleted?.[local] === 1 : this.#isDeleted(live, local)) return undefined;
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
    if (location.segment) this.#markDeleted(location.segment, location.local);
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

  /** Makes every write so far visible to searches: seals what no seal has taken yet at once, and publishes. */
  refresh(): void {
    const now = Date.now();
    for (const [id, { at }] of this.#tombstones) if (now - at > TOMBSTONE_MS) this.#tombstones.delete(id);
    if (this.#sealing) this.#sealed.push({ docs: this.#sealing.docs, segment: finish(this.#sealing.steps) });
    this.#sealing = undefined;
    if (!this.dirty) {
      // Every document sealed so far was deleted or replaced since: nothing to publish.
      this.#sealed = [];
      return;
    }
    const rest = this.#takeUnsealed();
    if (rest.positions.length > 0) this.#sealed.push({ docs: rest, segment: finish(buildSegment(rest, this.familyOf)) });
    const segments = this.snapshot.segments.map((live) => this.#applyDeletes(live));
    for (const sealed of this.#sealed) segments.push(this.#withBufferDeletes(sealed));
    this.#sealed = [];
    this.#buffer.clear();
    const before = this.snapshot.segments.map((s) => s.segment);
    this.#publish(segments.filter((s) => s.deletedCount < s.segment.count));
    this.#forget(before);
  }

  /** A seal is under way ({@link sealing}). */
  get sealingUnderWay(): boolean {
    return this.#sealing !== undefined;
  }

  /** Buffered documents no seal has taken: what {@link refresh} would seal at once. */
  get unsealed(): number {
    return this.#unsealed;
  }

  /**
   * Seals the buffered documents no seal has taken yet into a segment, a slice at a time; the next
   * refresh publishes it. Documents written meanwhile stay for a later seal; those deleted or
   * replaced meanwhile are marked deleted in the segment when it is published. A refresh that comes
   * first finishes the seal at once.
   */
  *sealing(): Steps<void> {
    if (this.#sealing || this.#unsealed === 0) return;
    const docs = this.#takeUnsealed();
    const seal = (this.#sealing = { docs, steps: buildSegment(docs, this.familyOf) });
    for (;;) {
      // A refresh finished it (or a newer seal replaced it): nothing is left to do here.
      if (this.#sealing !== seal) return;
      const step = seal.steps.next();
      if (step.done) {
        this.#sealed.push({ docs, segment: step.value });
        this.#sealing = undefined;
        return;
      }
      yield;
    }
  }

  /**
   * Merges a run of adjacent segments (see #planMerge), when the shard has more
   * than it keeps, a slice at a time, then publishes the merged segment in their place with the
   * deletes made meanwhile; the merged segment if it published one. Nothing changes when a refresh
   * has dropped either segment before the merge ends.
   */
  *merging(): Steps<MergedSegment | undefined> {
    if (this.#merge) return undefined;
    const merge = this.#planMerge();
    if (!merge) return undefined;
    this.#merge = merge;
    try {
      for (;;) {
        const step = merge.steps.next();
        if (step.done) return this.#installMerge(merge, step.value.segment) ? step.value : undefined;
        yield;
      }
    } finally {
      this.#merge = undefined;
    }
  }

  /** The policy asks for a merge (the shard holds more segments than it keeps, or a force merge's goal is not met), and none is under way. */
  get wantsMerge(): boolean {
    return this.#merge === undefined && nextMerge(this.snapshot.segments, this.#forceGoal) !== undefined;
  }

  /** Sets the goal of a force merge (`_forcemerge`) for the merges from now on; undefined when it is over. */
  forceMerge(goal: ForceMergeGoal | undefined): void {
    this.#forceGoal = goal;
  }

  /** Takes the buffered documents after the last seal's, in seq order (the buffer's order). */
  #takeUnsealed(): BufferedDocs {
    const docs = this.#buffer.take(this.#sealedThrough);
    const { positions } = docs;
    if (positions.length > 0) this.#sealedThrough = docs.seqs[positions[positions.length - 1]];
    this.#unsealed = 0;
    return docs;
  }

  /** A sealed segment as published: its documents deleted or replaced since they were taken from the buffer are deleted. */
  #withBufferDeletes({ docs, segment }: Sealed): LiveSegment {
    const { positions } = docs;
    let deleted: Uint8Array | undefined, deletedCount = 0;
    for (let i = 0; i < positions.length; i++) {
      if (this.#buffer.holds(positions[i])) continue;
      (deleted ??= new Uint8Array(positions.length))[i] = 1;
      deletedCount++;
    }
    return { segment, deleted, deletedCount, base: 0 };
  }

  /** Segments no longer published lose their pending deletes, and whoever keeps things for them is told. */
  #forget(before: readonly Segment[]): void {
    const kept = new Set(this.snapshot.segments.map((s) => s.segment));
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
    this.#ids = this.#idFilter();
  }

  /**
   * A filter of the ids the shard holds now, with room for as many more: from the hashes its
   * published segments keep and those of the buffer (which still holds every document sealed since).
   */
  #idFilter(): IdFilter {
    const lists: ArrayLike<number>[] = this.snapshot.segments.map((s) => s.segment.ids.hashes);
    lists.push(this.#buffer.liveHashes());
    return IdFilter.of(lists, lists.reduce((n, hashes) => n + hashes.length, 0));
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

  /** The next merge the policy (segments/merge-policy.ts) asks for, with a force merge's goal if one runs. */
  #planMerge(): Merge | undefined {
    const segments = this.snapshot.segments;
    const run = nextMerge(segments, this.#forceGoal);
    if (!run) return undefined;
    const parts = segments.slice(run.at, run.at + run.k).map((s) => ({ segment: s.segment, locals: liveLocals(s) }));
    return { parts, steps: mergeSegments(parts) };
  }

  /**
   * Publishes the merged segment in place of its parts, if they are all still published side by
   * side, with what was deleted of them since the merge began: published deletes as published, the
   * rest pending for the next refresh.
   */
  #installMerge({ parts }: Merge, merged: Segment): boolean {
    const segments = this.snapshot.segments;
    const at = segments.findIndex((s) => s.segment === parts[0].segment);
    if (at < 0 || parts.some((part, p) => segments[at + p]?.segment !== part.segment)) return false;
    let published: Uint8Array | undefined, pending: Uint8Array | undefined;
    let publishedCount = 0, pendingCount = 0, to = 0;
    for (let p = 0; p < parts.length; p++) {
      const { locals } = parts[p];
      const seen = segments[at + p].deleted;
      const now = this.#deletes.get(parts[p].segment)?.deleted ?? seen;
      for (let i = 0; i < locals.length; i++, to++) {
        if (seen?.[locals[i]] === 1) {
          (published ??= new Uint8Array(merged.count))[to] = 1;
          publishedCount++;
        }
        if (now?.[locals[i]] === 1) {
          (pending ??= new Uint8Array(merged.count))[to] = 1;
          pendingCount++;
        }
      }
    }
    if (pendingCount > publishedCount) this.#deletes.set(merged, { deleted: pending!, count: pendingCount, shared: false });
    const before = segments.map((s) => s.segment);
    const replaced = [...segments.slice(0, at), { segment: merged, deleted: published, deletedCount: publishedCount, base: 0 }, ...segments.slice(at + parts.length)];
    this.#publish(replaced.filter((s) => s.deletedCount < s.segment.count));
    this.#forget([...before, merged]);
    return true;
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
