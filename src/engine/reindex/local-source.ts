/**
 * Reading indices of this node for a reindex: a point in time over them (what they hold when the
 * reindex starts, whatever is written meanwhile), walked in index order with `search_after` on
 * `_shard_doc`, one batch per call. Each batch costs what a first page costs: no deep paging.
 */
import type { Engine } from '../engine.ts';
import { RawJson } from '../raw-json.ts';
import { searchRequest, type Query, type SearchRequest, type SourceFilter } from '../search/request.ts';
import type { HitSource, SourceHit } from './hit-source.ts';

export interface LocalSourceOptions {
  /** Index expression (comma list, wildcards). */
  indices: string;
  size: number;
  source: Exclude<SourceFilter, false>;
  /** Which documents to copy; match_all when absent. */
  query?: Query;
  /** This slice of the source (search/slice.ts): whole shards, or part of one, as Elasticsearch slices a point in time. */
  slice?: { id: number; max: number };
  /** How long the point in time lives between batches. */
  keepAliveMs: number;
}

export class LocalSource implements HitSource {
  #after: unknown[] | undefined;
  #done = false;

  private constructor(
    private readonly engine: Engine,
    private readonly pit: string,
    private readonly request: SearchRequest,
    readonly total: number,
  ) {}

  static open(engine: Engine, options: LocalSourceOptions): LocalSource {
    // The reindex's own reader: users' cap on points in time does not count it.
    const { id } = engine.openPointInTime(options.indices, options.keepAliveMs, undefined, false);
    const request = searchRequest({
      size: options.size,
      sort: [{ kind: 'shard_doc', order: 'asc' }],
      source: options.source,
      ...(options.query && { query: options.query }),
      trackTotalHits: true,
      pit: { id, keepAliveMs: options.keepAliveMs },
      ...(options.slice && { slice: options.slice }),
    });
    try {
      const counted = engine.search(undefined, { ...request, size: 0 }).hits.total;
      return new LocalSource(engine, id, request, typeof counted === 'object' ? counted.value : (counted ?? 0));
    } catch (e) {
      engine.cursors.closePits([id]);
      throw e;
    }
  }

  async next(extraKeepAliveMs = 0): Promise<SourceHit[]> {
    if (this.#done) return [];
    const pit = { ...this.request.pit!, keepAliveMs: this.request.pit!.keepAliveMs! + extraKeepAliveMs };
    const { hits } = this.engine.search(undefined, { ...this.request, pit, ...(this.#after && { after: this.#after }) }).hits;
    if (hits.length < this.request.size) this.#done = true;
    if (hits.length > 0) this.#after = hits[hits.length - 1].sort;
    return hits.map((hit): SourceHit => {
      const kept = hit._source ?? {};
      // Unfiltered, the stored text goes to the destination as it is, parsed once for its mappings.
      // Its search asks for no `stored_fields`, so every hit has its `_id`. One shape for every hit.
      if (kept instanceof RawJson) return { index: hit._index, id: hit._id!, routing: hit._routing, source: kept.value as Record<string, unknown>, text: kept.bytes ?? kept.text };
      return { index: hit._index, id: hit._id!, routing: hit._routing, source: kept, text: undefined };
    });
  }

  async close(): Promise<void> {
    this.engine.cursors.closePits([this.pit]);
  }
}
