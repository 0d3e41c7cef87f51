/**
 * One index: its names, settings, mappings and aliases, its shards, and the snapshot searches read.
 * The index owns what it has published and wires the parts that make the next one, each under
 * search-index/, split by lifetime as Lucene splits its writer, its merge scheduler and its readers:
 *
 * - index-writes.ts, the write path: writes are planned, then applied once storage has them
 *   (the engine acknowledges only then);
 * - index-scheduler.ts: when writes become visible (refreshes, `wait_for`) and segments merge;
 * - index-snapshot.ts: what a search reads, a point in time with its cache, published anew at each
 *   refresh and merge with what snapshot-warmers.ts gives it.
 */
import { randomUUID } from 'node:crypto';
import type { IndexMeta } from '../store/doc-store.ts';
import { aliasFromStored, storedAlias, type AliasProps, type StoredAlias } from './aliases/alias.ts';
import { illegalArgument } from './errors.ts';
import { indexFamily, sortFamily } from './field-types.ts';
import { Mappings } from './mapping.ts';
import type { SortClause } from './search/request.ts';
import type { RunCache } from './search/runs/run-cache.ts';
import { IndexScheduler } from './search-index/index-scheduler.ts';
import type { IndexSnapshot, SearchedIndex } from './search-index/index-snapshot.ts';
import { IndexWrites, type WrittenIndex } from './search-index/index-writes.ts';
import { nextSnapshot, sortNewSegments, warmOrdinals } from './search-index/snapshot-warmers.ts';
import type { TermsLineage } from './segments/merge.ts';
import type { Segment } from './segments/segment.ts';
import { parseSettings, type IndexSettings } from './settings.ts';
import { Shard } from './shard.ts';
import type { Sources } from './sources.ts';

export class SearchIndex implements SearchedIndex, WrittenIndex {
  readonly shards: Shard[];
  /** The aliases the index carries (part of its metadata, as in Elasticsearch); the engine changes them. */
  readonly aliases = new Map<string, AliasProps>();
  /** The write path: plans writes, applies them once durable, finds documents by id. */
  readonly writes: IndexWrites;
  /** Refreshes and merges: when writes become visible, and when segments merge. */
  readonly scheduler: IndexScheduler;
  /** What searches read now: the snapshot published last. */
  #snapshot: IndexSnapshot;

  constructor(
    readonly name: string,
    readonly uuid: string,
    readonly createdAt: number,
    public settings: IndexSettings,
    readonly mappings: Mappings,
    /** The node's sorted runs: told when segments go, asked to build index-sort runs. */
    private readonly runs: RunCache,
    /** The node's `_source` owner: told when a shard publishes a snapshot. */
    sources: Sources,
  ) {
    const familyOf = (field: string) => {
      const mapping = this.mappings.get(field);
      return mapping ? indexFamily(mapping.type) : undefined;
    };
    this.shards = Array.from({ length: settings.numberOfShards }, (_, n) => new Shard(n, familyOf, (dropped) => runs.drop(dropped)));
    this.writes = new IndexWrites(this);
    this.#snapshot = nextSnapshot(this, this.shards.map((s) => s.snapshot), undefined);
    this.scheduler = new IndexScheduler(this, this.shards, sources, (before, lineage) => this.#publish(before, lineage));
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
      mappings: this.writes.plannedMappings.toJSON(),
      seqs: this.shards.map((s) => s.writes.maxSeq),
      ...(this.aliases.size > 0 && { aliases: Object.fromEntries([...this.aliases].map(([alias, props]) => [alias, storedAlias(props)])) }),
    };
  }

  snapshot(): IndexSnapshot {
    return this.#snapshot;
  }

  /** Deleted or shut down. */
  get closed(): boolean {
    return this.scheduler.closed;
  }

  get docCount(): number {
    return this.shards.reduce((n, s) => n + s.writes.docCount, 0);
  }

  /** The segments searches see now. */
  segments(): Segment[] {
    return this.shards.flatMap((shard) => shard.segments);
  }

  /** On start-up, once every shard is loaded and replayed: searches see them from now on. */
  restored(): void {
    this.scheduler.refresh();
    this.#snapshot = nextSnapshot(this, this.shards.map((s) => s.snapshot), this.#snapshot);
  }

  /**
   * Drops what searches keep between requests: the snapshot's global ordinals and every segment's
   * sorted runs. Answers stay the same; the next searches rebuild what they need.
   */
  clearCaches(): void {
    this.#snapshot.cache.clear();
    this.runs.clear(this.segments());
  }

  updateSettings(settings: IndexSettings): void {
    this.settings = settings;
    this.scheduler.reschedule();
  }

  /** Stops refreshing and merging, and gives up everything kept for the index's segments. */
  close(): void {
    this.scheduler.close();
    this.runs.drop(this.segments());
  }

  /** The clauses of the index sort (`index.sort.*`), if the index has one. */
  indexSort(): SortClause[] | undefined {
    const sort = this.settings.sort;
    return sort?.field.map((field, i) => ({ kind: 'field', field, order: sort.order[i], missing: sort.missing[i], mode: sort.mode[i] }));
  }

  /** Shards published: the index's next snapshot, warmed (snapshot-warmers.ts). */
  #publish(before: ReadonlySet<Segment> | undefined, lineage?: ReadonlyMap<string, TermsLineage>): void {
    const snapshot = (this.#snapshot = nextSnapshot(this, this.shards.map((s) => s.snapshot), this.#snapshot, lineage));
    const clauses = this.indexSort();
    if (before && clauses) sortNewSegments(snapshot, clauses, before, this.runs);
    warmOrdinals(snapshot, () => this.closed);
  }
}

/** Index sort fields must be mapped, sortable fields (IndexSortConfig's checks, in its words). */
function checkIndexSort(fields: readonly string[], mappings: Mappings): void {
  for (const field of fields) {
    const mapping = mappings.get(field);
    if (!mapping) throw illegalArgument(`unknown index sort field:[${field}]`);
    if (sortFamily(mapping.type) === 'none') throw illegalArgument(`docvalues not found for index sort field:[${field}]`);
  }
}
