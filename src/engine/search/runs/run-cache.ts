/**
 * The owner of every sorted run (and of the keyword maps the runs are read through) on a node: it
 * builds them, keeps them under a memory budget, and frees them. A run lives until the first of:
 * its segment is gone (merged away, index deleted: {@link RunCache.drop}), `_cache/clear`
 * ({@link RunCache.clear}), or eviction, least recently used first, when the runs outgrow the
 * budget ({@link RunCache.trim}, called after each search and each background build, so a run a
 * search is reading is never freed under it).
 *
 * Runs are keyed by segment and by a run's name (search/order-key.ts): the order of a sort's keys
 * for a segment's own run, or that order under a query for its sorted matches (query-page.ts).
 * Cold shallow pages answer by top-k and {@link RunCache.schedule} the run, which is then built
 * between requests, one segment per slice, each slice a timer that lets pending I/O go first.
 *
 * A run leaves out its snapshot's deletes, so a segment may need one run per set of deletes: the
 * newest (searches of the latest snapshot), and one for each older snapshot a point in time or a
 * scroll pins ({@link RunCache.retain}). Older runs go when their last holder lets go
 * ({@link RunCache.release}), and a segment merged away while pinned keeps its runs until then.
 *
 * It also keeps, per snapshot layout and run key, the merge of those runs laid out for the kernel
 * ({@link RunCache.laidOut}): it names the runs' memory, so any free here makes every one stale.
 *
 * And copies of segments' sort columns in wasm memory ({@link RunCache.column}), for the kernels
 * that read a whole column in place (the pivots of a deep page of a new sort): kept under the same
 * budget as the runs, and evicted before them.
 */
import type { Column, WasmArray, WasmKernels } from '../../../core/index.ts';
import type { Segment } from '../../segments/segment.ts';
import type { LiveSegment } from '../../shard/shard-snapshot.ts';
import type { LaidOutMerge } from '../coordinator.ts';
import type { RunName } from '../order-key.ts';
import type { MapStore } from '../sort/key.ts';
import { SortedRun, type RunSpec } from './sorted-run.ts';

export interface RunCacheStats {
  /** Runs held. */
  count: number;
  /** Wasm bytes the runs hold. */
  memory_size_in_bytes: number;
  /** Wasm bytes of the keyword maps runs are read through. */
  ordinal_maps_memory_size_in_bytes: number;
  /** Wasm bytes of the sort columns copied for kernels that read them in place (counted in the budget). */
  columns_memory_size_in_bytes: number;
  limit_size_in_bytes: number;
  evictions: number;
  hit_count: number;
  miss_count: number;
  /** Runs built off the request path (cold shallow pages, index sorting). */
  background_builds: number;
  /** Runs waiting to be built off the request path. */
  pending_builds: number;
}

/** Which deletes a run leaves out: the snapshot's bitmap, or {@link NO_DELETES}. */
type DeletesId = Uint8Array | typeof NO_DELETES;
const NO_DELETES = Symbol('no deletes');
const deletesOf = (live: LiveSegment): DeletesId => live.deleted ?? NO_DELETES;

/** Where a kept run is kept, and when it was last used (eviction goes by that stamp). */
interface Kept {
  segment: Segment;
  key: RunName;
  deletes: DeletesId;
  used: number;
}

/** A merge laid out from kept runs: it serves while no run or map has been freed since {@link frees}. */
interface KeptMerge {
  merge: LaidOutMerge;
  frees: number;
  /** Its runs' records, stamped as used whenever it serves. */
  runs: Kept[];
}

interface SegmentEntry {
  /** By run key, the runs for each set of deletes. */
  runs: Map<RunName, Map<DeletesId, SortedRun>>;
  maps: Map<string, { version: object; array: WasmArray<Float64Array> }>;
  /** By column id, the segment's sort columns copied into wasm memory. */
  columns: Map<string, WasmArray<Float64Array>>;
}

/** Where a kept column is kept, and when it was last used. */
interface KeptColumn {
  segment: Segment;
  id: string;
  used: number;
}

/**
 * Background builds wait this long before each slice by default: the response to the request that
 * asked for the run is written after the handler returns, and a slice run first would delay it by a
 * build (over HTTP a cold first page took a build longer than top-k alone).
 */
export const SLICE_DELAY_MS = 10;

/** Makes a run (the whole segment sorted, or a query's matches) with the cache's kernels. */
export type RunMaker = (kernels: WasmKernels) => SortedRun;

/**
 * Below this many live documents without a run, a deep page of a new sort sorts them whole (and
 * keeps the runs); from it on, the page is found by pivots (pivot-page.ts) and the runs are built
 * between requests.
 */
export const PIVOT_MIN_DOCS = 65_536;

/** Queries remembered as asked ({@link RunCache.askedBefore}), most recent kept. */
export const MAX_ASKED = 4096;

/** The most builds waiting at once: beyond it, a page answers by top-k and nothing more is queued. */
export const MAX_PENDING_BUILDS = 1024;

/**
 * The most runs kept, whatever their bytes, as Lucene's query cache keeps at most 10,000 entries
 * besides its byte budget: each run also holds JS objects the budget does not count, and a scored
 * query's runs belong to their shard's snapshot, so every refresh leaves them unused. Without a
 * cap they piled up until the byte budget (10% of memory) evicted them: in the load check, 70,000
 * runs and 200 MB of heap in a minute.
 */
export const MAX_RUNS = 10_000;

interface Pending {
  live: LiveSegment;
  key: RunName;
  make: RunMaker;
}

export class RunCache implements MapStore {
  readonly #segments = new Map<Segment, SegmentEntry>();
  /** Every kept run, with where it is kept and when it was last used (eviction goes by that stamp). */
  readonly #lru = new Map<SortedRun, Kept>();
  /** Snapshots of a segment (by their deletes) that points in time and scrolls hold, with their holder counts. */
  readonly #pins = new Map<Segment, Map<DeletesId, number>>();
  /** Segments gone from their shard while pinned: dropped when the last holder lets go. */
  readonly #dropLater = new Set<Segment>();
  #clock = 0;
  /** Merges laid out for sorted pages, by the segments they read (a snapshot's layout) and run key. */
  #laidOut = new WeakMap<object, Map<RunName, KeptMerge>>();
  /** Runs and maps freed so far: a laid-out merge kept before the latest free may name freed memory. */
  #frees = 0;
  /** Runs made for one search only (an older snapshot's deletes), freed at the next trim. */
  #transient: SortedRun[] = [];
  /** Keyword maps replaced by newer ones, freed at the next trim. */
  #transientMaps: WasmArray<Float64Array>[] = [];
  #bytes = 0;
  #mapBytes = 0;
  /** Every kept column, with where it is kept and when it was last used. */
  readonly #columns = new Map<WasmArray<Float64Array>, KeptColumn>();
  #columnBytes = 0;
  #counters = { evictions: 0, hits: 0, misses: 0, background: 0 };
  #queue: Pending[] = [];
  /** Query runs' names asked for so far, least recent first (at most {@link MAX_ASKED}). */
  readonly #asked = new Set<RunName>();
  /** Run keys waiting in the queue, per segment. */
  #queued = new WeakMap<Segment, Set<RunName>>();
  /** Segments gone for good: a queued build for one of them is skipped. */
  #dropped = new WeakSet<Segment>();
  #timer: NodeJS.Timeout | undefined;
  #idle: (() => void)[] = [];
  #closed = false;

  constructor(
    readonly kernels: WasmKernels,
    /** The budget in bytes; runs beyond it are evicted, least recently used first. */
    public limitBytes: number,
    /** Wait before each background slice, in ms. */
    private readonly sliceDelayMs = SLICE_DELAY_MS,
    /** The most runs kept ({@link MAX_RUNS}). */
    private readonly maxRuns = MAX_RUNS,
    /** Documents without a run a deep page must reach before it is found by pivots instead of sorting them ({@link PIVOT_MIN_DOCS}). */
    readonly pivotMinDocs = PIVOT_MIN_DOCS,
  ) {}

  /** The run of `live`'s segment under `key`, made to match the snapshot's deletes; undefined if none is kept. */
  get(live: LiveSegment, key: RunName): SortedRun | undefined {
    const variants = this.#segments.get(live.segment)?.runs.get(key);
    const exact = variants?.get(deletesOf(live));
    if (exact) {
      this.#counters.hits++;
      return this.#touch(exact);
    }
    const newest = variants && newestOf(variants);
    // Nothing kept, or only runs for newer deletes, which cannot be put back: a miss.
    if (!newest || live.deletedCount < newest.deletedCount) {
      this.#counters.misses++;
      return undefined;
    }
    this.#counters.hits++;
    const filtered = this.#keep(newest.filtered(this.kernels, live), live.segment, key, deletesOf(live));
    this.#forgetUnpinned(live.segment, key, filtered);
    return filtered;
  }

  /** Whether {@link get} would find a run for `live` under `key` (without counting a hit or a miss). */
  has(live: LiveSegment, key: RunName): boolean {
    const variants = this.#segments.get(live.segment)?.runs.get(key);
    if (!variants) return false;
    if (variants.has(deletesOf(live))) return true;
    const newest = newestOf(variants);
    return newest !== undefined && live.deletedCount >= newest.deletedCount;
  }

  /**
   * The merge kept for `segments` under `key` by {@link keepLaidOut}, if no run or map was freed
   * since (a free anywhere drops every such merge: they are laid out again on the next search). Its
   * runs count as looked up and used, as the search would have looked each one up.
   */
  laidOut(segments: object, key: RunName): LaidOutMerge | undefined {
    const byKey = this.#laidOut.get(segments);
    const kept = byKey?.get(key);
    if (!kept) return undefined;
    if (kept.frees !== this.#frees) {
      byKey!.delete(key);
      return undefined;
    }
    const used = ++this.#clock;
    for (const record of kept.runs) record.used = used;
    this.#counters.hits += kept.runs.length;
    return kept.merge;
  }

  /** Keeps `merge`, laid out from `runs`, for the searches of `segments` under `key`; only if every run is kept here. */
  keepLaidOut(segments: object, key: RunName, runs: readonly SortedRun[], merge: LaidOutMerge): void {
    if (this.#closed) return;
    const records: Kept[] = [];
    for (const run of runs) {
      const record = this.#lru.get(run);
      // A run made for one search only is freed at the next trim.
      if (!record) return;
      records.push(record);
    }
    let byKey = this.#laidOut.get(segments);
    if (!byKey) this.#laidOut.set(segments, (byKey = new Map()));
    byKey.set(key, { merge, frees: this.#frees, runs: records });
  }

  /** Sorts the whole segment now and keeps the run (for a deep page, or index sorting). */
  build(live: LiveSegment, key: RunName, spec: RunSpec): SortedRun {
    return this.add(live, key, (kernels) => SortedRun.build(kernels, live, spec));
  }

  /** Makes the run now and keeps it, as {@link build} does. */
  add(live: LiveSegment, key: RunName, make: RunMaker): SortedRun {
    const run = make(this.kernels);
    if (this.#closed) {
      this.#transient.push(run);
      return run;
    }
    const deletes = deletesOf(live);
    const variants = this.#segments.get(live.segment)?.runs.get(key);
    const newest = variants && newestOf(variants);
    // An older snapshot than the newest run's: kept while pinned, else it serves this search only.
    const older = newest !== undefined && newest.deletedCount > live.deletedCount;
    if (older && !this.#pinned(live.segment, deletes)) {
      this.#transient.push(run);
      return run;
    }
    const old = variants?.get(deletes);
    if (old) this.#forget(old);
    this.#keep(run, live.segment, key, deletes);
    if (!older) this.#forgetUnpinned(live.segment, key, run);
    return run;
  }

  /**
   * Points in time and scrolls hold these snapshots of their segments: runs made for them are kept
   * beside the newest, and their segments' runs outlive a merge, until {@link release}.
   */
  retain(lives: Iterable<LiveSegment>): void {
    for (const live of lives) {
      let pins = this.#pins.get(live.segment);
      if (!pins) this.#pins.set(live.segment, (pins = new Map()));
      const deletes = deletesOf(live);
      pins.set(deletes, (pins.get(deletes) ?? 0) + 1);
    }
  }

  /** One holder lets the snapshots go: runs only they needed are freed, and segments dropped meanwhile go now. */
  release(lives: Iterable<LiveSegment>): void {
    for (const live of lives) {
      const pins = this.#pins.get(live.segment);
      const deletes = deletesOf(live);
      const count = pins?.get(deletes);
      if (!pins || count === undefined) continue;
      if (count > 1) {
        pins.set(deletes, count - 1);
        continue;
      }
      pins.delete(deletes);
      if (pins.size === 0) this.#pins.delete(live.segment);
      if (this.#dropLater.has(live.segment) && pins.size === 0) {
        this.#dropLater.delete(live.segment);
        this.drop([live.segment]);
        continue;
      }
      for (const variants of this.#segments.get(live.segment)?.runs.values() ?? []) {
        const run = variants.get(deletes);
        if (run && run !== newestOf(variants)) this.#forget(run);
      }
    }
  }

  /**
   * Whether a query's runs (named `key`) were asked for before; notes that they now have been. A
   * query's runs are built between requests only once it is asked again, or for a page past its
   * first: a stream of distinct queries (what a search box sends) builds nothing it never reads.
   */
  askedBefore(key: RunName): boolean {
    const seen = this.#asked.delete(key);
    this.#asked.add(key);
    if (this.#asked.size > MAX_ASKED) this.#asked.delete(this.#asked.values().next().value!);
    return seen;
  }

  /** Makes the run between requests, unless it is kept by then or its segment is gone. */
  schedule(live: LiveSegment, key: RunName, make: RunMaker): void {
    if (this.#closed || this.limitBytes <= 0 || this.#queue.length >= MAX_PENDING_BUILDS) return;
    if (this.#dropped.has(live.segment)) return;
    let queued = this.#queued.get(live.segment);
    if (!queued) this.#queued.set(live.segment, (queued = new Set()));
    if (queued.has(key)) return;
    queued.add(key);
    this.#queue.push({ live, key, make });
    this.#timer ??= setTimeout(() => this.#drain(), this.sliceDelayMs);
  }

  map(segment: Segment, id: string, version: object, build: () => ArrayLike<number>): Column {
    // A segment gone for good keeps nothing: a search of an older snapshot gets a plain copy.
    if (this.#dropped.has(segment) || this.#closed) return Float64Array.from(build());
    const entry = this.#entry(segment);
    const kept = entry.maps.get(id);
    if (kept?.version === version) return kept.array;
    if (kept) {
      // A search may still read the map it replaces (one over other targets): it goes at the next trim.
      this.#mapBytes -= kept.array.bytes;
      this.#transientMaps.push(kept.array);
      this.#frees++;
    }
    const values = build();
    const array = this.kernels.f64(values.length);
    array.view.set(values);
    entry.maps.set(id, { version, array });
    this.#mapBytes += array.bytes;
    return array;
  }

  /**
   * The segment's column `id` (its values by position, from `build`) in wasm memory, copied once and
   * kept until the segment goes, `_cache/clear` or eviction; the plain array when nothing may be kept
   * (no budget, a segment gone). Valid until the next {@link trim}.
   */
  column(segment: Segment, id: string, build: () => Float64Array): Column {
    if (this.#dropped.has(segment) || this.#closed || this.limitBytes <= 0) return build();
    const entry = this.#entry(segment);
    const kept = entry.columns.get(id);
    if (kept) {
      this.#columns.get(kept)!.used = ++this.#clock;
      return kept;
    }
    const values = build();
    const array = this.kernels.f64(values.length);
    array.view.set(values);
    entry.columns.set(id, array);
    this.#columns.set(array, { segment, id, used: ++this.#clock });
    this.#columnBytes += array.bytes;
    return array;
  }

  /** The segments are gone for good (merged away, index deleted): frees everything kept for them, once no one pins them. */
  drop(segments: Iterable<Segment>): void {
    for (const segment of segments) {
      if (this.#pins.has(segment)) {
        this.#dropLater.add(segment);
        continue;
      }
      this.#release(segment);
      this.#dropped.add(segment);
    }
  }

  /** `_cache/clear`: frees what is kept for the segments, and forgets builds queued for them; they build it again when asked. */
  clear(segments: Iterable<Segment>): void {
    const cleared = new Set(segments);
    for (const segment of cleared) {
      this.#release(segment);
      this.#queued.delete(segment);
    }
    this.#queue = this.#queue.filter((pending) => !cleared.has(pending.live.segment));
    if (this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Evicts least recently used runs until the kept ones fit the budget and the count; frees one-search runs. */
  trim(): void {
    for (const run of this.#transient) run.free();
    this.#transient = [];
    for (const map of this.#transientMaps) map.free();
    this.#transientMaps = [];
    // Columns go first: a copy is cheap to make again.
    if (this.#bytes + this.#columnBytes > this.limitBytes && this.#columns.size > 0) {
      const oldestFirst = [...this.#columns].sort((a, b) => a[1].used - b[1].used);
      for (const [array] of oldestFirst) {
        if (this.#bytes + this.#columnBytes <= this.limitBytes) break;
        this.#forgetColumn(array);
      }
    }
    if (this.#bytes <= this.limitBytes && this.#lru.size <= this.maxRuns) return;
    // Over the count, down to nine tenths of it at once: the sort is paid once per many new runs.
    const count = this.#lru.size > this.maxRuns ? Math.floor(this.maxRuns * 0.9) : this.maxRuns;
    const oldestFirst = [...this.#lru].sort((a, b) => a[1].used - b[1].used);
    for (const [run] of oldestFirst) {
      if (this.#bytes <= this.limitBytes && this.#lru.size <= count) break;
      this.#forget(run);
      this.#counters.evictions++;
    }
  }

  /** Allocator blocks held for a segment: per run its positions and keys, and its maps. */
  blocksOf(segment: Segment): number {
    const entry = this.#segments.get(segment);
    if (!entry) return 0;
    let blocks = entry.maps.size + entry.columns.size;
    for (const variants of entry.runs.values()) for (const run of variants.values()) blocks += 1 + run.keys.length;
    return blocks;
  }

  /** Node-level figures. */
  stats(): RunCacheStats {
    return {
      count: this.#lru.size,
      memory_size_in_bytes: this.#bytes,
      ordinal_maps_memory_size_in_bytes: this.#mapBytes,
      columns_memory_size_in_bytes: this.#columnBytes,
      limit_size_in_bytes: this.limitBytes,
      evictions: this.#counters.evictions,
      hit_count: this.#counters.hits,
      miss_count: this.#counters.misses,
      background_builds: this.#counters.background,
      pending_builds: this.#queue.length,
    };
  }

  /** What the given segments (an index's) hold; the counters are node-wide, see {@link stats}. */
  held(segments: Iterable<Segment>): Pick<RunCacheStats, 'count' | 'memory_size_in_bytes' | 'ordinal_maps_memory_size_in_bytes' | 'columns_memory_size_in_bytes'> {
    let count = 0, bytes = 0, mapBytes = 0, columnBytes = 0;
    for (const segment of segments) {
      const entry = this.#segments.get(segment);
      if (!entry) continue;
      for (const variants of entry.runs.values()) {
        for (const run of variants.values()) {
          count++;
          bytes += run.bytes;
        }
      }
      for (const { array } of entry.maps.values()) mapBytes += array.bytes;
      for (const array of entry.columns.values()) columnBytes += array.bytes;
    }
    return { count, memory_size_in_bytes: bytes, ordinal_maps_memory_size_in_bytes: mapBytes, columns_memory_size_in_bytes: columnBytes };
  }

  /** Resolves once no background build is waiting (benchmarks measure the warm state after it). */
  settled(): Promise<void> {
    if (this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Frees everything and stops background builds. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue = [];
    for (const resolve of this.#idle.splice(0)) resolve();
    this.#pins.clear();
    this.#dropLater.clear();
    this.drop([...this.#segments.keys()]);
    this.trim();
  }

  /** One background build per slice, so no request waits behind more than one. */
  #drain(): void {
    this.#timer = undefined;
    const next = this.#queue.shift();
    if (!next) return;
    this.#queued.get(next.live.segment)?.delete(next.key);
    if (!this.#dropped.has(next.live.segment) && !this.#segments.get(next.live.segment)?.runs.get(next.key)?.has(deletesOf(next.live))) {
      try {
        this.add(next.live, next.key, next.make);
        this.#counters.background++;
        this.trim();
      } catch (error) {
        // A run is only a faster way to the same pages: failing to build one must not take the node down.
        console.error('deeppage: building a sorted run in the background failed', error);
      }
    }
    if (this.#queue.length > 0) this.#timer = setTimeout(() => this.#drain(), this.sliceDelayMs);
    else for (const resolve of this.#idle.splice(0)) resolve();
  }

  #keep(run: SortedRun, segment: Segment, key: RunName, deletes: DeletesId): SortedRun {
    const runs = this.#entry(segment).runs;
    let variants = runs.get(key);
    if (!variants) runs.set(key, (variants = new Map()));
    variants.set(deletes, run);
    this.#lru.set(run, { segment, key, deletes, used: ++this.#clock });
    this.#bytes += run.bytes;
    return run;
  }

  #touch(run: SortedRun): SortedRun {
    this.#lru.get(run)!.used = ++this.#clock;
    return run;
  }

  #forget(run: SortedRun): void {
    const kept = this.#lru.get(run);
    if (kept) {
      const variants = this.#segments.get(kept.segment)?.runs.get(kept.key);
      if (variants?.get(kept.deletes) === run) variants.delete(kept.deletes);
      if (variants?.size === 0) this.#segments.get(kept.segment)!.runs.delete(kept.key);
      this.#lru.delete(run);
      this.#bytes -= run.bytes;
    }
    run.free();
    this.#frees++;
  }

  /** Frees the segment's runs under `key` for older deletes than `newest`'s that no one pins. */
  #forgetUnpinned(segment: Segment, key: RunName, newest: SortedRun): void {
    const variants = this.#segments.get(segment)?.runs.get(key);
    if (!variants) return;
    for (const [deletes, run] of variants) {
      if (run !== newest && !this.#pinned(segment, deletes)) this.#forget(run);
    }
  }

  #forgetColumn(array: WasmArray<Float64Array>): void {
    const kept = this.#columns.get(array);
    if (kept) {
      const columns = this.#segments.get(kept.segment)?.columns;
      if (columns?.get(kept.id) === array) columns.delete(kept.id);
      this.#columns.delete(array);
      this.#columnBytes -= array.bytes;
    }
    array.free();
  }

  #pinned(segment: Segment, deletes: DeletesId): boolean {
    return this.#pins.get(segment)?.has(deletes) ?? false;
  }

  #release(segment: Segment): void {
    const entry = this.#segments.get(segment);
    if (!entry) return;
    for (const variants of entry.runs.values()) for (const run of [...variants.values()]) this.#forget(run);
    for (const { array } of entry.maps.values()) {
      this.#mapBytes -= array.bytes;
      array.free();
      this.#frees++;
    }
    for (const array of [...entry.columns.values()]) this.#forgetColumn(array);
    this.#segments.delete(segment);
  }

  #entry(segment: Segment): SegmentEntry {
    let entry = this.#segments.get(segment);
    if (!entry) this.#segments.set(segment, (entry = { runs: new Map(), maps: new Map(), columns: new Map() }));
    return entry;
  }
}


/** The run leaving out the most deletes: the one for the newest snapshot. */
function newestOf(variants: Map<DeletesId, SortedRun>): SortedRun | undefined {
  let newest: SortedRun | undefined;
  for (const run of variants.values()) if (!newest || run.deletedCount > newest.deletedCount) newest = run;
  return newest;
}
