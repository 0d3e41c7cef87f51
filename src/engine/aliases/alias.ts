/**
 * Index aliases as Elasticsearch keeps them: part of each index's metadata, one entry per alias the
 * index carries, with what the alias adds to requests made through it (a filter on searches,
 * routings for writes and searches, whether it takes writes). An alias points at every index that
 * carries it.
 */
import type { Query } from '../query/query.ts';

export interface AliasProps {
  /** The filter as the client sent it (shown by `GET _alias`), and parsed (applied to searches). */
  filter?: { raw: Record<string, unknown>; query: Query };
  /** Replaces the routing of writes and single-document requests made through the alias. */
  indexRouting?: string;
  /** Limits searches through the alias to the shards these values route to. */
  searchRouting?: string;
  /** `true`: writes through the alias go here; `false`: never here; unset: here if it is the alias's only index. */
  isWriteIndex?: boolean;
  isHidden?: boolean;
}

/** An alias as stored in the index's metadata (JSON, Elasticsearch's field names). */
export interface StoredAlias {
  filter?: Record<string, unknown>;
  filter_query?: Query;
  index_routing?: string;
  search_routing?: string;
  is_write_index?: boolean;
  is_hidden?: boolean;
}

export function storedAlias(props: AliasProps): StoredAlias {
  return {
    ...(props.filter && { filter: props.filter.raw, filter_query: props.filter.query }),
    ...(props.indexRouting !== undefined && { index_routing: props.indexRouting }),
    ...(props.searchRouting !== undefined && { search_routing: props.searchRouting }),
    ...(props.isWriteIndex !== undefined && { is_write_index: props.isWriteIndex }),
    ...(props.isHidden !== undefined && { is_hidden: props.isHidden }),
  };
}

export function aliasFromStored(stored: StoredAlias): AliasProps {
  return {
    ...(stored.filter && stored.filter_query && { filter: { raw: stored.filter, query: stored.filter_query } }),
    ...(stored.index_routing !== undefined && { indexRouting: stored.index_routing }),
    ...(stored.search_routing !== undefined && { searchRouting: stored.search_routing }),
    ...(stored.is_write_index !== undefined && { isWriteIndex: stored.is_write_index }),
    ...(stored.is_hidden !== undefined && { isHidden: stored.is_hidden }),
  };
}

/** An alias as `GET _alias` shows it: only what is set. */
export function shownAlias(props: AliasProps): Record<string, unknown> {
  return {
    ...(props.filter && { filter: props.filter.raw }),
    ...(props.indexRouting !== undefined && { index_routing: props.indexRouting }),
    ...(props.searchRouting !== undefined && { search_routing: props.searchRouting }),
    ...(props.isWriteIndex !== undefined && { is_write_index: props.isWriteIndex }),
    ...(props.isHidden !== undefined && { is_hidden: props.isHidden }),
  };
}

/** One change of `POST /_aliases`, its names resolved by the caller (engine.ts). */
export type AliasAction =
  | { type: 'add'; indices: string[]; aliases: string[]; props: AliasProps; mustExist?: undefined }
  | { type: 'remove'; indices: string[]; aliases: string[]; mustExist?: boolean }
  | { type: 'remove_index'; indices: string[] };
