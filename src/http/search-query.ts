/**
 * The `query` of a search body. deeppage runs `match_all` only, so every other query is refused
 * with ES's 400 for a query it does not know, never ignored (that would answer with wrong hits).
 *
 * @example
 * parseQuery({ match_all: { boost: 1.2 } }) // { kind: 'match_all' }
 * parseQuery({ term: { user: 'kimchy' } })  // throws 400 parsing_exception "unknown query [term]"
 */
import { badRequest, parsingError } from '../engine/errors.ts';
import { isObject } from '../engine/patterns.ts';
import type { Query } from '../engine/search/request.ts';

/** Checks in ES's order: the outer object, the clause's object, the query's name, then stray keys. */
export function parseQuery(value: unknown): Query {
  if (!isObject(value)) throw parsingError('[_na] query malformed, must start with start_object');
  const [name, ...others] = Object.keys(value);
  if (name === undefined) throw parsingError('query malformed, empty clause found');
  const clause = value[name];
  if (!isObject(clause)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
  if (name !== 'match_all') throw parsingError(`unknown query [${name}]`);
  if (others.length > 0) throw parsingError(`[${name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  checkMatchAll(clause);
  return { kind: 'match_all' };
}

/**
 * `boost` scales every hit's score alike, so it changes no order (scores stay 1.0 here); `_name`
 * only labels matches. Both are accepted and dropped.
 */
function checkMatchAll(options: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(options)) {
    if (key === 'boost') {
      const numeric = typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
      if (!numeric) throw badRequest('x_content_parse_exception', `[match_all] failed to parse field [boost]`);
    } else if (key !== '_name') {
      throw parsingError(`[match_all] query does not support [${key}]`);
    }
  }
}
