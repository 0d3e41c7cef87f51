/**
 * One index: settings, mappings and shards. Writes apply to memory at once and return the storage
 * writes that make them durable; the engine acknowledges only after storage has them on disk.
 */
import { randomUUID } from 'node:crypto';
import { aliasFromStored, storedAlias, type AliasProps, type StoredAlias } from './aliases/alias.ts';
import type { DeleteWrite, DocToStore, DocWrite, IndexMeta, StoredDoc } from '../store/doc-store.ts';
import { badRequest, EsError, illegalArgument, validationFailed } from './errors.ts';
import { indexFamily, sortFamily } from './field-types.ts';
import { Mappings, type DocValues, type FieldMapping } from './mapping.ts';
import { isObject } from './patterns.ts';
import { shardFor } from './routing.ts';
import type { SortClause } from './search/request.ts';
import type { RunCache } from './search/runs/run-cache.ts';
import { runSpec } from './search/runs/sorted-run.ts';
import { OrderKey } from './search/order-key.ts';
import { planSort } from './search/sort/plan.ts';
import { carryOrdinals, ordinalsWarmups } from './search/sort/keyword-key.ts';
import type { Query } from './query/query.ts';
import { parseSettings, type IndexSettings } from './settings.ts';
import type { TermsLineage } from './segments/merge.ts';
import type { ForceMergeGoal } from './segments/merge-policy.ts';
import type { Segment } from './segments/segment.ts';
import type { IndexSnapshot } from './search-index/index-snapshot.ts';
import { Shard } from './shard.ts';
import type { DocLocation } from './shard/shard-writes.ts';
import type { Sources } from './sources.ts';
import { inPasses, type Steps } from './steps.ts';

/**
 * Unsealed documents a shard seals at once when it publishes; more are sealed a slice at a time
 * first. Under the load check's bulk loader a shard's last 2,000 cities took 15–30 ms to seal and
 * publish in one callback; 512 take a few.
 */
const SEAL_AT_ONCE = 512;

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

/**
 * A write planned against the index as planned writes leave it; nothing in memory shows it yet.
 * One object a write, effect and storage writes included: a `_bulk` plans thousands, each kept
 * until its batch is durable (every object more was one more for the young generation to copy).
 */
export interface Planned {
  index: SearchIndex;
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

export class SearchIndex {
  readonly shards: Shard[];
  /** The aliases the index carries (part of its metadata, as in Elasticsearch); the engine changes them. */
  readonly aliases = new Map<string, AliasProps>();
  #snapshot: IndexSnapshot;
  #timer: NodeJS.Timeout | undefined;
  /** Deleted or shut down: a write still committing must not seal segments nobody will drop. */
  #closed = false;
  /** A periodic refresh is going through the shards ({@link #periodicRefresh}). */
  #refreshing = false;
  /** Background merges under way ({@link #mergeInPasses}). */
  #merges: Promise<void> | undefined;
  /** The last force merge asked for: the next waits for it ({@link forceMerge}). */
  #forceMerging: Promise<void> = Promise.resolve();
  /**
   * `refresh=wait_for` writers: the shards each still waits for, and those of them a refresh has
   * sealed since it began waiting (they count once the index's snapshot shows them).
   */
  #refreshWaiters: { shards: Set<number>; sealed: Set<number>; resolve: () => void }[] = [];
  /** The mappings with the dynamic fields of planned writes, while some are not yet durable. */
  #plannedMappings: Mappings | undefined;

  constructor(
    readonly name: string,
    readonly uuid: string,
    readonly createdAt: number,
    public settings: IndexSettings,
    readonly mappings: Mappings,
    /** The node's sorted runs: told when segments go, asked to build index-sort runs. */
    private readonly runs: RunCache,
    /** The node's `_source` owner: told when a shard publishes a snapshot. */
    private readonly sources: Sources,
  ) {
    const familyOf = (field: string) => {
      const mapping = this.mappings.get(field);
      return mapping ? indexFamily(mapping.type) : undefined;
    };
    this.shards = Array.from({ length: settings.numberOfShards }, (_, n) => new Shard(n, familyOf, (dropped) => runs.drop(dropped)));
    this.#snapshot = this.#takeSnapshot();
    this.#schedule();
  }

  static create(name: string, body: { settings?: unknown; mappings?: unknown }, runs: RunCache, sources: Sources): SearchIndex {
    const settings = parseSettings(body.settings);
    const mappings = Mappings.parse(body.mappings);
    if (settings.sort) checkIndexSort(settings.sort.field, mappings);
    return new SearchIndex(name, randomUUID().replaceAll('-', '').slice(0, 22), Date.now(), settings, mappings, runs, sources);
  }

  static fromMeta(meta: IndexMeta, runs: RunCache, sources: Sources): SearchIndex {
    const index = new SearchIndex(meta.name, meta.uuid, meta.createdAt, meta.settings as unknown as IndexSettings, Mappings.parse(meta.mappings, false), runs, sources);
    meta.seqs?.forEach((seq, n) => index.shards[n]?.writes.continueAfter(seq));
    for (const [alias, stored] of Object.entries(meta.aliases ?? {})) index.aliases.set(alias, aliasFromStored(stored as StoredAlias));
    return index;
  }

  meta(): IndexMeta {
    return {
      name: this.name,
      uuid: this.uuid,
      createdAt: this.createdAt,
      settings: { ...this.settings },
      mappings: (this.#plannedMappings ?? this.mappings).toJSON(),
      seqs: this.shards.map((s) => s.writes.maxSeq),
      ...(this.aliases.size > 0 && { aliases: Object.fromEntries([...this.aliases].map(([alias, props]) => [alias, storedAlias(props)])) }),
    };
  }

  snapshot(): IndexSnapshot {
    return this.#snapshot;
  }

  /** Deleted or shut down. */
  get closed(): boolean {
    return this.#closed;
  }

  get docCount(): number {
    return this.shards.reduce((n, s) => n + s.writes.docCount, 0);
  }

  shardOf(id: string, routing?: string): Shard {
    return this.shards[shardFor(routing ?? id, this.shards.length, this.settings.numberOfRoutingShards)];
  }

  /**
   * Plans the indexing of a document: a new one (`create` fails if the id exists) or a new version.
   * @param batch the write batch it belongs to (staged under it until applied or discarded).
   */
  index(id: string, source: Record<string, unknown>, opType: 'index' | 'create', batch: number, routing?: string, sent?: string | Uint8Array): Planned {
    checkId(id);
    const shard = this.shardOf(id, routing);
    const existing = shard.writes.planned(id);
    if (existing && opType === 'create') {
      throw new EsError(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${existing.version}])`, {
        index_uuid: this.uuid,
        shard: String(shard.number),
        index: this.name,
      });
    }
    const { values, added } = (this.#plannedMappings ?? this.mappings).extract(source, id);
    if (added.size > 0) (this.#plannedMappings ??= this.mappings.clone()).addFields(added);
    const location = shard.writes.stagePut(id, shard.writes.plannedVersion(id, existing) + 1, batch, routing);
    const { seq, version } = location;
    const removal: DeleteWrite | undefined = existing && { op: 'delete', uuid: this.uuid, shard: shard.number, seq: existing.seq, at: seq };
    const doc: DocToStore = routing === undefined ? { id, version, source: sent ?? JSON.stringify(source) } : { id, version, source: sent ?? JSON.stringify(source), routing };
    const put: DocWrite = { op: 'put', uuid: this.uuid, shard: shard.number, seq, doc };
    const result = this.#result(id, location, existing ? 'updated' : 'created', existing ? 200 : 201);
    return {
      index: this,
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
      throw new EsError(404, 'document_missing_exception', `[${id}]: document missing`, { index_uuid: this.uuid, shard: String(shard.number), index: this.name });
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
    const removal: DeleteWrite = { op: 'delete', uuid: this.uuid, shard: shard.number, seq: existing.seq, at: seq };
    const result = this.#result(id, { ...existing, seq, version }, 'deleted', 200);
    return { index: this, result, shard: shard.number, effect: 'delete', id, seq, version, values: undefined, routing: undefined, replaces: false, put: undefined, removal, fields: undefined };
  }

  /** A planned write that changes nothing (a noop update, a delete of nothing). */
  #withoutEffect(result: WriteResult, shard: number, id: string, { seq, version }: DocLocation): Planned {
    return { index: this, result, shard, effect: undefined, id, seq, version, values: undefined, routing: undefined, replaces: false, put: undefined, removal: undefined, fields: undefined };
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
    if (planned.fields) this.mappings.addFields(planned.fields);
    const shard = this.shards[planned.shard];
    if (planned.effect === 'delete') return shard.writes.applyDelete(planned.id, planned.version, planned.seq);
    if (planned.effect === 'put') return shard.writes.put(planned.id, planned.values!, planned.version, planned.routing, planned.seq, planned.replaces);
    return undefined;
  }

  /** The batch's planned writes are applied or discarded: planning stops reading them. */
  unstage(batch: number, planned: readonly Planned[]): void {
    for (const write of planned) if (write.effect) this.shards[write.shard].writes.unstage(batch, write.id);
    if (this.#plannedMappings && this.#plannedMappings.fields.size === this.mappings.fields.size) this.#plannedMappings = undefined;
  }

  /** Storage refused the planned writes: every one of them is forgotten. */
  discardPlanned(): void {
    for (const shard of this.shards) shard.writes.discardStaged();
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
    let values: DocValues = [];
    let problem: EsError | undefined;
    try {
      const extracted = this.mappings.extract(JSON.parse(doc.source) as Record<string, unknown>, doc.id);
      this.mappings.addFields(extracted.added);
      values = extracted.values;
    } catch (e) {
      if (!(e instanceof EsError)) throw e;
      problem = e;
    }
    this.shards[shard].writes.put(doc.id, values, doc.version, doc.routing, seq);
    return problem;
  }

  /** On start-up, once every shard is loaded and replayed: searches see them from now on. */
  restored(): void {
    this.refresh();
    this.#snapshot = this.#takeSnapshot();
  }

  /** The segments searches see now. */
  segments(): Segment[] {
    return this.shards.flatMap((shard) => shard.segments);
  }

  /**
   * Drops what searches keep between requests: the snapshot's global ordinals and every segment's
   * sorted runs. Answers stay the same; the next searches rebuild what they need.
   */
  clearCaches(): void {
    this.#snapshot.cache.clear();
    this.runs.clear(this.segments());
  }

  /** Makes all writes so far visible to searches (the given shards only, if any); nothing once the index is closed. */
  refresh(shards: Iterable<number> = this.shards.keys()): void {
    if (this.#closed) return;
    const refreshed = [...shards];
    // Only index sorting needs to know which segments are new.
    const before = this.settings.sort ? new Set(this.segments()) : undefined;
    let changed = false;
    for (const n of refreshed) changed = this.#refreshShard(n) || changed;
    this.#published(changed, before);
  }

  /**
   * Makes all writes so far visible (the given shards only, if any), in passes of the event loop
   * (steps.ts): shard by shard, what was written is sealed a slice at a time (then what came
   * meanwhile, until what is left seals in a moment), the shard publishes, and the index's new
   * snapshot comes once every shard has. Resolves once published (at once if the index closes).
   * Sealing a shard's 27,000 cities in one callback held the loop 150 ms; refreshing five shards
   * in one, 70 ms.
   */
  async refreshInPasses(shards: Iterable<number> = this.shards.keys()): Promise<void> {
    if (this.#closed) return;
    await inPasses(this.#refreshSteps([...shards]), () => this.#closed);
  }

  /** The periodic refresh: {@link refreshInPasses} of every shard, one at a time. */
  #periodicRefresh(): void {
    if (this.#refreshing) return;
    this.#refreshing = true;
    this.refreshInPasses()
      // A failed periodic refresh must not take the node down; the next tick retries.
      .catch((e: unknown) => console.error(`deeppage: refresh of [${this.name}] failed`, e))
      .finally(() => (this.#refreshing = false));
  }

  *#refreshSteps(shards: readonly number[]): Steps<void> {
    const before = this.settings.sort ? new Set(this.segments()) : undefined;
    let changed = false;
    for (const n of shards) {
      const shard = this.shards[n];
      this.#sealingFor(n);
      // A seal another refresh began is waited for, not finished at once.
      while (shard.seals.underWay || shard.writes.unsealed > SEAL_AT_ONCE) {
        yield* shard.seals.sealing();
        yield;
      }
      changed = this.#refreshShard(n) || changed;
      yield;
    }
    this.#published(changed, before);
  }

  /**
   * Background merges, in passes of the event loop: while a shard holds more segments than it
   * keeps, a run of its adjacent segments is merged a slice at a time and published in their place
   * (with a new index snapshot: the same documents, fewer segments).
   */
  #mergeInPasses(): void {
    if (this.#merges || !this.shards.some((shard) => shard.wantsMerge)) return;
    this.#merges = inPasses(this.#merging(), () => this.#closed)
      .catch((e: unknown) => console.error(`deeppage: merging segments of [${this.name}] failed`, e))
      .finally(() => (this.#merges = undefined));
  }

  *#merging(): Steps<void> {
    for (let merged = true; merged; ) {
      merged = false;
      for (const [n, shard] of this.shards.entries()) {
        if (!shard.wantsMerge) continue;
        const before = this.settings.sort ? new Set(this.segments()) : undefined;
        const segment = yield* shard.merging();
        if (!segment) continue;
        merged = true;
        this.sources.published(this.uuid, n, shard.snapshot.generation);
        this.#published(true, before, segment.lineage);
        yield;
      }
    }
  }

  /** Resolves once no merge is under way or wanted (tests, and whoever needs the segments settled), or the index closed. */
  async merged(): Promise<void> {
    this.#mergeInPasses();
    while (this.#merges) {
      await this.#merges;
      if (this.#closed) return;
      this.#mergeInPasses();
    }
  }

  /**
   * `_forcemerge`: seals what was written, then merges every shard's segments until the goal is met
   * (segments/merge-policy.ts), with the background merges' machinery: a slice at a time, searches
   * answered in between. One at a time per index, as Elasticsearch runs force merges on a pool of
   * one thread: a second one waits for the first.
   */
  forceMerge(goal: ForceMergeGoal): Promise<void> {
    const run = this.#forceMerging.then(async () => {
      await this.refreshInPasses();
      for (const shard of this.shards) shard.forceMerge(goal);
      try {
        await this.merged();
      } finally {
        for (const shard of this.shards) shard.forceMerge(undefined);
      }
    });
    this.#forceMerging = run.catch(() => {});
    return run;
  }

  /** Writers waiting now wrote before this: their writes to the shard are sealed from here on. */
  #sealingFor(n: number): void {
    for (const waiter of this.#refreshWaiters) if (waiter.shards.has(n)) waiter.sealed.add(n);
  }

  /** Seals a shard's new writes into its published snapshot; whether it had any. */
  #refreshShard(n: number): boolean {
    this.#sealingFor(n);
    const shard = this.shards[n];
    if (!shard.writes.dirty) return false;
    shard.refresh();
    this.sources.published(this.uuid, n, shard.snapshot.generation);
    return true;
  }

  /**
   * After shards refreshed: the index's snapshot for searches, runs for index sorting, and `wait_for`
   * writers told once every shard they wrote to has been sealed since they began waiting (a
   * periodic refresh goes shard by shard: one sealed before a writer came does not count for it).
   */
  #published(changed: boolean, before: Set<Segment> | undefined, lineage?: ReadonlyMap<string, TermsLineage>): void {
    if (changed) {
      this.#snapshot = this.#takeSnapshot(lineage);
      if (before) this.#sortNewSegments(before);
      this.#warmOrdinals();
      this.#mergeInPasses();
    }
    this.#refreshWaiters = this.#refreshWaiters.filter((waiter) => {
      for (const n of waiter.sealed) waiter.shards.delete(n);
      waiter.sealed.clear();
      if (waiter.shards.size > 0) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once the shards have refreshed (ES's `refresh=wait_for`); refreshes now if no refresh is scheduled. */
  waitForRefresh(shards: Iterable<number>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#timer === undefined) return this.refreshInPasses(shards);
    return new Promise((resolve) => this.#refreshWaiters.push({ shards: new Set(shards), sealed: new Set(), resolve }));
  }

  updateSettings(settings: IndexSettings): void {
    this.settings = settings;
    this.#schedule();
  }

  /** Stops the refresh timer and gives up everything kept for the index's segments. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const waiter of this.#refreshWaiters.splice(0)) waiter.resolve();
    this.runs.drop(this.segments());
  }

  /** The clauses of the index sort (`index.sort.*`), if the index has one. */
  indexSort(): SortClause[] | undefined {
    const sort = this.settings.sort;
    return sort?.field.map((field, i) => ({ kind: 'field', field, order: sort.order[i], missing: sort.missing[i], mode: sort.mode[i] }));
  }

  /** With index sorting, a segment gets its run as it is sealed (or merged), so those pages are never cold. */
  #sortNewSegments(before: Set<Segment>): void {
    const clauses = this.indexSort();
    if (!clauses) return;
    const snapshot = this.#snapshot;
    const failures: (EsError | undefined)[] = [];
    const plan = planSort(OrderKey.ofSort(clauses), [snapshot], failures);
    if (failures[0]) return;
    for (const shard of snapshot.shards) {
      for (const live of shard.segments) {
        if (!before.has(live.segment)) this.runs.build(live, plan.runKey, runSpec(plan.keys, live));
      }
    }
    this.runs.trim();
  }

  #schedule(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.settings.refreshIntervalMs < 0) return;
    // Node clamps longer timers to 1 ms; a refresh every 24.8 days is as good as never.
    const every = Math.min(this.settings.refreshIntervalMs, 2 ** 31 - 1);
    this.#timer = setInterval(() => this.#periodicRefresh(), every);
    this.#timer.unref();
  }

  /** Steps the snapshot's ordinals warm-ups (keyword-key.ts), one step per pass of the event loop. */
  #warmOrdinals(): void {
    const warmups = ordinalsWarmups(this.#snapshot);
    const pass = () => {
      if (this.#closed) return;
      if (warmups[0].step()) warmups.shift();
      if (warmups.length > 0) setImmediate(pass).unref();
    };
    if (warmups.length > 0) setImmediate(pass).unref();
  }

  /** After a merge, with the lineage of its keyword columns: ordinals of the parts' terms number the merged ones. */
  #takeSnapshot(lineage?: ReadonlyMap<string, TermsLineage>): IndexSnapshot {
    // Global ordinals are built from the last snapshot's: a refresh changes a segment or two.
    return { index: this, shards: this.shards.map((s) => s.snapshot), cache: carryOrdinals(this.#snapshot?.cache, lineage) };
  }

  /** A write's `_shards` (the primary, and replicas that do not exist), one frozen object shared by the results while the replica count stays. */
  #writeShards(): WriteResult['_shards'] {
    const total = 1 + this.settings.numberOfReplicas;
    if (this.#shardsOfWrites?.total !== total) this.#shardsOfWrites = Object.freeze({ total, successful: 1, failed: 0 });
    return this.#shardsOfWrites;
  }

  #shardsOfWrites: WriteResult['_shards'] | undefined;

  #result(id: string, location: DocLocation, result: WriteOutcome, status: number): WriteResult {
    return {
      _index: this.name,
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

/** Index sort fields must be mapped, sortable fields (IndexSortConfig's checks, in its words). */
function checkIndexSort(fields: readonly string[], mappings: Mappings): void {
  for (const field of fields) {
    const mapping = mappings.get(field);
    if (!mapping) throw illegalArgument(`unknown index sort field:[${field}]`);
    if (sortFamily(mapping.type) === 'none') throw illegalArgument(`docvalues not found for index sort field:[${field}]`);
  }
}

/** ES's limits on ids: not empty, at most 512 bytes of UTF-8. */
function checkId(id: string): void {
  if (id === '') throw illegalArgument('if _id is specified it must not be empty');
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short ids need no count.
  if (id.length <= 512 / 3) return;
  const bytes = Buffer.byteLength(id);
  if (bytes > 512) throw validationFailed([`id [${id}] is too long, must be no longer than 512 bytes but was: ${bytes}`]);
}
