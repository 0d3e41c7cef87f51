/**
 * The URI parameters of `_cat` requests, checked as ES's `BaseRestHandler` checks them: a name the
 * endpoint neither reads nor counts among its response parameters is refused.
 *
 * Every cat endpoint takes `AbstractCatAction`'s response parameters and `help`. `help=true`
 * answers the column list before the endpoint reads anything else, so then its own parameters,
 * the path's `{index}` among them, count as unknown (ES: `request [/_cat/indices/logs] contains
 * unrecognized parameter: [index]`).
 */
import type { Context } from 'hono';
import { booleanParam } from '../../engine/booleans.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';

/**
 * `bytes`, `size` and `time` choose units for sizes, counts and durations, and change nothing where
 * no cell is one; `ts` and `pri` are read only where a timestamp or `pri.` column is at stake
 * (cat/shown-columns.ts), `v` only for text.
 */
export const CAT_PARAMS = ['format', 'h', 'v', 'ts', 'pri', 'bytes', 'size', 'time', 's', 'help'];

export interface CatParamNames {
  /** What the endpoint reads to do its work. */
  own?: readonly string[];
  /** Response parameters of the endpoint's own (`_cat/indices`: `health`, `local`), known with `help` too. */
  response?: readonly string[];
}

/** `help`, read first: with it, nothing else of the endpoint's is read. */
export function helpAsked(c: Context): boolean {
  const help = queryOf(c).help;
  return booleanParam(help, false);
}

/** Refuses unknown names; call once the endpoint has read its own parameters, as ES checks after its handler has. */
export function checkCatParamNames(c: Context, help: boolean, { own = [], response = [] }: CatParamNames): void {
  const query = queryOf(c);
  const index = c.req.param('index');
  const names = help && index !== undefined ? { ...query, index } : query;
  checkParamNames(names, pathOf(c), new Set([...RESPONSE_PARAMS, ...CAT_PARAMS, ...response, ...(help ? [] : own)]));
}
