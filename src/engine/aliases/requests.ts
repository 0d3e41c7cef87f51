/**
 * What an alias does to the requests made through it: the filter and routing a search gets for each
 * index it reaches, the index (and routing) a write or a single-document request goes to. The
 * errors are Elasticsearch's own.
 */
import { badRequest, illegalArgument } from '../errors.ts';
import type { AliasNames } from '../index-names.ts';
import type { Query } from '../query/query.ts';
import type { SearchIndex } from '../search-index.ts';
import type { AliasProps } from './alias.ts';

/** The aliases of the given indices, as index-names.ts resolves expressions with them. */
export function aliasNames(indices: Iterable<SearchIndex>): AliasNames {
  const names = new Map<string, { indices: string[]; hidden: boolean }>();
  for (const index of indices) {
    for (const [alias, props] of index.aliases) {
      let entry = names.get(alias);
      if (!entry) names.set(alias, (entry = { indices: [], hidden: false }));
      entry.indices.push(index.name);
      if (props.isHidden) entry.hidden = true;
    }
  }
  for (const entry of names.values()) entry.indices.sort();
  return names;
}

/** How a search reaches one index: the filter its aliases add, and the routing they limit it to. */
export interface SearchReach {
  filter?: Query;
  routing?: string;
}

/**
 * Reached by its own name (`null` among the ways), or through an alias without a filter, an index is
 * searched whole; through filtered aliases only, a document must match one of their filters. The
 * aliases' search routings limit the shards (all of them must have one), intersected with the
 * request's routing when it has one.
 */
export function searchReach(index: SearchIndex, ways: ReadonlySet<string | null>, requestRouting: string | undefined): SearchReach {
  const via = [...ways].map((alias) => (alias === null ? undefined : index.aliases.get(alias)));
  const filters: Query[] = [];
  let whole = false;
  for (const props of via) {
    if (!props?.filter) whole = true;
    else filters.push(props.filter.query);
  }
  const filter: Query | undefined = whole ? undefined : filters.length === 1 ? filters[0] : { kind: 'bool', must: [], filter: [], should: filters, mustNot: [], boost: 1 };
  let routing = requestRouting;
  if (via.every((props) => props?.searchRouting !== undefined)) {
    const allowed = new Set(via.flatMap((props) => props!.searchRouting!.split(',')));
    const asked = requestRouting === undefined ? [...allowed] : requestRouting.split(',').filter((r) => allowed.has(r));
    // Nothing left of either: the search reaches no shard of this index.
    routing = asked.length === 0 ? '' : asked.join(',');
  }
  return { ...(filter && { filter }), ...(routing !== undefined && { routing }) };
}

/**
 * The index a write through `alias` goes to: the one marked `is_write_index: true`, else the only
 * index, unless it is marked `false`.
 */
export function writeIndexOf(alias: string, indices: readonly SearchIndex[]): SearchIndex {
  const marked = indices.filter((index) => index.aliases.get(alias)?.isWriteIndex === true);
  if (marked.length === 1) return marked[0];
  if (indices.length === 1 && indices[0].aliases.get(alias)?.isWriteIndex !== false) return indices[0];
  throw illegalArgument(
    `no write index is defined for alias [${alias}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`,
  );
}

/** The only index of an alias, for a request on one document (a GET through an alias). */
export function singleIndexOf(alias: string, indices: readonly SearchIndex[]): SearchIndex {
  if (indices.length === 1) return indices[0];
  throw illegalArgument(`alias [${alias}] has more than one index associated with it [${indices.map((i) => i.name).join(', ')}], can't execute a single index op`);
}

/** The routing of a request on one document through an alias: its index routing, which a different one given contradicts. */
export function indexRouting(alias: string, props: AliasProps | undefined, routing: string | undefined): string | undefined {
  const own = props?.indexRouting;
  if (own === undefined) return routing;
  if (routing !== undefined && routing !== own) {
    throw badRequest('illegal_argument_exception', `Alias [${alias}] has index routing associated with it [${own}], and was provided with routing value [${routing}], rejecting operation`);
  }
  return own;
}
