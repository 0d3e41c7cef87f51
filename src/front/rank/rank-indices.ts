/**
 * The front's rank indices, one per search key (search-shape.ts), and the points in time they hold
 * open on the cluster. It owns their life:
 * - built in the background the first time a search asks past its first page (walk.ts); requests
 *   for the same key share one build;
 * - rebuilt on a new point in time when older than `front.refresh_interval` or on
 *   `POST /_front/_refresh`; the old index serves until the new one is complete;
 * - dropped (its point in time closed, its memory freed) least recently used first when the
 *   points in time would pass `front.max_open_pits` or the keys the memory budget
 *   (`indices.sorted_runs.cache.size`); when its point in time is gone; when unused longer than
 *   the point in time lives; and all of them at shutdown.
 * A failed build is not tried again for a refresh interval; a search the cluster cannot walk (no
 * tie-breaker) is never tried again.
 */
import type { WasmKernels } from '../../core/index.ts';
import type { ClusterCalls } from '../cluster-calls.ts';
import { closePointInTime, type Distribution } from './point-in-time.ts';
import type { RankIndex } from './rank-index.ts';
import type { ResultWindows } from './result-windows.ts';
import type { FrontSearch } from './search-shape.ts';
import { NotWalkable, walk } from './walk.ts';

export interface RankIndicesOptions {
  calls: ClusterCalls;
  kernels: WasmKernels;
  budgetBytes: number;
  refreshIntervalMs: number;
  maxOpenPits: number;
  windows: ResultWindows;
  /** The front's own `Authorization` (secure settings), for closing points in time at shutdown. */
  housekeeping?: string;
}

interface Entry {
  key: string;
  /** The latest search with this key: its headers close the point in time. */
  search: FrontSearch;
  ready?: RankIndex;
  building?: Promise<RankIndex | undefined>;
  /** The point in time a build has open, until the build ends. */
  buildingPit?: string;
  lastUsed: number;
  /** No build before this time (after a failed one). */
  retryAt: number;
  unwalkable: boolean;
}

export interface RankIndicesStats {
  count: number;
  documents: number;
  bytes: number;
  builds: number;
  /** Builds whose walk was sliced. */
  sliced_builds: number;
  build_time_in_millis: number;
  building: number;
  failed_builds: number;
  evicted: number;
}

export class RankIndices {
  readonly #entries = new Map<string, Entry>();
  readonly #options: RankIndicesOptions;
  readonly #keepAliveMs: number;
  readonly #sweeper: NodeJS.Timeout;
  #builds = 0;
  #slicedBuilds = 0;
  #buildMs = 0;
  #failed = 0;
  #evicted = 0;
  #closed = false;

  constructor(
    options: RankIndicesOptions,
    /** The cluster's dialect, read from its `GET /` once (with the front's own credentials, else these headers of a client's). */
    private readonly distribution: (headers: readonly string[]) => Promise<Distribution>,
  ) {
    this.#options = options;
    // A point in time lives past the next refresh; every page renews it.
    this.#keepAliveMs = Math.max(2 * options.refreshIntervalMs, 5 * 60_000);
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(this.#keepAliveMs / 4, 60_000));
    this.#sweeper.unref();
  }

  /** The `keep_alive` the front's points in time get, as a time value. */
  get keepAlive(): string {
    return `${this.#keepAliveMs}ms`;
  }

  /** The ready index for this search, if any; starts a (re)build when there is none or it is stale. */
  lookup(search: FrontSearch, build: boolean): RankIndex | undefined {
    const entry = this.#entries.get(search.key);
    if (entry) {
      entry.lastUsed = Date.now();
      entry.search = search;
    }
    const ready = entry?.ready;
    const stale = ready !== undefined && Date.now() - ready.openedAt.getTime() > this.#options.refreshIntervalMs;
    if ((build && ready === undefined) || stale) this.#build(search);
    return ready;
  }

  /** The build under way (or started now) for this search; undefined when none can run. */
  whenBuilt(search: FrontSearch): Promise<RankIndex | undefined> {
    return this.#build(search) ?? Promise.resolve(undefined);
  }

  /** Whether the cluster cannot walk this search (it then passes through). */
  unwalkable(search: FrontSearch): boolean {
    return this.#entries.get(search.key)?.unwalkable ?? false;
  }

  /** Drops the index of this key (its point in time gone): the next request builds again. */
  dropReady(key: string, index: RankIndex): void {
    const entry = this.#entries.get(key);
    if (entry?.ready !== index) return;
    entry.ready = undefined;
    this.#release(entry, index);
    if (!entry.building) this.#entries.delete(key);
  }

  /** Rebuilds every index on a new point in time; each old one serves until its new one is complete. */
  refresh(): number {
    let started = 0;
    for (const entry of this.#entries.values()) {
      if (entry.unwalkable) continue;
      entry.retryAt = 0;
      if (this.#build(entry.search, true)) started++;
    }
    return started;
  }

  stats(): { rank_indices: RankIndicesStats; open_pits: number } {
    let count = 0;
    let documents = 0;
    let bytes = 0;
    let building = 0;
    for (const entry of this.#entries.values()) {
      if (entry.ready) {
        count++;
        documents += entry.ready.documents;
        bytes += entry.ready.bytes;
      }
      if (entry.building) building++;
    }
    const stats = { count, documents, bytes, builds: this.#builds, sliced_builds: this.#slicedBuilds, build_time_in_millis: Math.round(this.#buildMs), building, failed_builds: this.#failed, evicted: this.#evicted };
    return { rank_indices: stats, open_pits: this.#openPits() };
  }

  /** Closes every point in time the front holds and frees every index. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const closing: Promise<unknown>[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.ready) closing.push(this.#release(entry, entry.ready));
      entry.ready = undefined;
      if (entry.building) closing.push(entry.building);
    }
    await Promise.allSettled(closing);
    this.#entries.clear();
  }

  #build(search: FrontSearch, force = false): Promise<RankIndex | undefined> | undefined {
    if (this.#closed) return undefined;
    let entry = this.#entries.get(search.key);
    if (!entry) {
      entry = { key: search.key, search, lastUsed: Date.now(), retryAt: 0, unwalkable: false };
      this.#entries.set(search.key, entry);
    }
    if (entry.building) return entry.building;
    if (entry.unwalkable || (!force && Date.now() < entry.retryAt)) return undefined;
    if (!this.#roomForPit(entry)) return undefined;
    const building = this.#run(entry);
    entry.building = building;
    return building;
  }

  async #run(entry: Entry): Promise<RankIndex | undefined> {
    const { calls, kernels, budgetBytes, windows } = this.#options;
    try {
      const index = await walk(entry.search, {
        calls,
        distribution: await this.distribution(entry.search.headers),
        kernels,
        budgetBytes,
        windows,
        keepAlive: this.keepAlive,
        opened: (id) => (entry.buildingPit = id),
      });
      this.#builds++;
      if (index.slices > 1) this.#slicedBuilds++;
      this.#buildMs += index.buildMs;
      const old = entry.ready;
      entry.ready = index;
      if (old) void this.#release(entry, old);
      if (this.#closed) void this.#release(entry, index);
      else this.#fitBudget(entry);
      return index;
    } catch (error) {
      this.#failed++;
      if (error instanceof NotWalkable) entry.unwalkable = true;
      entry.retryAt = Date.now() + this.#options.refreshIntervalMs;
      return undefined;
    } finally {
      entry.building = undefined;
      entry.buildingPit = undefined;
    }
  }

  /** Points in time open: one per ready index, one per build. */
  #openPits(): number {
    let open = 0;
    for (const entry of this.#entries.values()) open += (entry.ready ? 1 : 0) + (entry.building ? 1 : 0);
    return open;
  }

  /** Makes room for one more point in time by dropping least recently used ready indices (never `keep`'s). */
  #roomForPit(keep: Entry): boolean {
    while (this.#openPits() >= this.#options.maxOpenPits) {
      const victim = this.#leastRecentlyUsed(keep);
      if (!victim) return false;
      this.#evict(victim);
    }
    return true;
  }

  /** Drops least recently used indices until the keys fit the memory budget (the newest always stays). */
  #fitBudget(keep: Entry): void {
    const bytes = () => [...this.#entries.values()].reduce((sum, entry) => sum + (entry.ready?.bytes ?? 0), 0);
    while (bytes() > this.#options.budgetBytes) {
      const victim = this.#leastRecentlyUsed(keep);
      if (!victim) return;
      this.#evict(victim);
    }
  }

  #leastRecentlyUsed(keep: Entry): Entry | undefined {
    let victim: Entry | undefined;
    for (const entry of this.#entries.values()) {
      if (entry === keep || !entry.ready) continue;
      if (!victim || entry.lastUsed < victim.lastUsed) victim = entry;
    }
    return victim;
  }

  #evict(entry: Entry): void {
    this.#evicted++;
    const index = entry.ready!;
    entry.ready = undefined;
    void this.#release(entry, index);
    if (!entry.building) this.#entries.delete(entry.key);
  }

  /** Frees an index and closes its point in time (with the front's own credentials when it has them). */
  async #release(entry: Entry, index: RankIndex): Promise<void> {
    index.free();
    const headers = this.#options.housekeeping === undefined ? entry.search.headers : ['Authorization', this.#options.housekeeping];
    await closePointInTime(this.#options.calls, await this.distribution(headers), index.pitId, headers).catch(() => undefined);
  }

  /** Drops indices unused for longer than their point in time lives: it has expired on the cluster. */
  #sweep(): void {
    const now = Date.now();
    for (const entry of [...this.#entries.values()]) {
      if (entry.ready && now - entry.lastUsed > this.#keepAliveMs) this.#evict(entry);
      else if (!entry.ready && !entry.building && !entry.unwalkable && now >= entry.retryAt) this.#entries.delete(entry.key);
    }
  }
}
