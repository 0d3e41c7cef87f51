/**
 * The one owner of `_source` on a node: the fetch phase, GET and updates read stored documents here
 * and nowhere else. A document is in one of three places:
 * - committing: in a write batch not yet applied (being written, or being replaced or deleted while
 *   memory still shows it);
 * - in storage (the {@link DocStore});
 * - retired: replaced or deleted, so gone from storage, while a snapshot that still shows it lives.
 *
 * Snapshots are counted by generation: each shard numbers the snapshots it publishes. A document
 * retired while generation g was the shard's newest is shown by generations up to g, so it is kept
 * while g or an older generation is still the newest or pinned (a point in time, a scroll), and
 * released as soon as none is.
 */
import { asStored, type DeleteWrite, type DocStore, type DocToStore, type DocWrite, type StoredDoc } from '../store/doc-store.ts';

export interface SourceStats {
  /** Replaced or deleted documents kept for snapshots that still show them. */
  retained: number;
  /** Documents whose commit is in flight. */
  committing: number;
  /** Shard generations pinned by open points in time and scrolls. */
  pinned_generations: number;
}

interface ShardSources {
  /** Retired documents by seq. */
  retired: Map<number, { doc: StoredDoc; through: number }>;
  /**
   * The retired seqs in the order they were retired (so their `through` never decreases), from
   * `head` on: released from the front without walking the map, whose deleted entries a walk from
   * its start would step over again at every release.
   */
  order: number[];
  head: number;
  /** The shard's newest published generation. */
  newest: number;
  /** Pinned generations and how many holders each has. */
  pins: Map<number, number>;
}

/** A batch's writes on their way to storage, found by key only when a read asks for one of them. */
interface InFlight {
  writes: readonly DocWrite[];
  /** Its puts' documents by `uuid/shard/seq`, for the first {@link InFlight.indexed} writes. */
  byKey: Map<string, DocToStore>;
  indexed: number;
}

export class Sources {
  /**
   * Documents replaced or deleted by a batch in flight, read when it was planned: by uuid, shard,
   * then seq, with how many batches in flight hold each (nested maps: no key string per write).
   */
  readonly #committing = new Map<string, Map<number, Map<number, { doc: DocToStore; holds: number }>>>();
  /** The batches in flight (a few at a time), whose puts are read from them until stored. */
  readonly #inFlight = new Map<readonly DocWrite[], InFlight>();
  /** By `uuid/shard`. */
  readonly #shards = new Map<string, ShardSources>();
  /** Shards (`uuid/shard`) whose release goes on in a later pass of the loop. */
  readonly #releasing = new Set<string>();

  constructor(private readonly store: DocStore) {}

  /** The document stored (or being stored) at (uuid, shard, seq), or one a live snapshot still shows. */
  load(uuid: string, shard: number, seq: number): StoredDoc | undefined {
    const stored = this.store.getDoc(uuid, shard, seq);
    if (stored) return stored;
    const held = this.#inMemory(uuid, shard, seq);
    return held && asStored(held);
  }

  /**
   * A document storage does not have, not yet or no longer: one a removal in flight holds, one a
   * batch in flight puts, or one retired. A seq names one document for good, so whichever place
   * answers, it is the same document storage had or will have.
   */
  #inMemory(uuid: string, shard: number, seq: number): DocToStore | undefined {
    return this.#committing.get(uuid)?.get(shard)?.get(seq)?.doc ?? this.#writing(uuid, shard, seq) ?? this.#shards.get(shardKey(uuid, shard))?.retired.get(seq)?.doc;
  }

  /**
   * The document a batch in flight puts at (uuid, shard, seq), if one does. Only an update of a
   * document written in a batch still in flight asks (searches and GETs read applied documents,
   * which storage has), so the batches are indexed when asked, not as they are planned.
   */
  #writing(uuid: string, shard: number, seq: number): DocToStore | undefined {
    if (this.#inFlight.size === 0) return undefined;
    const key = `${uuid}/${shard}/${seq}`;
    for (const batch of this.#inFlight.values()) {
      for (const { writes, byKey } = batch; batch.indexed < writes.length; batch.indexed++) {
        const write = writes[batch.indexed];
        if (write.op === 'put') byKey.set(`${write.uuid}/${write.shard}/${write.seq}`, write.doc);
      }
      const doc = batch.byKey.get(key);
      if (doc) return doc;
    }
    return undefined;
  }

  /**
   * The `_source` of the documents at (`shards[i]`, `seqs[i]`) of an index, in that order, as JSON
   * text or its UTF-8 bytes: what storage has (a document being replaced or deleted is still there
   * until its batch commits), then what only memory has.
   */
  sourcesOf(uuid: string, shards: readonly number[], seqs: readonly number[]): (string | Uint8Array | undefined)[] {
    const out: (string | Uint8Array | undefined)[] = this.store.sourcesOf(uuid, shards, seqs);
    for (let i = 0; i < seqs.length; i++) {
      if (out[i] === undefined) out[i] = this.#inMemory(uuid, shards[i], seqs[i])?.source;
    }
    return out;
  }

  /**
   * A batch's writes are on their way to storage: the documents it puts are read from it until
   * {@link committed}, by the writes planned after them too (the list is read as it grows).
   */
  writing(writes: readonly DocWrite[]): void {
    this.#inFlight.set(writes, { writes, byKey: new Map(), indexed: 0 });
  }

  /**
   * A write that replaces or deletes a document is on its way to storage: that document, read now
   * while storage still has it, is served from memory until {@link committed}.
   */
  committing(removal: DeleteWrite): void {
    const doc = this.load(removal.uuid, removal.shard, removal.seq);
    if (!doc) return;
    let shards = this.#committing.get(removal.uuid);
    if (!shards) this.#committing.set(removal.uuid, (shards = new Map()));
    let docs = shards.get(removal.shard);
    if (!docs) shards.set(removal.shard, (docs = new Map()));
    const held = docs.get(removal.seq);
    if (held) held.holds++;
    else docs.set(removal.seq, { doc, holds: 1 });
  }

  /** The batch is applied (or failed): storage, and the retired documents, answer for its documents from now on. */
  committed(writes: readonly DocWrite[]): void {
    this.#inFlight.delete(writes);
    for (const write of writes) {
      if (write.op === 'put') continue;
      const shards = this.#committing.get(write.uuid);
      const docs = shards?.get(write.shard);
      const held = docs?.get(write.seq);
      if (!held) continue;
      if (--held.holds > 0) continue;
      docs!.delete(write.seq);
      if (docs!.size > 0) continue;
      shards!.delete(write.shard);
      if (shards!.size === 0) this.#committing.delete(write.uuid);
    }
  }

  /**
   * The document at (uuid, shard, seq) is replaced or deleted; snapshots up to `generation` (the
   * shard's newest) may still show it. Call while its batch still holds it (see {@link committing}).
   */
  retire(uuid: string, shard: number, seq: number, generation: number): void {
    const doc = this.load(uuid, shard, seq);
    if (!doc) return;
    const entry = this.#shard(uuid, shard);
    entry.newest = Math.max(entry.newest, generation);
    entry.retired.set(seq, { doc, through: generation });
    entry.order.push(seq);
  }

  /** The shard published `generation`: documents only older, unpinned generations showed go. */
  published(uuid: string, shard: number, generation: number): void {
    const entry = this.#shards.get(shardKey(uuid, shard));
    if (!entry) return;
    entry.newest = Math.max(entry.newest, generation);
    this.#release(uuid, shard, entry);
  }

  /** A point in time or scroll holds the shard's snapshot of this generation. */
  pin(uuid: string, shard: number, generation: number): void {
    const pins = this.#shard(uuid, shard).pins;
    pins.set(generation, (pins.get(generation) ?? 0) + 1);
  }

  /** One holder of the generation let it go; what only it needed is released. */
  unpin(uuid: string, shard: number, generation: number): void {
    const entry = this.#shards.get(shardKey(uuid, shard));
    const count = entry?.pins.get(generation);
    if (!entry || count === undefined) return;
    if (count > 1) entry.pins.set(generation, count - 1);
    else entry.pins.delete(generation);
    this.#release(uuid, shard, entry);
  }

  /** The index is gone: everything kept for it goes too. */
  dropIndex(uuid: string): void {
    const prefix = `${uuid}/`;
    for (const key of this.#shards.keys()) if (key.startsWith(prefix)) this.#shards.delete(key);
    this.#committing.delete(uuid);
  }

  stats(): SourceStats {
    let retained = 0, pinned = 0;
    // A document a batch puts may be one a later batch replaces: counted once.
    const committing = new Set<string>();
    for (const [uuid, shards] of this.#committing) for (const [shard, docs] of shards) for (const seq of docs.keys()) committing.add(`${uuid}/${shard}/${seq}`);
    for (const { writes } of this.#inFlight.values()) for (const write of writes) if (write.op === 'put') committing.add(`${write.uuid}/${write.shard}/${write.seq}`);
    for (const entry of this.#shards.values()) {
      retained += entry.retired.size;
      pinned += entry.pins.size;
    }
    return { retained, committing: committing.size, pinned_generations: pinned };
  }

  /**
   * Lets go of the retired documents no live snapshot shows, {@link RELEASE_BATCH} at a time: a
   * point in time that expires after a minute of busy writes releases tens of thousands at once, and
   * did so in one callback of 40 ms. The rest go in the next passes of the event loop.
   */
  #release(uuid: string, shard: number, entry: ShardSources): void {
    let oldest = entry.newest;
    for (const generation of entry.pins.keys()) oldest = Math.min(oldest, generation);
    const { retired, order } = entry;
    for (let released = 0; entry.head < order.length; entry.head++) {
      const seq = order[entry.head];
      const kept = retired.get(seq);
      if (kept && kept.through >= oldest) break;
      if (released++ === RELEASE_BATCH) {
        this.#releaseLater(uuid, shard);
        break;
      }
      retired.delete(seq);
    }
    if (entry.head > 4096 && entry.head * 2 > order.length) {
      order.splice(0, entry.head);
      entry.head = 0;
    }
    if (retired.size === 0 && entry.pins.size === 0) this.#shards.delete(shardKey(uuid, shard));
  }

  #releaseLater(uuid: string, shard: number): void {
    const key = shardKey(uuid, shard);
    if (this.#releasing.has(key)) return;
    this.#releasing.add(key);
    setImmediate(() => {
      this.#releasing.delete(key);
      const entry = this.#shards.get(key);
      if (entry) this.#release(uuid, shard, entry);
    }).unref();
  }

  #shard(uuid: string, shard: number): ShardSources {
    const key = shardKey(uuid, shard);
    let entry = this.#shards.get(key);
    if (!entry) this.#shards.set(key, (entry = { retired: new Map(), order: [], head: 0, newest: 0, pins: new Map() }));
    return entry;
  }
}

const shardKey = (uuid: string, shard: number) => `${uuid}/${shard}`;

/** Retired documents released per pass of the event loop. */
const RELEASE_BATCH = 8192;
