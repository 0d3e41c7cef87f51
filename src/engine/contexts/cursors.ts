/**
 * Points in time and scrolls: the one owner of open reader contexts on a node. A context pins the
 * snapshots of its indices as they were when it opened (documents, versions, `_source`, deletes)
 * whatever is written, refreshed or merged afterwards, until it is closed or its keep-alive passes
 * without use. What it pins (retired `_source`, sorted runs of older deletes, merged-away segments)
 * is held through {@link Pinning} and let go when it goes.
 *
 * A scroll is a context plus the request and how many hits it has returned: each batch is the
 * next page of the same order on the same snapshots, found by rank, so batch N costs what batch 1
 * costs. Elasticsearch's limits apply: `search.max_keep_alive`, `search.max_open_scroll_context`,
 * and OpenSearch's `search.max_open_pit_context` for points in time.
 */
import { EsError, searchContextMissing } from '../errors.ts';
import type { NodeSettings } from '../node-settings.ts';
import type { IndexSnapshot, SearchedIndex } from '../search-index/index-snapshot.ts';
import { OrderKey } from '../search/order-key.ts';
import type { SearchRequest } from '../search/request.ts';
import type { SearchResponse } from '../search/search.ts';
import { formatTimeValue } from '../time-value.ts';
import { ContextIds, type ContextKind } from './context-id.ts';

/** What holding a snapshot keeps alive elsewhere (the `_source` of replaced documents, sorted runs). */
export interface Pinning {
  retain(targets: readonly IndexSnapshot[]): void;
  release(targets: readonly IndexSnapshot[]): void;
}

/** Runs a search over pinned snapshots; with the request's key when the caller keeps it. */
export type RunSearch = (targets: readonly IndexSnapshot[], request: SearchRequest, key?: OrderKey) => SearchResponse;

interface Context {
  kind: ContextKind;
  n: number;
  targets: readonly IndexSnapshot[];
  keepAliveMs: number;
  timer?: NodeJS.Timeout;
  /** Counts the keep-alive's restarts: an expiry queued before the last one is void. */
  armed: number;
  openedAt: number;
  /** A scroll's request with its key (every batch is the same sort under the same query), and how many hits it has handed out. */
  scroll?: { request: SearchRequest; key: OrderKey; returned: number };
  /** Counted against the node's cap (a user's context, not the node's own). */
  capped: boolean;
}

/** An open point in time as OpenSearch lists it. */
export interface PitInfo {
  id: string;
  /** When it was opened, in ms since the epoch. */
  openedAt: number;
  /** The keep-alive it was last given, in ms. */
  keepAliveMs: number;
}

/** ES's search stats that concern contexts (`indices.search` in `_nodes/stats` and `_stats`). */
export interface ContextStats {
  /** Shard-level reader contexts held open (a context over five shards counts five, as in ES). */
  open_contexts: number;
  scroll_current: number;
  scroll_total: number;
  scroll_time_in_millis: number;
  point_in_time_current: number;
}

export class Cursors {
  readonly #ids = new ContextIds();
  readonly #open = new Map<number, Context>();
  /** Contexts whose keep-alive ran out, closed one per pass of the event loop ({@link #expire}). */
  readonly #expired: { context: Context; armed: number }[] = [];
  #next = 1;
  #scrollsEnded = 0;
  #scrollMillis = 0;

  constructor(
    private readonly settings: NodeSettings,
    private readonly pinning: Pinning,
  ) {}

  /**
   * Opens a point in time over the snapshots; returns its id. `capped: false` is for the node's own
   * readers (a reindex): they do not count against the cap users' points in time have.
   */
  openPit(targets: readonly IndexSnapshot[], keepAliveMs: number, capped = true): string {
    this.#checkKeepAlive(keepAliveMs);
    if (capped && this.#count('pit') >= this.settings.maxOpenPitContexts) {
      const limit = this.settings.maxOpenPitContexts;
      throw new EsError(429, 'rejected_execution_exception', `Trying to create too many Point In Time contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_pit_context] setting.`);
    }
    return this.#ids.encode('pit', this.#add('pit', targets, keepAliveMs, undefined, capped).n);
  }

  /** A search over a point in time: its snapshots, its keep-alive extended if asked. The response carries `pit_id`. */
  searchPit(id: string, keepAliveMs: number | undefined, request: SearchRequest, run: RunSearch): SearchResponse & { pit_id: string } {
    const context = this.#find('pit', id, keepAliveMs);
    return { pit_id: id, ...run(context.targets, request) };
  }

  /** Closes points in time (ES's `DELETE /_pit`): every id is checked first, then the known ones freed. */
  closePits(ids: readonly string[]): { succeeded: boolean; num_freed: number } {
    return this.#closeIds('pit', ids);
  }

  /** Users' open points in time (not the node's own readers), oldest first: OpenSearch's `GET /_search/point_in_time/_all`. */
  pits(): PitInfo[] {
    const pits: PitInfo[] = [];
    for (const context of this.#open.values()) {
      if (context.kind === 'pit' && context.capped) pits.push({ id: this.#ids.encode('pit', context.n), openedAt: context.openedAt, keepAliveMs: context.keepAliveMs });
    }
    return pits;
  }

  /** The first batch of a scroll, and the context that serves the next ones (its id is `_scroll_id`). */
  startScroll(targets: readonly IndexSnapshot[], request: SearchRequest, keepAliveMs: number, run: RunSearch): SearchResponse & { _scroll_id: string } {
    this.#checkKeepAlive(keepAliveMs);
    if (this.#count('scroll') >= this.settings.maxOpenScrollContexts) {
      const limit = this.settings.maxOpenScrollContexts;
      throw new EsError(429, 'too_many_scroll_contexts_exception', `Trying to create too many scroll contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_scroll_context] setting.`);
    }
    // A scroll counts its hits exactly, whatever track_total_hits said (ES does the same).
    const scrolled: SearchRequest = { ...request, trackTotalHits: true };
    const key = OrderKey.of(scrolled);
    const response = run(targets, scrolled, key);
    const context = this.#add('scroll', targets, keepAliveMs, { request: scrolled, key, returned: response.hits.hits.length });
    return { _scroll_id: this.#ids.encode('scroll', context.n), ...response };
  }

  /** The next batch of a scroll: the same order on the same snapshots, after the hits already returned. */
  nextScroll(id: string, keepAliveMs: number | undefined, run: RunSearch): SearchResponse & { _scroll_id: string } {
    const context = this.#find('scroll', id, keepAliveMs);
    const scroll = context.scroll!;
    const response = run(context.targets, { ...scroll.request, from: scroll.returned }, scroll.key);
    scroll.returned += response.hits.hits.length;
    return { _scroll_id: id, ...response };
  }

  /** Clears scrolls (ES's `DELETE /_search/scroll`): every id is checked first; `all` clears every one. */
  clearScrolls(ids: readonly string[] | 'all'): { succeeded: boolean; num_freed: number } {
    if (ids === 'all') {
      let freed = 0;
      for (const context of [...this.#open.values()]) if (context.kind === 'scroll' && this.#close(context.n, 'scroll')) freed++;
      return { succeeded: true, num_freed: freed };
    }
    return this.#closeIds('scroll', ids);
  }

  /** Every id is checked first (a malformed one fails them all), then the known contexts closed. */
  #closeIds(kind: ContextKind, ids: readonly string[]): { succeeded: boolean; num_freed: number } {
    const decoded = ids.map((id) => this.#ids.decode(kind, id));
    let freed = 0;
    for (const { n, ours } of decoded) if (ours && this.#close(n, kind)) freed++;
    return { succeeded: true, num_freed: freed };
  }

  /** The index is being deleted: contexts over it go (their searches answer "no search context" from now on). */
  dropIndex(index: SearchedIndex): void {
    for (const context of [...this.#open.values()]) {
      if (context.targets.some((target) => target.index === index)) this.#close(context.n, context.kind);
    }
  }

  /** Figures for the given indices (all when omitted). */
  stats(indices?: readonly SearchedIndex[]): ContextStats {
    const wanted = indices && new Set(indices);
    let shards = 0, scrollShards = 0, pits = 0;
    for (const context of this.#open.values()) {
      const held = context.targets.filter((target) => !wanted || wanted.has(target.index)).reduce((n, target) => n + target.shards.length, 0);
      shards += held;
      if (context.kind === 'scroll') scrollShards += held;
      else if (held > 0) pits++;
    }
    return {
      open_contexts: shards,
      scroll_current: scrollShards,
      scroll_total: this.#scrollsEnded,
      scroll_time_in_millis: this.#scrollMillis,
      point_in_time_current: pits,
    };
  }

  /** Closes every context (the node is shutting down). */
  close(): void {
    for (const context of [...this.#open.values()]) this.#close(context.n, context.kind);
    this.#expired.length = 0;
  }

  #add(kind: ContextKind, targets: readonly IndexSnapshot[], keepAliveMs: number, scroll?: Context['scroll'], capped = true): Context {
    const context: Context = { kind, n: this.#next++, targets, keepAliveMs, armed: 0, openedAt: Date.now(), scroll, capped };
    this.pinning.retain(targets);
    this.#open.set(context.n, context);
    this.#arm(context);
    return context;
  }

  #find(kind: ContextKind, id: string, keepAliveMs: number | undefined): Context {
    const { n, ours } = this.#ids.decode(kind, id);
    const context = ours ? this.#open.get(n) : undefined;
    if (!context || context.kind !== kind) throw searchContextMissing(n);
    if (keepAliveMs !== undefined) {
      // The node's own readers may outlast the limit by the waits they are throttled for.
      if (context.capped) this.#checkKeepAlive(keepAliveMs);
      context.keepAliveMs = keepAliveMs;
    }
    this.#arm(context);
    return context;
  }

  /** (Re)starts the keep-alive: the context closes once it passes without use. */
  #arm(context: Context, remaining = context.keepAliveMs): void {
    clearTimeout(context.timer);
    // Timers go up to 2^31 - 1 ms (24.8 days): a longer keep-alive takes several in turn.
    const step = Math.min(remaining, 2 ** 31 - 1);
    const armed = ++context.armed;
    context.timer = setTimeout(() => (remaining > step ? this.#arm(context, remaining - step) : this.#expire(context, armed)), step);
    context.timer.unref();
  }

  /**
   * Closes a context whose keep-alive ran out, one per pass of the event loop: contexts opened
   * together expire together (a hundred clients' points in time), and closing them all in one
   * callback held the loop 50 ms. One used again before its turn stays open (its keep-alive runs
   * anew), as one used before Elasticsearch's reaper comes round does.
   */
  #expire(context: Context, armed: number): void {
    this.#expired.push({ context, armed });
    if (this.#expired.length === 1) setImmediate(this.#closeExpired).unref();
  }

  readonly #closeExpired = () => {
    const expired = this.#expired.shift();
    if (expired && expired.context.armed === expired.armed) this.#close(expired.context.n, expired.context.kind);
    if (this.#expired.length > 0) setImmediate(this.#closeExpired).unref();
  };

  #close(n: number, kind: ContextKind): boolean {
    const context = this.#open.get(n);
    if (!context || context.kind !== kind) return false;
    clearTimeout(context.timer);
    this.#open.delete(n);
    this.pinning.release(context.targets);
    if (kind === 'scroll') {
      this.#scrollsEnded++;
      this.#scrollMillis += Date.now() - context.openedAt;
    }
    return true;
  }

  #count(kind: ContextKind): number {
    let n = 0;
    for (const context of this.#open.values()) if (context.kind === kind && context.capped) n++;
    return n;
  }

  #checkKeepAlive(ms: number): void {
    const max = this.settings.maxKeepAliveMs;
    if (ms > max) {
      throw new EsError(400, 'illegal_argument_exception', `Keep alive for request (${formatTimeValue(ms)}) is too large. It must be less than (${formatTimeValue(max)}). This limit can be set by changing the [search.max_keep_alive] cluster level setting.`);
    }
  }
}
