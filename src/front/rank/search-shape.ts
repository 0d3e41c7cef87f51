/**
 * Which searches the front answers itself, and what they are made of. A `_search` (GET or POST, any
 * index expression) is accelerated when it asks for hits (`size` > 0) in an order of sort keys the
 * cluster can `search_after` in a point in time: fields (numbers, dates, keywords, several keys,
 * `missing`, both orders), `_score` named as a key, geo distances and scripts. Anything else passes
 * through unchanged: a search without `sort`, one sorted by `_doc` or `_shard_doc`, one that carries
 * `search_after`, `pit`, `scroll`, `collapse`, `rescore`, `slice`, `suggest` or `knn`, a URI `q=` or
 * `sort=`, `filter_path`, `pretty` or another format, or any key or parameter not listed here.
 *
 * Parts of the body shape what the rank index holds (the query, the sort and what else decides the
 * matches or the order); the rest only shapes the hits of a page and goes with each page request.
 */
import { createHash } from 'node:crypto';
import { clientHeaders } from '../cluster-calls.ts';
import { parseExact } from '../json-text.ts';
import { sortClauses } from './sort-order.ts';

export interface FrontSearch {
  /** The request as the client sent it, to send on unchanged where the cluster's own answer serves. */
  request: { method: string; target: string; body: Buffer | undefined };
  /** The path's index expression, as sent (`''`: every index). */
  indices: string;
  /** Index options, `routing` and `preference`: a point in time takes them when it is opened. */
  pitParams: URLSearchParams;
  /** Parameters each page request carries (source filtering and the like). */
  pageParams: URLSearchParams;
  /** What the rank index is an order of: `query`, `sort` and what else decides matches and order. */
  walkBody: Record<string, unknown>;
  /** What a page's hits are shaped by besides (`_source`, `highlight`, `fields`…). */
  hitsBody: Record<string, unknown>;
  /** The number of sort keys given. */
  sortKeys: number;
  from: number;
  size: number;
  /** The body's `aggs` (or `aggregations`), under the name it came with. */
  aggregations?: { name: string; value: unknown };
  trackTotalHits: boolean | number;
  restTotalHitsAsInt: boolean;
  typedKeys: boolean;
  /** Header lines the front's requests for this search carry (the client's credentials among them). */
  headers: string[];
  /** Who asks: a digest of every header that may say who the client is. A rank index serves one identity only. */
  identity: string;
  /** The rank index this search reads: identity, indices, point-in-time parameters and walk body. */
  key: string;
}

const WALK_KEYS = new Set(['query', 'sort', 'runtime_mappings', 'min_score', 'post_filter', 'indices_boost']);
const HITS_KEYS = new Set(['_source', 'fields', 'docvalue_fields', 'stored_fields', 'highlight', 'version', 'seq_no_primary_term', 'explain', 'timeout', 'track_scores', 'script_fields']);
const OWN_KEYS = new Set(['from', 'size', 'track_total_hits', 'aggs', 'aggregations']);

const PIT_PARAMS = new Set(['ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'ignore_throttled', 'routing', 'preference']);
const PAGE_PARAMS = new Set(['_source', '_source_includes', '_source_excludes', 'stored_fields', 'docvalue_fields', 'version', 'seq_no_primary_term', 'request_cache', 'timeout', 'allow_partial_search_results', 'batched_reduce_size', 'max_concurrent_shard_requests', 'pre_filter_shard_size', 'ccs_minimize_roundtrips']);
const OWN_PARAMS = new Set(['from', 'size', 'track_total_hits', 'rest_total_hits_as_int', 'typed_keys']);

/** Sort keys the front does not walk: the index order, which a point in time pages by itself. */
const NOT_WALKED = new Set(['_doc', '_shard_doc']);

/** Headers that say nothing about who the client is; every other one is part of its identity. */
const NOT_IDENTITY = new Set(['accept', 'user-agent', 'x-opaque-id', 'traceparent', 'tracestate', 'x-elastic-client-meta', 'x-elastic-product-origin', 'content-type', 'content-length', 'accept-encoding', 'host', 'connection', 'keep-alive', 'transfer-encoding', 'expect']);

/** The search a request is, if the front answers it; `undefined` for one that passes through. */
export function frontSearch(method: string, target: string, rawHeaders: readonly string[], body: Buffer): FrontSearch | undefined {
  if (method !== 'GET' && method !== 'POST') return undefined;
  const question = target.indexOf('?');
  const path = question < 0 ? target : target.slice(0, question);
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.at(-1) !== '_search' || segments.length > 2) return undefined;
  let indices: string;
  try {
    indices = segments.length === 2 ? decodeURIComponent(segments[0]) : '';
  } catch {
    return undefined;
  }
  const params = new URLSearchParams(question < 0 ? '' : target.slice(question + 1));
  const pitParams = new URLSearchParams();
  const pageParams = new URLSearchParams();
  for (const [name, value] of params) {
    if (PIT_PARAMS.has(name)) pitParams.append(name, value);
    else if (PAGE_PARAMS.has(name)) pageParams.append(name, value);
    else if (!OWN_PARAMS.has(name)) return undefined;
  }
  let source: unknown;
  try {
    // Integers beyond 2^53 stay exact: the front sends the query on, and a rounded long would match other documents.
    source = body.length === 0 ? {} : parseExact(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return undefined;
  const walkBody: Record<string, unknown> = {};
  const hitsBody: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (WALK_KEYS.has(key)) walkBody[key] = value;
    else if (HITS_KEYS.has(key)) hitsBody[key] = value;
    else if (!OWN_KEYS.has(key)) return undefined;
  }
  const given = source as Record<string, unknown>;
  const sortKeys = sortKeyCount(walkBody.sort);
  if (sortKeys === undefined) return undefined;
  const from = count(params.get('from') ?? given.from ?? 0);
  const size = count(params.get('size') ?? given.size ?? 10);
  if (from === undefined || size === undefined || size === 0) return undefined;
  const restTotalHitsAsInt = flag(params.get('rest_total_hits_as_int'));
  const typedKeys = flag(params.get('typed_keys'));
  if (restTotalHitsAsInt === undefined || typedKeys === undefined) return undefined;
  const tracked = params.get('track_total_hits') ?? given.track_total_hits;
  const trackTotalHits = totalHits(tracked ?? (restTotalHitsAsInt ? true : 10_000));
  // ES refuses `rest_total_hits_as_int` with a count that is not exact: the cluster says so.
  if (trackTotalHits === undefined || (restTotalHitsAsInt && trackTotalHits !== true)) return undefined;
  if (given.aggs !== undefined && given.aggregations !== undefined) return undefined;
  const aggregations = given.aggs !== undefined ? { name: 'aggs', value: given.aggs } : given.aggregations !== undefined ? { name: 'aggregations', value: given.aggregations } : undefined;
  const headers = clientHeaders(rawHeaders);
  const identity = identityOf(rawHeaders);
  const key = JSON.stringify([identity, indices, [...pitParams].sort(), walkBody]);
  const request = { method, target, body: body.length === 0 ? undefined : body };
  return { request, indices, pitParams, pageParams, walkBody, hitsBody, sortKeys, from, size, aggregations, trackTotalHits, restTotalHitsAsInt, typedKeys, headers, identity, key };
}

/** The path of an index expression (each name encoded, commas kept), '' for every index: the inverse of how a search's path is read. */
export function indexPath(indices: string): string {
  return indices === '' ? '' : `/${indices.split(',').map(encodeURIComponent).join(',')}`;
}

/** The number of keys of a sort the front walks, or `undefined`. */
function sortKeyCount(sort: unknown): number | undefined {
  const clauses = sortClauses(sort);
  if (clauses === undefined || clauses.some(({ name }) => NOT_WALKED.has(name))) return undefined;
  return clauses.length;
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function totalHits(value: unknown): boolean | number | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  const n = count(value);
  return n;
}

function flag(value: string | null): boolean | undefined {
  if (value === null || value === 'false') return false;
  if (value === '' || value === 'true') return true;
  return undefined;
}

function identityOf(rawHeaders: readonly string[]): string {
  const hash = createHash('sha256');
  const lines: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!NOT_IDENTITY.has(name)) lines.push(`${name}:${rawHeaders[i + 1]}`);
  }
  for (const line of lines.sort()) hash.update(line).update('\n');
  return hash.digest('base64url');
}
