/**
 * An index's write path. A write is planned against the index as the writes planned before it
 * leave it ({@link IndexWrites.index}, {@link IndexWrites.update}, {@link IndexWrites.delete}): its
 * shard, sequence number and version, its `_shards` answer, and the storage writes that make it
 * durable. Nothing in memory shows it until storage has it and its batch applies it
 * ({@link IndexWrites.apply}); the engine acknowledges only then (writes/write-batches.ts).
 */
import type { DeleteWrite, DocToStore, DocWrite, StoredDoc } from '../../store/doc-store.ts';
import { EsError, illegalArgument, validationFailed } from '../errors.ts';
import type { DocValues, FieldMapping, Mappings } from '../mapping.ts';
import { isObject } from '../patterns.ts';
import { shardFor } from '../routing.ts';
import type { Shard } from '../shard.ts';
import type { DocLocation } from '../shard/shard-writes.ts';
import type { SearchedIndex } from './index-snapshot.ts';

export type WriteOutcome = 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';

export interface WriteResult {
  _index: string;
  _id: string;
  _version: number;
  result: WriteOutcome;
  _shards: { total: number; successful: number; failed: number };
  _seq_no: number;
  _primary_term: number;
  status: number;
}

/** The index a write path belongs to (search-index.ts), as a planned write names it. */
export interface WrittenIndex extends SearchedIndex {
  readonly shards: readonly Shard[];
  readonly writes: IndexWrites;
  /** Deleted or shut down: a write still committing must not seal segments nobody will drop. */
  readonly closed: boolean;
}

/**
 * A write planned against the index as planned writes leave it; nothing in memory shows it yet.
 * One object a write, effect and storage writes included: a `_bulk` plans thousands, each kept
 * until its batch is durable (every object more was one more for the young generation to copy).
 */
export interface Planned {
  index: WrittenIndex;
  result: WriteResult;
  shard: number;
  /** What the write does to memory once storage has it; none for a noop or a delete of nothing. */
  effect: 'put' | 'delete' | undefined;
  id: string;
  /** The put's or delete's seq, and the version it leaves the id at. */
  seq: number;
  version: number;
  /** A put's values. */
  values: DocValues | undefined;
  routing: string | undefined;
  /** A put's: a live document had the id when the write was planned (else there is none to look up when it applies). */
  replaces: boolean;
  /** What storage must hold: the document put, and the delete of the document it replaces or deletes. */
  put: DocWrite | undefined;
  removal: DeleteWrite | undefined;
  /** Dynamic mappings the write adds. */
  fields: ReadonlyMap<string, FieldMapping> | undefined;
}

export class IndexWrites {
  /** The mappings with the dynamic fields of planned writes, while some are not yet durable. */
  #plannedMappings: Mappings | undefined;
  /** A write's `_shards`, shared by the results while the replica count stays ({@link #writeShards}). */
  #shardsOfWrites: WriteResult['_shards'] | undefined;

  readonly #index: WrittenIndex;

  constructor(index: WrittenIndex) {
    this.#index = index;
  }

  /** The mappings as the planned writes leave them (what the index's metadata records). */
  get plannedMappings(): Mappings {
    return this.#plannedMappings ?? this.#index.mappings;
  }

  /** The shard a document goes to: by its routing value, else by its id. */
  shardOf(id: string, routing?: string): Shard {
    const { shards, settings } = this.#index;
    return shards[shardFor(routing ?? id, shards.length, settings.numberOfRoutingShards)];
  }

  /**
   * Plans the indexing of a document: a new one (`create` fails if the id exists) or a new version.
   * @param batch the write batch it belongs to (staged under it until applied or discarded).
   */
  index(id: string, source: Record<string, unknown>, opType: 'index' | 'create', batch: number, routing?: string, sent?: string | Uint8Array): Planned {
    checkId(id);
    const index = this.#index;
    const shard = this.shardOf(id, routing);
    const existing = shard.writes.planned(id);
    if (existing && opType === 'create') {
      throw new EsError(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${existing.version}])`, {
        index_uuid: index.uuid,
        shard: String(shard.number),
        index: index.name,
      });
    }
    const { values, added } = this.plannedMappings.extract(source, id);
    if (added.size > 0) (this.#plannedMappings ??= index.mappings.clone()).addFields(added);
    const location = shard.writes.stagePut(id, shard.writes.plannedVersion(id, existing) + 1, batch, routing);
    const { seq, version } = location;
    const removal: DeleteWrite | undefined = existing && { op: 'delete', uuid: index.uuid, shard: shard.number, seq: existing.seq, at: seq };
    const doc: DocToStore = routing === undefined ? { id, version, source: sent ?? JSON.stringify(source) } : { id, version, source: sent ?? JSON.stringify(source), routing };
    const put: DocWrite = { op: 'put', uuid: index.uuid, shard: shard.number, seq, doc };
    const result = this.#result(id, location, existing ? 'updated' : 'created', existing ? 200 : 201);
    return {
      index,
      result,
      shard: shard.number,
      effect: 'put',
      id,
      seq,
      version,
      values,
      routing,
      replaces: existing !== undefined,
      put,
      removal,
      fields: added.size > 0 ? added : undefined,
    };
  }

  /**
   * Plans ES's partial update: `doc` merged into the current source (a noop when it changes
   * nothing), or `upsert` indexed when there is no current document.
   */
  update(id: string, current: Record<string, unknown> | undefined, { doc, upsert }: { doc?: Record<string, unknown>; upsert?: Record<string, unknown> }, batch: number, routing?: string): Planned {
    const shard = this.shardOf(id, routing);
    if (!current) {
      if (upsert) return this.index(id, upsert, 'index', batch, routing);
      throw new EsError(404, 'document_missing_exception', `[${id}]: document missing`, { index_uuid: this.#index.uuid, shard: String(shard.number), index: this.#index.name });
    }
    const merged = deepMerge(current, doc ?? {});
    if (JSON.stringify(merged) !== JSON.stringify(current)) return this.index(id, merged, 'index', batch, routing);
    const location = shard.writes.planned(id)!;
    const result = { ...this.#result(id, location, 'noop', 200), _shards: { total: 0, successful: 0, failed: 0 } };
    return this.#withoutEffect(result, shard.number, id, location);
  }

  /** Plans a delete. */
  delete(id: string, batch: number, routing?: string): Planned {
    const shard = this.shardOf(id, routing);
    const existing = shard.writes.planned(id);
    if (!existing) {
      const nothing = { seq: shard.writes.takeSeq(), version: 1, local: -1 };
      return this.#withoutEffect(this.#result(id, nothing, 'not_found', 404), shard.number, id, nothing);
    }
    const version = existing.version + 1;
    const seq = shard.writes.stageDelete(id, version, batch);
    const removal: DeleteWrite = { op: 'delete', uuid: this.#index.uuid, shard: shard.number, seq: existing.seq, at: seq };
    const result = this.#result(id, { ...existing, seq, version }, 'deleted', 200);
    return { index: this.#index, result, shard: shard.number, effect: 'delete', id, seq, version, values: undefined, routing: undefined, replaces: false, put: undefined, removal, fields: undefined };
  }

  /** A planned write that changes nothing (a noop update, a delete of nothing). */
  #withoutEffect(result: WriteResult, shard: number, id: string, { seq, version }: DocLocation): Planned {
    return { index: this.#index, result, shard, effect: undefined, id, seq, version, values: undefined, routing: undefined, replaces: false, put: undefined, removal: undefined, fields: undefined };
  }

  /** The live document with this id as planned writes leave it (what an update reads). */
  plannedLocation(id: string, routing?: string): { shard: Shard; location: DocLocation } | undefined {
    const shard = this.shardOf(id, routing);
    const location = shard.writes.planned(id);
    return location && { shard, location };
  }

  /**
   * Applies a planned write, durable now: mappings grow, the shard takes the document or the delete.
   * @returns the document it replaced or deleted, if any.
   */
  apply(planned: Planned): DocLocation | undefined {
    if (planned.fields) this.#index.mappings.addFields(planned.fields);
    const { writes } = this.#index.shards[planned.shard];
    if (planned.effect === 'delete') return writes.applyDelete(planned.id, planned.version, planned.seq);
    if (planned.effect === 'put') return writes.put(planned.id, planned.values!, planned.version, planned.routing, planned.seq, planned.replaces);
    return undefined;
  }

  /** The batch's planned writes are applied or discarded: planning stops reading them. */
  unstage(batch: number, planned: readonly Planned[]): void {
    for (const write of planned) if (write.effect) this.#index.shards[write.shard].writes.unstage(batch, write.id);
    if (this.#plannedMappings && this.#plannedMappings.fields.size === this.#index.mappings.fields.size) this.#plannedMappings = undefined;
  }

  /** Storage refused the planned writes: every one of them is forgotten. */
  discardPlanned(): void {
    for (const shard of this.#index.shards) shard.writes.discardStaged();
    this.#plannedMappings = undefined;
  }

  /** The live stored document with this id (real time: refreshed or not). */
  location(id: string, routing?: string): { shard: Shard; location: DocLocation } | undefined {
    const shard = this.shardOf(id, routing);
    const location = shard.writes.locate(id);
    return location && { shard, location };
  }

  /** The document with this id as its shard's last refresh published it (what a search sees). */
  refreshedLocation(id: string, routing?: string): { shard: Shard; location: DocLocation } | undefined {
    const shard = this.shardOf(id, routing);
    const location = shard.writes.locatePublished(id);
    return location && { shard, location };
  }

  /**
   * Replays a stored document on start-up, keeping its sequence number and version. A stored
   * document is never refused here: if its values no longer fit the mappings, it is kept (and can be
   * fetched) without sort values, and the reason is returned.
   */
  restore(shard: number, seq: number, doc: StoredDoc): EsError | undefined {
    const { mappings } = this.#index;
    let values: DocValues = [];
    let problem: EsError | undefined;
    try {
      const extracted = mappings.extract(JSON.parse(doc.source) as Record<string, unknown>, doc.id);
      mappings.addFields(extracted.added);
      values = extracted.values;
    } catch (e) {
      if (!(e instanceof EsError)) throw e;
      problem = e;
    }
    this.#index.shards[shard].writes.put(doc.id, values, doc.version, doc.routing, seq);
    return problem;
  }

  /** A write's `_shards` (the primary, and replicas that do not exist), one frozen object shared by the results while the replica count stays. */
  #writeShards(): WriteResult['_shards'] {
    const total = 1 + this.#index.settings.numberOfReplicas;
    if (this.#shardsOfWrites?.total !== total) this.#shardsOfWrites = Object.freeze({ total, successful: 1, failed: 0 });
    return this.#shardsOfWrites;
  }

  #result(id: string, location: DocLocation, result: WriteOutcome, status: number): WriteResult {
    return {
      _index: this.#index.name,
      _id: id,
      _version: location.version,
      result,
      _shards: this.#writeShards(),
      _seq_no: location.seq,
      _primary_term: 1,
      status,
    };
  }
}

function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isObject(value) && isObject(out[key]) ? deepMerge(out[key] as Record<string, unknown>, value) : value;
  }
  return out;
}

/** ES's limits on ids: not empty, at most 512 bytes of UTF-8. */
function checkId(id: string): void {
  if (id === '') throw illegalArgument('if _id is specified it must not be empty');
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short ids need no count.
  if (id.length <= 512 / 3) return;
  const bytes = Buffer.byteLength(id);
  if (bytes > 512) throw validationFailed([`id [${id}] is too long, must be no longer than 512 bytes but was: ${bytes}`]);
}
