/**
 * One search as a request states it: the indices its path (or an `_msearch` header) names, the search
 * itself (search-params.ts), and where it reads (`routing`, `preference` and the indices options).
 * `_search` and every `_msearch` item are read and run here, so both take each key the same way.
 *
 * @example
 * const page = search(engine, 'books', { q: 'author:kim', size: '5' });
 *
 * // Read once, run again and again (the search route keeps URI searches so, by URL):
 * const call = searchCall({ size: '5', routing: 'u1' }, { query: { match_all: {} } }, '/books/_search', 'books');
 * const response = runSearch(engine, call);
 */
import type { Engine } from '../engine.ts';
import type { SearchRequest } from '../search/request.ts';
import type { SearchResponse } from '../search/search.ts';
import { searchScope } from './indices-options.ts';
import { parseSearchRequest, requestPath } from './search-params.ts';

type Params = Record<string, string | undefined>;

export interface SearchCall {
  /** The index expression; undefined searches every index. */
  index: string | undefined;
  request: SearchRequest;
  /** The URI parameters (or header keys) `routing`, `preference` and the indices options are read from. */
  params: Params;
}

/** Reads and checks the search: a malformed one throws here, before anything runs. */
export function searchCall(params: Params, body: unknown, path: string, index: string | undefined): SearchCall {
  return { index, request: parseSearchRequest(params, body, path, index !== undefined), params };
}

/**
 * Runs the search. Where it reads is worked out as it starts, as ES routes a search when it runs it:
 * a `preference` it cannot read fails this search (one `_msearch` item), not a request around it.
 */
export function runSearch(engine: Engine, { index, request, params }: SearchCall): SearchResponse {
  return engine.search(index, request, params.routing, searchScope(params));
}

/**
 * `GET /{index}/_search` (`/_search` without an index): the search the URI parameters and body state,
 * read, checked and run. A request ES would refuse throws the EsError it answers with.
 *
 * @param path names the request in errors, as the client sent it; `/{index}/_search` by default.
 */
export function search(engine: Engine, index: string | undefined, params: Params, body?: unknown, path = requestPath(index, '_search')): SearchResponse {
  return runSearch(engine, searchCall(params, body, path, index));
}
