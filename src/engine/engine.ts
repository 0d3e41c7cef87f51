/**
 * The engine: the indices of one node, backed by a {@link DocStore}. Writes apply to memory, then
 * wait until storage has them on disk before they are acknowledged; on start the indices are
 * rebuilt from storage. This is the surface the HTTP layer calls.
 */
import { WasmKernels, wasmModule } from '../core/index.ts';
import type { DocStore, DocWrite, StoredDoc } from '../store/doc-store.ts';
import { badRequest, EsError, illegalArgument, indexNotFound } from './errors.ts';
import { checkIndexName, isPlainName, resolveExpression, resolveWithAliases, type IndicesOptions } from './index-names.ts';
import type { AliasAction, AliasProps } from './aliases/alias.ts';
import { aliasNotConcrete, checkAliasName, moreThanOneWriteIndex, planAliasActions, type AliasActionResult } from './aliases/actions.ts';
import { aliasNames, indexRouting, searchReach, singleIndexOf, writeIndexOf } from './aliases/requests.ts';
import { MemoryBreaker } from './breakers/memory-breaker.ts';
import { parseNodeSettings, type NodeSettings } from './node-settings.ts';
import { isObject } from './patterns.ts';
import { shardFor } from './routing.ts';
import { SearchIndex } from './search-index.ts';
import { narrowed, type IndexSnapshot } from './search-index/index-snapshot.ts';
import { WriteBatches, type CommittingBatch, type WriteItem, type WriteOp } from './writes/write-batches.ts';
import { floodStageBlock, isDiskFull, refusedWrite, storageFailure } from './writes/storage-failure.ts';

export type { WriteItem, WriteOp } from './writes/write-batches.ts';
import { searchRequest, type Query, type SearchRequest } from './search/request.ts';
import { RunCache, type RunCacheStats } from './search/runs/run-cache.ts';
import { search, type SearchResponse } from './search/search.ts';
import { Sources } from './sources.ts';
import { Cursors, type RunSearch } from './contexts/cursors.ts';
import { NODE_ID } from './node.ts';
import { TaskManager, type TaskRecord } from './tasks/task-manager.ts';
import { withPitTiebreaker } from './search/sort/tie-break.ts';
import { checkUpdatable, parseSettings } from './settings.ts';
import { Flusher, type FlushOptions, type FlushPolicy } from './commits/flusher.ts';
import type { ForceMergeGoal } from './segments/merge-policy.ts';
import { recoverIndex, type RecoveryProgress } from './commits/recovery.ts';

export type RefreshPolicy = 'false' | 'true' | 'wait_for';

/** The batches of one call as one: every item in order, committed once all are, the shards any touched. */
function combined(batches: readonly CommittingBatch[]): CommittingBatch {
  return { items: batches.flatMap((batch) => batch.items), committed: Promise.all(batches.map((batch) => batch.committed)).then(() => {}), touched: touchedBy(batches) };
}

function touchedBy(batches: readonly CommittingBatch[]): Map<SearchIndex, Set<number>> {
  const touched = new Map<SearchIndex, Set<number>>();
  for (const batch of batches) for (const [index, shards] of batch.touched) touched.set(index, new Set([...(touched.get(index) ?? []), ...shards]));
  return touched;
}

/** Writes planned per pass of the event loop and committed as one batch: a few milliseconds of planning (1,000 held it 12-60 ms under load, with the collections their garbage set off). */
const WRITE_CHUNK = 250;

/** Which indices, and which of their shards, a search, count or point in time reads besides what its expression names. */
export interface SearchScope {
  /** How the expression resolves (`ignore_unavailable`, `allow_no_indices`, `expand_wildcards`). */
  indices?: IndicesOptions;
  /** Only these shard numbers of each index (`preference=_shards:…`). */
  shards?: readonly number[];
}



export interface EngineOptions {
  /** Start-up progress: documents replayed so far of an index's total. */
  progress?: RecoveryProgress;
  /** Node settings (node-settings.ts); defaults for those not given. */
  settings?: Partial<NodeSettings>;
  /** The wasm instance whose memory holds the sorted runs; a new one from the release build by default. */
  kernels?: WasmKernels;
  /** Wait before each background run build, in ms (run-cache.ts `SLICE_DELAY_MS` by default); tests shorten it. */
  backgroundDelayMs?: number;
  /** The most sorted runs kept (run-cache.ts `MAX_RUNS` by default); tests lower it. */
  maxSortedRuns?: number;
  /** Documents without a run from which a deep page is found by pivots (run-cache.ts `PIVOT_MIN_DOCS` by default); tests lower it. */
  pivotMinDocs?: number;
  /** When the background flushes shards (commits/flusher.ts defaults); tests shorten it. */
  flushPolicy?: FlushPolicy;
}

export class Engine {
  readonly #indices = new Map<string, SearchIndex>();
  /** Storage commits not yet acknowledged; close() waits for them. */
  readonly #inflight = new Set<Promise<void>>();

  /** The node's sorted runs, in its own wasm instance: the one owner of run memory. */
  readonly runs: RunCache;
  /** The one owner of `_source`: storage, commits in flight, and what pinned snapshots still show. */
  readonly sources: Sources;
  /** Open points in time and scrolls. */
  readonly cursors: Cursors;
  /** Long-running work (reindex) that `_tasks` reports on and cancels; stored results outlive a restart. */
  readonly tasks: TaskManager;
  /** Commit points: `_flush`, in the background, and on shutdown. */
  readonly #flusher: Flusher;
  /** The write path: planned, made durable, then applied. */
  readonly #writes: WriteBatches;

  readonly settings: NodeSettings;
  /** Elasticsearch's parent circuit breaker: work refused (429) rather than the heap run out. */
  readonly breaker: MemoryBreaker;

  private constructor(readonly store: DocStore, options: EngineOptions) {
    const settings = (this.settings = { ...parseNodeSettings(), ...options.settings });
    this.sources = new Sources(store);
    this.breaker = new MemoryBreaker(settings.breakerTotalLimitBytes);
    this.tasks = new TaskManager(NODE_ID, {
      load: () => store.tasks() as [number, TaskRecord][],
      save: (id, record) => store.putTask(id, record),
      remove: (id) => store.removeTask(id),
    });
    this.cursors = new Cursors(settings, { retain: (targets) => this.#pin(targets, 'retain'), release: (targets) => this.#pin(targets, 'release') });
    this.runs = new RunCache(options.kernels ?? new WasmKernels(wasmModule()), settings.sortedRunsCacheBytes, options.backgroundDelayMs, options.maxSortedRuns, options.pivotMinDocs);
    this.#flusher = new Flusher(store, () => this.#indices.values(), (done) => this.#track(done), options.flushPolicy);
    this.#writes = new WriteBatches(store, this.sources, {
      // A delete never creates its index (ES skips deletes when auto-creating).
      indexFor: (op) => {
        const index = this.#indices.get(op.index);
        if (index) return { index, created: false };
        const aliased = this.#aliasIndices(op.index);
        if (aliased) {
          const target = writeIndexOf(op.index, aliased);
          return { index: target, created: false, routing: indexRouting(op.index, target.aliases.get(op.index), op.routing) };
        }
        if (op.action === 'delete') return { index: this.resolveOne(op.index), created: false };
        return { index: this.#autoCreate(op.index), created: true };
      },
      forget: (index) => {
        index.close();
        if (this.#indices.get(index.name) === index) this.#indices.delete(index.name);
      },
      all: () => this.#indices.values(),
    });
  }

  /** The engine over what the store holds: each index from its last commit point plus the writes after it. */
  static open(store: DocStore, options: EngineOptions = {}): Engine {
    const engine = new Engine(store, options);
    for (const meta of store.indices()) {
      const index = SearchIndex.fromMeta(meta, engine.runs, engine.sources);
      recoverIndex(store, meta, index, options.progress);
      engine.#indices.set(meta.name, index);
    }
    return engine;
  }

  indices(): SearchIndex[] {
    return [...this.#indices.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The indices an expression names (see index-names.ts); throws 404 for a missing concrete name unless the options allow it. */
  resolve(expression?: string, options?: IndicesOptions): SearchIndex[] {
    return resolveExpression(expression, [...this.#indices.keys()], options, aliasNames(this.#indices.values())).map((n) => this.#indices.get(n)!);
  }

  /** The indices an expression names where ES wants concrete indices: an alias name among them is ES's 400. */
  #concreteIndices(expression: string, options?: IndicesOptions): SearchIndex[] {
    for (const name of expression.split(',')) if (!this.#indices.has(name) && this.#aliasIndices(name)) throw aliasNotConcrete(name);
    return resolveExpression(expression, [...this.#indices.keys()], options).map((n) => this.#indices.get(n)!);
  }

  /** The indices carrying the alias, sorted by name; undefined when no index does. */
  #aliasIndices(alias: string): SearchIndex[] | undefined {
    const indices = this.indices().filter((index) => index.aliases.has(alias));
    return indices.length > 0 ? indices : undefined;
  }

  /**
   * What a search over the expression reads: each index's snapshot, its shards limited by the
   * routing (the request's, and its aliases' search routing), and the filter of the aliases it was
   * reached through (aliases/requests.ts).
   */
  #searchTargets(expression: string | undefined, routing: string | undefined, scope: SearchScope): IndexSnapshot[] {
    // An index by its own name is searched whole: no alias's filter or routing reaches it.
    const named = isPlainName(expression) ? this.#indices.get(expression) : undefined;
    if (named) return [routed(named.snapshot(), routing, scope.shards)];
    const resolved = resolveWithAliases(expression, [...this.#indices.keys()], scope.indices, aliasNames(this.#indices.values()));
    return [...resolved].map(([name, ways]) => {
      const index = this.#indices.get(name)!;
      const reach = searchReach(index, ways, routing);
      const target = routed(index.snapshot(), reach.routing, scope.shards);
      return reach.filter ? { ...target, filter: reach.filter } : target;
    });
  }

  /**
   * `POST /_aliases`: the actions checked together, then applied together and made durable;
   * `remove_index` actions delete their indices after. Each action's result (404 for a `remove`
   * that found nothing, when `must_exist` did not ask for the whole request to fail).
   */
  async updateAliases(actions: readonly AliasAction[]): Promise<AliasActionResult[]> {
    const changes = planAliasActions(actions, {
      resolveIndices: (expression) => {
        return this.#concreteIndices(expression);
      },
      indexNamed: (name) => this.#indices.get(name),
    });
    const before = new Map([...changes.changed].map((index) => [index, new Map(index.aliases)]));
    changes.apply();
    try {
      await Promise.all([...changes.changed].map((index) => this.store.putIndex(index.meta())));
    } catch (error) {
      // Not durable, so not done.
      for (const [index, aliases] of before) {
        index.aliases.clear();
        for (const [alias, props] of aliases) index.aliases.set(alias, props);
      }
      throw storageFailure(error, [...changes.changed][0]?.name ?? '_all');
    }
    if (changes.removed.length > 0) await this.deleteIndices(changes.removed.map((index) => index.name).join(','));
    return changes.results;
  }

  has(name: string): boolean {
    return this.#indices.has(name);
  }

  /**
   * Creates an index from ES's body (`settings`, `mappings`); `aliases` as the HTTP layer parsed the
   * body's (their filters are query DSL), which then must not be in the body itself.
   */
  async createIndex(name: string, body: unknown = {}, aliases: ReadonlyMap<string, AliasProps> = new Map()): Promise<SearchIndex> {
    checkIndexName(name);
    const existing = this.#indices.get(name);
    if (existing) {
      throw badRequest('resource_already_exists_exception', `index [${name}/${existing.uuid}] already exists`, { index_uuid: existing.uuid, index: name });
    }
    if (this.#aliasIndices(name)) throw badRequest('invalid_index_name_exception', `Invalid index name [${name}], already exists as alias`, { 'index_uuid': '_na_', index: name });
    if (!isObject(body)) throw badRequest('parsing_exception', 'request body must be an object');
    const { settings, mappings, aliases: unparsed, ...rest } = body;
    const unknown = Object.keys(rest);
    if (unknown.length) throw badRequest('parsing_exception', `unknown key [${unknown[0]}] for create index`);
    if (unparsed !== undefined && isObject(unparsed) && Object.keys(unparsed).length) throw illegalArgument('aliases must be parsed before the index is created');
    for (const [alias, props] of aliases) {
      checkAliasName(alias, { indexNamed: (n) => (n === name ? ({} as SearchIndex) : this.#indices.get(n)) });
      const writers = props.isWriteIndex ? (this.#aliasIndices(alias) ?? []).filter((index) => index.aliases.get(alias)?.isWriteIndex) : [];
      if (writers.length > 0) throw moreThanOneWriteIndex(alias, [...writers.map((index) => index.name), name]);
    }
    const index = SearchIndex.create(name, { settings, mappings }, this.runs, this.sources);
    for (const [alias, props] of aliases) index.aliases.set(alias, props);
    this.#indices.set(name, index);
    try {
      await this.store.putIndex(index.meta());
    } catch (error) {
      // Not durable, so not there.
      if (this.#indices.get(name) === index) this.#indices.delete(name);
      index.close();
      throw storageFailure(error, name);
    }
    return index;
  }

  /** Applies the dynamic settings of `body` to every index the expression names, or refuses the whole update (settings.ts). */
  async updateSettings(expression: string, body: unknown, options?: IndicesOptions): Promise<void> {
    const settings = isObject(body) && isObject(body.settings) ? body.settings : body;
    const targets = this.resolve(expression, options);
    checkUpdatable(settings, targets);
    const parsed = targets.map((index) => parseSettings(settings, index.settings));
    targets.forEach((index, i) => index.updateSettings(parsed[i]));
    await Promise.all(targets.map((index) => this.store.putIndex(index.meta()).catch(refusedWrite(index.name))));
  }

  /** Deletes concrete indices (ES refuses wildcards here by default: `action.destructive_requires_name`). */
  async deleteIndices(expression: string, options?: IndicesOptions): Promise<void> {
    if (expression.includes('*') || expression === '_all') throw illegalArgument('Wildcard expressions or all indices are not allowed');
    const targets = this.#concreteIndices(expression, options);
    for (const index of targets) {
      this.cursors.dropIndex(index);
      index.close();
      this.#indices.delete(index.name);
    }
    // Writes still committing would otherwise land after the delete and bring the index back.
    await Promise.allSettled([...this.#inflight]);
    for (const index of targets) this.sources.dropIndex(index.uuid);
    await Promise.all(targets.map((index) => this.store.deleteIndex(index.meta()).catch(refusedWrite(index.name))));
  }

  /**
   * Writes in order (an item's failure does not stop the rest); resolves once every written item is
   * durable and applied, then refreshes as asked. Items are results or the item's error. When storage
   * refuses a batch ({@link WRITE_CHUNK} writes), nothing of it is applied (nor of the batches
   * planned on top of it before the refusal was known), and each of its items fails with the
   * refusal: on a full disk ES's flood-stage block (writes/storage-failure.ts), else a 500; when
   * every batch failed so, the call throws that 500 instead.
   */
  async write(ops: readonly WriteOp[], refresh: RefreshPolicy = 'false'): Promise<(WriteItem | EsError)[]> {
    // The index names only are kept while the writes commit: holding `ops` would keep every parsed
    // source alive until then, and a suspended async function keeps its parameters, used or not.
    const indices = ops.map((op) => op.index);
    const planning = this.#commitInPasses(ops);
    ops = [];
    const batches = await planning;
    const outcomes = await Promise.allSettled(batches.map((batch) => batch.committed));
    const failures = outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as unknown) : undefined));
    // Storage refused every batch for another reason than a full disk: the call fails, as one batch did.
    const notFull = failures.find((error) => error !== undefined && !isDiskFull(error));
    if (notFull !== undefined && failures.every((error) => error !== undefined)) throw notFull;
    // Otherwise each item of a refused batch fails with its batch's error (items refused before storage keep their own).
    const items = batches.flatMap((batch, b) => {
      const error = failures[b];
      if (error === undefined) return batch.items;
      return batch.items.map((item, i) => {
        if (item instanceof EsError) return item;
        const index = indices[b * WRITE_CHUNK + i];
        return isDiskFull(error) ? floodStageBlock(index) : storageFailure(error, index);
      });
    });
    const touched = touchedBy(batches.filter((_, b) => failures[b] === undefined));
    if (refresh === 'true') {
      await Promise.all([...touched].map(([index, shards]) => index.scheduler.refreshInPasses(shards)));
      for (const item of items) if (!(item instanceof EsError)) item.forced_refresh = true;
    } else if (refresh === 'wait_for') {
      await Promise.all([...touched].map(([index, shards]) => index.scheduler.waitForRefresh(shards)));
    }
    return items;
  }

  /**
   * Plans writes as {@link write} does and starts their commit without waiting for it: the items are
   * final once planned, but nothing may be acknowledged before `committed` resolves. For a writer that
   * decides on its next batch from this one's outcome while this one is flushed (a reindex).
   */
  async commitWrites(ops: readonly WriteOp[]): Promise<CommittingBatch> {
    return combined(await this.#commitInPasses(ops));
  }

  /**
   * Plans and commits the writes {@link WRITE_CHUNK} at a time, a chunk per pass of the event loop
   * (planning 5,000 documents at once held it 60 ms); each chunk commits as a batch of its own, in
   * order, as ES's bulk items do not stand or fall together.
   */
  async #commitInPasses(ops: readonly WriteOp[]): Promise<CommittingBatch[]> {
    const batches: CommittingBatch[] = [];
    for (let at = 0; at < ops.length || at === 0; at += WRITE_CHUNK) {
      if (at > 0) await new Promise((resolve) => setImmediate(resolve));
      const batch = this.#writes.commit(ops.slice(at, at + WRITE_CHUNK));
      this.#track(batch.committed);
      batches.push(batch);
    }
    return batches;
  }

  /** Commits the indices' shards to storage as segments (`_flush`); resolves when durable. */
  async flush(expression?: string, options?: FlushOptions, indices?: IndicesOptions): Promise<SearchIndex[]> {
    const targets = this.resolve(expression, indices);
    await Promise.all(targets.map((index) => this.#flusher.flush(index, index.shards, options).catch(refusedWrite(index.name))));
    return targets;
  }

  /**
   * `_forcemerge` of the indices (resolved by the caller, before anything runs): each one's shards
   * merged down to the goal (segments/merge-policy.ts), one index after the other, then flushed if
   * asked (a restart then loads the merged segments); resolves when done.
   */
  async forceMerge(targets: SearchIndex[], goal: ForceMergeGoal, flush: boolean): Promise<SearchIndex[]> {
    for (const index of targets) {
      await index.scheduler.forceMerge(goal);
      if (flush) await this.#flusher.flush(index).catch(refusedWrite(index.name));
    }
    return targets;
  }

  /** Storage work that close() and index deletion wait for. */
  #track(done: Promise<void>): Promise<void> {
    this.#inflight.add(done);
    void done.catch(() => {}).finally(() => this.#inflight.delete(done));
    return done;
  }

  /**
   * The live document, or undefined: real time (refreshed or not) by default, else as the last
   * refresh of its shard left it (ES's `realtime=false`); `refresh` refreshes that shard first.
   */
  get(indexName: string, id: string, routing?: string, { realtime = true, refresh = false } = {}): { index: SearchIndex; shard: number; seq: number; doc: StoredDoc } | undefined {
    const index = this.resolveOne(indexName);
    routing = this.#documentRouting(indexName, index, routing);
    // ES's `refresh=true` refreshes the document's shard first.
    if (refresh) index.scheduler.refresh([index.writes.shardOf(id, routing).number]);
    const found = realtime ? index.writes.location(id, routing) : index.writes.refreshedLocation(id, routing);
    if (!found) return undefined;
    const doc = this.sources.load(index.uuid, found.shard.number, found.location.seq);
    return doc && { index, shard: found.shard.number, seq: found.location.seq, doc };
  }

  /** The index a request on one document names: an index, or an alias of one index only. */
  resolveOne(name: string): SearchIndex {
    const index = this.#indices.get(name);
    if (index) return index;
    const aliased = this.#aliasIndices(name);
    if (aliased) return singleIndexOf(name, aliased);
    // One concrete name, as ES reads a single-document request's index: no wildcards, no lists.
    throw indexNotFound(name);
  }

  /** The index a write to `name` goes to: the index of that name, or an alias's write index; undefined when neither exists. */
  writeIndexOf(name: string): SearchIndex | undefined {
    const aliased = this.#indices.has(name) ? undefined : this.#aliasIndices(name);
    return aliased ? writeIndexOf(name, aliased) : this.#indices.get(name);
  }

  /** A request on one document through an alias takes the alias's index routing. */
  #documentRouting(name: string, index: SearchIndex, routing: string | undefined): string | undefined {
    return index.name === name ? routing : indexRouting(name, index.aliases.get(name), routing);
  }

  /**
   * A search over the indices the expression names, or over a point in time (`request.pit`); with
   * `request.scroll`, its first batch, and a scroll context for the next ones.
   * @param routing comma-separated routing values: search only the shards they route to.
   */
  search(expression: string | undefined, request: SearchRequest, routing?: string, scope: SearchScope = {}): SearchResponse {
    if (request.pit) return this.cursors.searchPit(request.pit.id, request.pit.keepAliveMs, withPitTiebreaker(request), this.#run);
    const targets = this.#searchTargets(expression, routing, scope);
    if (request.scroll !== undefined) return this.cursors.startScroll(targets, request, request.scroll, this.#run);
    return this.#run(targets, request);
  }

  /** The next batch of a scroll (`POST /_search/scroll`), its keep-alive renewed. */
  scroll(scrollId: string, keepAliveMs?: number): SearchResponse {
    return this.cursors.nextScroll(scrollId, keepAliveMs, this.#run);
  }

  /**
   * Opens a point in time over the indices (their shards the routing picks, if given) as they are
   * now. `capped: false` for the node's own readers, which users' cap does not limit.
   */
  openPointInTime(expression: string, keepAliveMs: number, routing?: string, capped = true, scope: SearchScope = {}): { id: string; _shards: { total: number; successful: number; skipped: number; failed: number } } {
    const targets = this.#searchTargets(expression, routing, scope);
    const id = this.cursors.openPit(targets, keepAliveMs, capped);
    const shards = targets.reduce((n, target) => n + target.shards.length, 0);
    return { id, _shards: { total: shards, successful: shards, skipped: 0, failed: 0 } };
  }

  readonly #run: RunSearch = (targets, request, key) => search(targets, request, (target, shards, seqs) => this.sources.sourcesOf(target.index.uuid, shards, seqs), this.runs, this.settings.searchPaging, key);

  /** `_count`: the search's total, counted exactly, over the shards the routing picks. */
  count(expression: string | undefined, query: Query = { kind: 'match_all', boost: 1 }, routing?: string, minScore?: number, scope: SearchScope = {}): { count: number; shards: number } {
    const targets = this.#searchTargets(expression, routing, scope);
    const { hits, _shards } = this.#run(targets, searchRequest({ query, size: 0, trackTotalHits: true, minScore }));
    const total = hits.total;
    return { count: typeof total === 'number' ? total : (total?.value ?? 0), shards: _shards.total };
  }

  /** Makes every write so far visible to searches at once (start-up, tests). */
  refresh(expression?: string, options?: IndicesOptions): SearchIndex[] {
    const targets = this.resolve(expression, options);
    for (const index of targets) index.scheduler.refresh();
    return targets;
  }

  /** ES's `_refresh`: {@link refresh}, with large write buffers sealed a slice at a time between other requests. */
  async refreshInPasses(expression?: string, options?: IndicesOptions): Promise<SearchIndex[]> {
    const targets = this.resolve(expression, options);
    await Promise.all(targets.map((index) => index.scheduler.refreshInPasses()));
    return targets;
  }

  /** ES's `_cache/clear`: every matching index drops its search caches. */
  clearCaches(expression?: string, options?: IndicesOptions): SearchIndex[] {
    const targets = this.resolve(expression, options);
    for (const index of targets) index.clearCaches();
    return targets;
  }

  /** The node's sorted-run figures (held runs, bytes, budget, counters). */
  runStats(): RunCacheStats {
    return this.runs.stats();
  }

  /** What the given indices hold in sorted runs. */
  runsHeld(indices: readonly SearchIndex[]): ReturnType<RunCache['held']> {
    return this.runs.held(indices.flatMap((index) => index.segments()));
  }

  /**
   * Stops refresh timers, frees the sorted runs and closes storage; pending writes finish and every
   * shard is flushed first. `flush: false` leaves storage as a crash would (the next start replays).
   */
  async close({ flush = true }: { flush?: boolean } = {}): Promise<void> {
    await this.tasks.close();
    await Promise.allSettled([...this.#inflight]);
    if (flush) await this.#flusher.flushAll().catch((error) => console.error('deeppage: flush at shutdown failed', error));
    this.#flusher.close();
    this.cursors.close();
    for (const index of this.#indices.values()) index.close();
    this.runs.close();
    await Promise.allSettled([...this.#inflight]);
    await this.store.close();
  }

  #autoCreate(name: string): SearchIndex {
    checkIndexName(name);
    const index = SearchIndex.create(name, {}, this.runs, this.sources);
    this.#indices.set(name, index);
    return index;
  }

  /** What a pinned snapshot holds: the `_source` its generation shows, and its segments' runs. */
  #pin(targets: readonly IndexSnapshot[], how: 'retain' | 'release'): void {
    for (const target of targets) {
      for (const shard of target.shards) {
        if (how === 'retain') this.sources.pin(target.index.uuid, shard.shard, shard.generation);
        else this.sources.unpin(target.index.uuid, shard.shard, shard.generation);
        this.runs[how](shard.segments);
      }
    }
  }
}

/** The snapshot narrowed to the shards the routing values pick, and to `only` (shard numbers). */
function routed(snapshot: IndexSnapshot, routing: string | undefined, only?: readonly number[]): IndexSnapshot {
  if (routing === undefined && only === undefined) return snapshot;
  const { settings } = snapshot.index;
  // An empty routing (an alias's search routing that the request's excludes) routes to no shard.
  const values = routing === undefined ? undefined : routing === '' ? [] : routing.split(',');
  const shards = values === undefined ? undefined : new Set(values.map((r) => shardFor(r, snapshot.shards.length, settings.numberOfRoutingShards)));
  const picked = snapshot.shards.filter((s) => (shards === undefined || shards.has(s.shard)) && (only === undefined || only.includes(s.shard)));
  // Kept with the snapshot by the shards picked (a handful of sets, whatever the routing values).
  return narrowed(snapshot, picked);
}
