/**
 * One search as a request states it: the indices its path (or an `_msearch` header) names, the search
 * itself (search-params.ts), and where it reads (`routing`, `preference` and the indices options).
 * `_search` and every `_msearch` item are read and run here, so both take each key the same way.
 *
 * @example
 * const call = searchCall({ size: '5', routing: 'u1' }, { query: { match_all: {} } }, '/books/_search', 'books');
 * const response = runSearch(engine, call);
 *
 * const kept = new KeptSearchCalls();
 * const again = kept.read(url, () => searchCall(params, undefined, path, index)); // read once per URL
 */
import type { Engine } from '../engine/engine.ts';
import type { SearchRequest } from '../engine/search/request.ts';
import type { SearchResponse } from '../engine/search/search.ts';
import { searchScope } from './indices-options.ts';
import { parseSearchRequest } from './search-params.ts';

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
 * Searches stated by their URI alone (no body), kept by URL: a client polling a page, or a dashboard,
 * asks the same URL again and again, and reading and checking its parameters took 2.1–2.5 µs of a
 * shallow page's 50 in the server under load (0.3 kept). A kept call is frozen (the engine only
 * reads a request), so that one served twice is the same both times. Only calls read without an
 * error are kept.
 */
export class KeptSearchCalls {
  readonly #kept = new Map<string, SearchCall>();

  /** The call the URL states, read by `read` the first time. */
  read(url: string, read: () => SearchCall): SearchCall {
    let call = this.#kept.get(url);
    if (call !== undefined) return call;
    call = read();
    if (url.length <= LONGEST_KEPT) {
      // URLs with ids or search_after values in them come and go: all are let go at once when there are many.
      if (this.#kept.size >= KEPT) this.#kept.clear();
      this.#kept.set(url, frozen(call));
    }
    return call;
  }
}

/** At most this many calls are kept, each for a URL of at most {@link LONGEST_KEPT} characters. */
const KEPT = 1024;
const LONGEST_KEPT = 2048;

/** The value with every plain object and array in it frozen. */
function frozen<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return value;
  for (const inner of Object.values(value)) frozen(inner);
  return Object.freeze(value);
}
