/**
 * The URI parameters that say which indices and shards a request reads, as ES reads them:
 * `ignore_unavailable`, `allow_no_indices` and `expand_wildcards` (`IndicesOptions.fromRequest`), and
 * `preference`, which on one node with one copy of each shard matters only as `_shards:…`.
 */
import { hostname } from 'node:os';
import type { SearchScope } from '../engine.ts';
import { nodeBoolean } from '../booleans.ts';
import { badRequest, illegalArgument } from '../errors.ts';
import { STRICT_EXPAND_OPEN, type IndicesOptions } from '../index-names.ts';
import { NODE_ID } from '../node.ts';
import { commaList, notSupported } from './request-values.ts';

type Params = Record<string, string | undefined>;

export const INDICES_OPTIONS_PARAMS = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

/** Which indices and shards a search, count or point in time reads besides what its path names. */
export function searchScope(query: Params): SearchScope {
  // Most searches name none of these: the defaults, shared.
  if (query.preference === undefined && namesNone(query, INDICES_OPTIONS_PARAMS)) return DEFAULT_SCOPE;
  const shards = preferenceShards(query.preference);
  return { indices: indicesOptions(query), ...(shards && { shards }) };
}

function namesNone(query: Params, names: readonly string[]): boolean {
  for (const name of names) if (query[name] !== undefined) return false;
  return true;
}

const DEFAULT_SCOPE: SearchScope = Object.freeze({ indices: STRICT_EXPAND_OPEN });

/** The options a request asks for, over the API's defaults. */
export function indicesOptions(query: Params, defaults: Readonly<IndicesOptions> = STRICT_EXPAND_OPEN): IndicesOptions {
  const options = { ...defaults };
  const wildcards = query.expand_wildcards;
  if (wildcards !== undefined) {
    // Each state in turn, from none: `all` and `none` reset what came before them.
    options.expandOpen = options.expandHidden = false;
    for (const state of commaList(wildcards)) {
      if (state === 'open') options.expandOpen = true;
      else if (state === 'hidden') options.expandHidden = true;
      else if (state === 'all') options.expandOpen = options.expandHidden = true;
      else if (state === 'none') options.expandOpen = options.expandHidden = false;
      else if (state !== 'closed') throw illegalArgument(`No valid expand wildcard value [${state}]`);
    }
  }
  // ES reads these as `XContentMapValues.nodeBooleanValue` with a default: blank keeps the default.
  options.ignoreUnavailable = nodeBoolean(query.ignore_unavailable, 'ignore_unavailable', options.ignoreUnavailable);
  options.allowNoIndices = nodeBoolean(query.allow_no_indices, 'allow_no_indices', options.allowNoIndices);
  return options;
}

/**
 * The shard numbers a `preference` restricts each index to (`_shards:0,2`, optionally followed by
 * `|` and another preference), or undefined. The other preferences pick among copies of a shard,
 * and one node holds one copy of each: `_local`, `_only_local`, `_prefer_nodes:…`, custom strings,
 * and `_only_nodes:…` naming this node, change nothing here.
 */
export function preferenceShards(value: string | undefined): number[] | undefined {
  if (value === undefined || value === '' || !value.startsWith('_')) return undefined;
  if (value.startsWith('_shards:')) {
    const bar = value.indexOf('|');
    const shards = commaList(value.slice('_shards:'.length, bar < 0 ? undefined : bar)).map((shard) => {
      if (!/^[+-]?\d+$/.test(shard)) throw badRequest('number_format_exception', `For input string: "${shard}"`);
      return Number(shard);
    });
    if (bar >= 0) preferenceShards(value.slice(bar + 1));
    return shards;
  }
  const colon = value.indexOf(':');
  const type = colon < 0 ? value : value.slice(0, colon);
  switch (type) {
    case '_local':
    case '_only_local':
    case '_prefer_nodes':
      return undefined;
    case '_only_nodes': {
      const nodes = commaList(value.slice(colon + 1));
      if (nodes.some((node) => ['_local', '_all', '*', NODE_ID, hostname()].includes(node))) return undefined;
      throw notSupported(`[preference] [${value}] naming another node`);
    }
    default:
      throw illegalArgument(`no Preference for [${type}]`);
  }
}
