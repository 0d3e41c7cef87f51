/**
 * The write path: durable first, then visible. A batch of writes is planned against memory as the
 * batches still committing will leave it (versions, seqs, dynamic mappings), stored in one storage
 * transaction, and applied to memory only once storage has it on disk. Batches commit and apply in
 * the order they were planned, each after the one before it.
 *
 * When storage refuses a batch, nothing in memory has changed: the batch fails, and so does every
 * batch planned after it (they were planned on top of it, and are never written); what they staged
 * is discarded and indices they created go, so planning starts again from what is durable.
 */
import type { DocStore, DocWrite } from '../../store/doc-store.ts';
import { EsError } from '../errors.ts';
import type { SearchIndex } from '../search-index.ts';
import type { Planned, WriteResult, WrittenIndex } from '../search-index/index-writes.ts';
import type { Sources } from '../sources.ts';
import { storageFailure } from './storage-failure.ts';

/** One write as the engine takes it (see Engine.write). */
export type WriteOp =
  /** `sent`: the source's JSON as the client sent it (text, or its UTF-8 bytes), stored as it is (else the source is serialized). */
  | { action: 'index' | 'create'; index: string; id?: string; source: Record<string, unknown>; sent?: string | Uint8Array; routing?: string }
  | { action: 'delete'; index: string; id: string; routing?: string }
  | { action: 'update'; index: string; id: string; doc?: Record<string, unknown>; upsert?: Record<string, unknown>; docAsUpsert?: boolean; routing?: string };

export type WriteItem = WriteResult & { forced_refresh?: boolean };

export interface CommittingBatch {
  /** Each write's result or error, final at once; none may be acknowledged before `committed`. */
  items: (WriteItem | EsError)[];
  /** Resolves when the batch is durable and applied; rejects when storage refused it (nothing applied). */
  committed: Promise<void>;
  /** The shards each index's writes went to. */
  touched: Map<SearchIndex, Set<number>>;
}

export interface BatchTargets {
  /**
   * The index a write goes to, created (and reported) if the write may create it; `routing` when an
   * alias the write names gives the routing (writes through aliases).
   */
  indexFor(op: WriteOp): { index: SearchIndex; created: boolean; routing?: string };
  /** A created index whose creation failed to become durable: it goes. */
  forget(index: SearchIndex): void;
  /** Every index, for discarding what was planned. */
  all(): Iterable<SearchIndex>;
}

/** A batch planned and waiting for storage: `done` settles its `committed` (applying it first unless given an error). */
interface Waiting {
  writes: DocWrite[];
  metas: Set<SearchIndex>;
  done: (error?: unknown) => void;
}

/**
 * The most writes one group commit takes (see {@link WriteBatches}' `#store`): handing them to
 * storage is one callback of a few milliseconds (about 1.5 µs a write), and a `_bulk` of 10,000
 * documents, planned 250 at a time (engine.ts `WRITE_CHUNK`), then commits in a few transactions rather than
 * one per chunk, each with its own sync.
 */
const GROUP_WRITES = 5000;

/** How long settling batches may hold one pass of the event loop, in ms (a batch of 250 writes applies in about half a millisecond). */
const SETTLE_PASS_MS = 3;

export class WriteBatches {
  #batch = 0;
  /** Counts failures: a batch planned before the last one is discarded with it. */
  #epoch = 0;
  /**
   * Batches planned and waiting for storage, in order. While one transaction commits, the batches
   * planned meanwhile wait here, and then commit together in the next (group commit: one sync for
   * all of them). A group stands or falls as one, and a failure fails the batches waiting behind it
   * too, since they were planned on top of it.
   */
  #waiting: Waiting[] = [];
  /** The transaction being committed, if one is. */
  #storing: Promise<void> | undefined;
  /** Groups whose transaction ended, their batches being settled a few milliseconds per pass, in order (see {@link #settle}). */
  #settling: Promise<void> = Promise.resolve();
  /** Indices created by batches not yet durable. */
  readonly #created = new Set<SearchIndex>();

  constructor(
    private readonly store: DocStore,
    private readonly sources: Sources,
    private readonly targets: BatchTargets,
  ) {}

  commit(ops: readonly WriteOp[]): CommittingBatch {
    const batch = ++this.#batch;
    const epoch = this.#epoch;
    const writes: DocWrite[] = [];
    /** Indices whose metadata the batch changes (new index, new fields, sequence numbers). */
    const metas = new Set<SearchIndex>();
    const touched = new Map<SearchIndex, Set<number>>();
    const plans: Planned[] = [];
    const created: SearchIndex[] = [];
    this.sources.writing(writes);
    const items = ops.map((op): WriteItem | EsError => {
      try {
        const target = this.targets.indexFor(op);
        const { index } = target;
        if (target.created) {
          created.push(index);
          this.#created.add(index);
          metas.add(index);
        }
        const planned = this.#plan(index, target.routing === undefined ? op : { ...op, routing: target.routing }, batch);
        // Deletes take sequence numbers that only the metadata records.
        if (planned.fields || op.action === 'delete') metas.add(index);
        plans.push(planned);
        // Until the batch is applied, its documents (and those it replaces) are read from memory,
        // by the writes planned after this one too.
        if (planned.removal) {
          this.sources.committing(planned.removal);
          writes.push(planned.removal);
        }
        if (planned.put) writes.push(planned.put);
        if (!touched.has(index)) touched.set(index, new Set());
        touched.get(index)!.add(planned.shard);
        return planned.result;
      } catch (e) {
        if (e instanceof EsError) return e;
        throw e;
      }
    });
    // Named now: the closures below outlive planning, and holding `ops` would keep every parsed
    // source alive until the batch is durable (a reindex's or a caller's, long after planning).
    const firstIndex = ops[0]?.index ?? '';
    const stored = new Promise<void>((resolve, reject) => {
      this.#waiting.push({ writes, metas, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
    this.#store();
    const committed = stored
      .then(
        () => {
          for (const index of created) this.#created.delete(index);
          this.#apply(batch, plans);
        },
        (error: unknown) => {
          this.#discard(epoch);
          throw storageFailure(error, firstIndex);
        },
      )
      .finally(() => this.sources.committed(writes));
    return { items, committed, touched };
  }

  /** Commits every waiting batch in one transaction, unless one is under way (its end starts the next). */
  #store(): void {
    if (this.#storing || this.#waiting.length === 0) return;
    // Whole batches up to GROUP_WRITES writes (at least one batch).
    let take = 0;
    for (let writes = 0; take < this.#waiting.length && (take === 0 || writes + this.#waiting[take].writes.length <= GROUP_WRITES); take++) writes += this.#waiting[take].writes.length;
    const group = this.#waiting.splice(0, take);
    const metas = new Set(group.flatMap((batch) => [...batch.metas]));
    this.#storing = this.store
      .write(group.flatMap((batch) => batch.writes), [...metas].map((index) => index.meta()))
      .then(
        () => this.#settle(group),
        (error: unknown) => {
          // Batches planned behind the group were planned on top of it: they fail with it.
          this.#settle([...group, ...this.#waiting.splice(0)], error ?? new Error('storage refused the write'));
        },
      )
      .finally(() => {
        this.#storing = undefined;
        this.#store();
      });
  }

  /**
   * Settles a group's batches in order, after every group before it: a batch that stored is applied
   * to memory then (see {@link commit}), batches for up to {@link SETTLE_PASS_MS} per pass of the
   * event loop, so that a large group does not hold the loop.
   */
  #settle(group: readonly Waiting[], error?: unknown): void {
    this.#settling = this.#settling.then(async () => {
      let passStarted = performance.now();
      for (const batch of group) {
        if (performance.now() - passStarted >= SETTLE_PASS_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          passStarted = performance.now();
        }
        batch.done(error);
        // The batch's reactions (applying it) run before this continues.
        await null;
      }
    });
  }

  #plan(index: SearchIndex, op: WriteOp, batch: number): Planned {
    switch (op.action) {
      case 'index':
      case 'create':
        return index.writes.index(op.id ?? generateId(), op.source, op.action, batch, op.routing, op.sent);
      case 'delete':
        return index.writes.delete(op.id, batch, op.routing);
      case 'update': {
        const found = index.writes.plannedLocation(op.id, op.routing);
        const current = found && this.sources.load(index.uuid, found.shard.number, found.location.seq);
        return index.writes.update(op.id, current && (JSON.parse(current.source) as Record<string, unknown>), { doc: op.doc, upsert: op.docAsUpsert ? op.doc : op.upsert }, batch, op.routing);
      }
    }
  }

  /** In plan order: memory takes the batch; documents a published snapshot shows stay readable for it. */
  #apply(batch: number, plans: readonly Planned[]): void {
    for (const planned of plans) {
      const { index } = planned;
      if (index.closed) continue;
      const replaced = index.writes.apply(planned);
      if (replaced?.segment) this.sources.retire(index.uuid, planned.shard, replaced.seq, index.shards[planned.shard].snapshot.generation);
    }
    const byIndex = new Map<WrittenIndex, Planned[]>();
    for (const planned of plans) {
      const { index } = planned;
      const list = byIndex.get(index);
      if (list) list.push(planned);
      else byIndex.set(index, [planned]);
    }
    for (const [index, planned] of byIndex) index.writes.unstage(batch, planned);
  }

  /** A batch of this epoch failed: everything planned so far is forgotten (once). */
  #discard(epoch: number): void {
    if (epoch !== this.#epoch) return;
    this.#epoch++;
    for (const index of this.targets.all()) index.writes.discardPlanned();
    for (const index of this.#created) this.targets.forget(index);
    this.#created.clear();
  }
}

/** ES's auto-generated ids are 20 URL-safe base64 characters. */
function generateId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(15))).toString('base64url');
}
