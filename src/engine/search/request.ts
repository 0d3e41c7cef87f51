/**
 * A search request as the engine takes it: already parsed and checked for shape by the request
 * language (src/engine/request/search-params.ts), with ES's defaults filled in. Checks that need an index's settings
 * or mappings (the result window, sortable fields) happen in the engine.
 */
import type { Direction } from '../../core/index.ts';
import type { Query } from '../query/query.ts';

export type SortClause =
  /** Relevance. match_all scores every hit 1.0, so this never reorders anything. */
  | { kind: 'score'; order: Direction }
  /** Index order: the per-shard document ordinal, ties by shard. */
  | { kind: 'doc'; order: Direction }
  /** A point in time's tiebreaker: shard (in the search's shard order), then ordinal, as one number. */
  | { kind: 'shard_doc'; order: Direction }
  | {
      kind: 'field';
      field: string;
      order: Direction;
      /** `_last` (ES's default), `_first`, or a value that stands in for a missing one. */
      missing: '_last' | '_first' | number | string;
      /** Sort as if the field had this type where it is not mapped (otherwise that is an error). */
      unmappedType?: string;
      /** For multi-valued fields: which value sorts the document. ES's default: min asc, max desc. */
      mode?: 'min' | 'max';
    };

export type FieldClause = Extract<SortClause, { kind: 'field' }>;

export type { Query } from '../query/query.ts';

/**
 * How a sorted page is found. `sorted_runs` (the default): every segment keeps its documents in the
 * sort's order, rank selection finds the page's offset in each, and only the page is merged, so a
 * page costs the same at any depth. `top_k`: Elasticsearch's algorithm, every segment's top
 * `from + size` merged at the coordinator; kept so that both can be compared on one server.
 */
export type Paging = 'sorted_runs' | 'top_k';

/** The values `paging` and the node setting `search.paging` take. */
export const PAGINGS: readonly Paging[] = ['sorted_runs', 'top_k'];

/** Which parts of `_source` a hit carries: none, or the paths matching includes minus excludes. */
export type SourceFilter = false | { includes: string[]; excludes: string[] };

export interface SearchRequest {
  from: number;
  size: number;
  /** Empty: `_score` desc, ES's default. */
  sort: SortClause[];
  /** `true` counts exactly, `false` not at all, N counts up to N (then relation `gte`). ES's default: 10,000. */
  trackTotalHits: boolean | number;
  /** Render `hits.total` as a plain number (ES 6 style). */
  restTotalHitsAsInt: boolean;
  source: SourceFilter;
  query: Query;
  /** Leave out hits scoring less than this (ES's `min_score`). */
  minScore?: number;
  /** Compute and show scores when sorting by a field (ES's `track_scores`). */
  trackScores: boolean;
  /** Unset: the node's `search.paging` (node-settings.ts), the one home of the default. */
  paging?: Paging;
  /** `search_after`: the sort values of the hit to continue after, as the client sent them. */
  after?: unknown[];
  /** Search a point in time (its indices, as they were) instead of indices named in the path. */
  pit?: { id: string; keepAliveMs?: number };
  /** `scroll`: open a scroll context kept alive this long (ms) between batches. */
  scroll?: number;
  /** `slice`: part `id` of `max` of the search's documents (search/slice.ts), with a point in time or a scroll. */
  slice?: SliceRequest;
  /** Hits carry their `_version` (ES's `version`). */
  version: boolean;
  /** Hits carry `_seq_no` and `_primary_term` (ES's `seq_no_primary_term`). */
  seqNoPrimaryTerm: boolean;
  /** `docvalue_fields`: fields or `*` patterns whose doc values each hit lists under `fields`, with a format for dates. */
  docValueFields: DocValueField[];
  /**
   * `stored_fields`: `false` is `_none_` (hits carry no `_id`, `_routing` or `_source`); a list
   * names stored fields, of which deeppage keeps none apart from `_source`.
   */
  storedFields?: false | string[];
  /** With shard failures, answer with the other shards' hits (ES's `allow_partial_search_results`, default true). */
  allowPartial: boolean;
}

export interface SliceRequest {
  id: number;
  max: number;
  /** How a split shard is split: `_shard_doc` (or `_doc`), `_id`; unset, by `_shard_doc` with a point in time and `_id` with a scroll. */
  field?: '_shard_doc' | '_doc' | '_id';
}

export interface DocValueField {
  field: string;
  format?: string;
}

export const DEFAULT_TRACK_TOTAL_HITS = 10_000;

export function searchRequest(overrides: Partial<SearchRequest> = {}): SearchRequest {
  return {
    from: 0,
    size: 10,
    sort: [],
    trackTotalHits: DEFAULT_TRACK_TOTAL_HITS,
    restTotalHitsAsInt: false,
    source: { includes: [], excludes: [] },
    query: { kind: 'match_all', boost: 1 },
    trackScores: false,
    version: false,
    seqNoPrimaryTerm: false,
    docValueFields: [],
    allowPartial: true,
    ...overrides,
  };
}
