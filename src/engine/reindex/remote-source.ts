/**
 * Reading a reindex's source from another Elasticsearch-compatible cluster, as Elasticsearch's
 * reindex-from-remote does it (modules/reindex: `remote/RemoteScrollableHitSource`,
 * `RemoteRequestBuilders`, `RemoteResponseParsers`). {@link openRemoteSource} asks `GET /` for the
 * remote's version (which shapes the requests, as in ES), opens a scroll with
 * `POST /{indices}/_search?scroll=…`, and each `next()` after the first asks `POST /_search/scroll`.
 * `close()` (also run when the signal aborts) clears the scroll.
 *
 * `source.remote` is read and checked before (remote-info.ts). The requests go over a
 * {@link RemoteClient} (remote-client.ts), which turns a non-2xx answer into a `status_exception`;
 * a 429 is retried here with ES's backoff first. Paths, parameters and bodies are the ones ES sends,
 * so captures compare equal.
 *
 * @example
 * const info = parseRemoteInfo(body.source.remote);
 * checkRemoteAllowed(info, settings.reindexRemoteWhitelist);
 * const source = await openRemoteSource(info, { indices: ['src'], size: 1000, signal: task.signal });
 * try {
 *   for (let batch = await source.next(); batch.length > 0; batch = await source.next()) write(batch);
 * } finally {
 *   await source.close();
 * }
 */
import { isBooleanValue, parseBoolean } from '../booleans.ts';
import { EsError, illegalArgument } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { timeValueMs } from '../time-value.ts';
import { sourceFromBody } from '../request/search-source.ts';
import type { HitSource, SourceHit } from './hit-source.ts';
import { formEncode, javaJson } from './java-text.ts';
import { JSON_TYPE, RemoteClient, RemoteStatusError, TEXT_TYPE, type Call, type RemoteClientOptions, type Reply } from './remote-client.ts';
import { queryJson, type RemoteInfo } from './remote-info.ts';

export interface RemoteSearch {
  indices: string[];
  /**
   * Sent unvalidated (ES: "sent directly to the remote host without validation or modification"),
   * its keys in the order ES's `HashMap` holds them; absent: `{"match_all":{"boost":1.0}}`.
   */
  query?: unknown;
  /** Batch size (`source.size`). */
  size: number;
  /** The `_source` filter as the user gave it. */
  source?: unknown;
  /** The sort as the user gave it; only field sorts can be sent, in the URL (absent: `_doc`). */
  sort?: unknown;
  /** The reindex request's `scroll` keep-alive (ES: 5m). */
  scroll?: string;
  signal?: AbortSignal;
}

/** How a remote source reads: {@link RemoteClientOptions} for the connection, and the retries. */
export interface RemoteSourceOptions extends RemoteClientOptions {
  /** Delays before retrying a rejected (429) request, one per retry; default ES's (500ms growing, 11 retries, about a minute). */
  retryDelaysMs?: readonly number[];
}

export interface RemoteHitSource extends HitSource {
  /** Rejected remote requests retried so far: the reindex response's `retries.search`. */
  readonly searchRetries: number;
}

/** A shard failure a remote search reported (`_shards.failures[]`, or its top-level `error`). */
export interface SearchFailure {
  index: string | null;
  shard: number | null;
  node: string | null;
  reason: EsError;
}

/**
 * A batch that came back with shard failures or timed out. ES stops the reindex there without writing
 * the batch, and answers a reindex response, not an error body: `timed_out`, and `failures` listing
 * each as `{index, shard, node, status: reason.status, reason: {type, reason, caused_by}}` (null
 * fields left out). Its HTTP status is the highest of theirs, 408 for a time-out: this `status`.
 */
export class RemoteSearchFailures extends EsError {
  constructor(
    readonly failures: SearchFailure[],
    readonly timedOut: boolean,
  ) {
    super(Math.max(timedOut ? 408 : 200, ...failures.map((f) => f.reason.status)), 'search_failures', 'the remote search failed');
  }
}

// ---- what ES asks of the remote ------------------------------------------------------------------

/** A remote's version as ES's `Version` ids order them (`X.Y.Z` → X·10⁶ + Y·10⁴ + Z·100 + 99). */
const V1_0 = 1_000_099;
const V2_0 = 2_000_099;
const V2_1 = 2_010_099;
const V5_0 = 5_000_099;
const V6_3 = 6_030_099;
/** What an empty `version.number` means to ES: its own version. */
const CURRENT = 8_000_099;

interface KeepAlive {
  ms: number;
  /** As ES prints the keep-alive it was given (`TimeValue.getStringRep`). */
  text: string;
}

function keepAlive(given = '5m'): KeepAlive {
  const ms = timeValueMs('scroll', given);
  return { ms, text: ms === -1 ? '-1' : ms === 0 ? '0ms' : given.trim().toLowerCase() };
}

/** Remotes before 5.0 cannot read nanos or micros, so ES rounds up to whole milliseconds for them. */
function keepAliveParam(scroll: KeepAlive, version: number, renewal: boolean): string {
  if (version < V5_0) return `${Math.ceil(scroll.ms)}ms`;
  // A renewal asks for the keep-alive plus any throttling wait, in nanoseconds.
  return renewal ? `${Math.round(scroll.ms * 1e6)}nanos` : scroll.text;
}

function initialSearch(request: RemoteSearch, scroll: KeepAlive, version: number): Call {
  const indices = request.indices.length > 0 ? `${request.indices.map(formEncode).join(',')}/` : '';
  const params: [string, string][] = [
    ['scroll', keepAliveParam(scroll, version, false)],
    ['size', String(request.size)],
    ['version', 'false'],
  ];
  const sorts = fieldSorts(request.sort);
  if (version < V2_1 && sorts.some((sort) => sort.startsWith('_doc:'))) params.push(['search_type', 'scan']);
  else params.push(['sort', sorts.join(',')]);
  // Remotes before 2.0 return routing only when asked, and before 1.0 `_source` too (`stored_fields` was `fields` before 5.0).
  if (version < V2_0) params.push(['fields', ['_parent', '_routing', '_ttl', ...(version < V1_0 ? ['_source'] : [])].join(',')]);
  // allow_partial_search_results exists from 6.3; older remotes silently skip red shards.
  if (version >= V6_3) params.push(['allow_partial_search_results', 'false']);
  const source = fetchSource(request.source);
  const sourceField = source !== undefined ? `,"_source":${source}` : version >= V1_0 ? ',"_source":true' : '';
  return { method: 'POST', path: `/${indices}_search`, params, body: { text: `{"query":${queryJson(request.query)}${sourceField}}`, type: JSON_TYPE } };
}

function scrollCall(scrollId: string | null, scroll: KeepAlive, version: number): Call {
  const params: [string, string][] = [['scroll', keepAliveParam(scroll, version, true)]];
  // Remotes before 2.0 read the bare id from a text body.
  const body = version < V2_0 ? { text: scrollId ?? '', type: TEXT_TYPE } : { text: JSON.stringify({ scroll_id: scrollId }), type: JSON_TYPE };
  return { method: 'POST', path: '/_search/scroll', params, body };
}

function clearScrollCall(scrollId: string, version: number): Call {
  const body = version < V2_0 ? { text: scrollId, type: TEXT_TYPE } : { text: JSON.stringify({ scroll_id: [scrollId] }), type: JSON_TYPE };
  return { method: 'DELETE', path: '/_search/scroll', params: [], body };
}

/** `_source` read as ES reads it (search-source.ts) and written as its `FetchSourceContext` writes itself, or undefined when none was given. */
function fetchSource(given: unknown): string | undefined {
  if (given === undefined || given === null) return undefined;
  const filter = sourceFromBody(given);
  return filter === false ? 'false' : JSON.stringify({ includes: filter.includes, excludes: filter.excludes });
}

/** The sort as `sort=field:order,…`: ES sends field sorts only, and sorts by `_doc` when none is given. */
function fieldSorts(given: unknown): string[] {
  const clauses = given === undefined || given === null ? [] : Array.isArray(given) ? given : [given];
  const sorts: string[] = [];
  for (const clause of clauses) {
    const entries: [string, unknown][] = typeof clause === 'string' ? [[clause, undefined]] : isObject(clause) ? Object.entries(clause) : [];
    for (const [field, spec] of entries) {
      const order = typeof spec === 'string' ? spec : isObject(spec) && typeof spec.order === 'string' ? spec.order : undefined;
      if (field === '_score') throw unsupportedSort({ _score: { order: order?.toLowerCase() ?? 'desc' } });
      if (field === '_geo_distance' || field === '_geoDistance' || field === '_script') throw unsupportedSort({ [field]: spec });
      const direction = (order ?? 'asc').toLowerCase();
      if (direction !== 'asc' && direction !== 'desc') throw illegalArgument(`Unknown SortOrder [${order}]`);
      sorts.push(`${field}:${direction}`);
    }
  }
  return sorts.length > 0 ? sorts : ['_doc:asc'];
}

const unsupportedSort = (sort: Record<string, unknown>) => illegalArgument(`Unsupported sort [${javaJson(sort, true)}]`);

// ---- the scroll ----------------------------------------------------------------------------------

/** ES's `BackoffPolicy.exponentialBackoff(500ms, 11)`: the delays its `RetryListener` waits before retrying a rejection. */
const ES_RETRY_DELAYS_MS = Array.from({ length: 11 }, (_, i) => 500 + 10 * (Math.trunc(Math.exp(0.8 * i)) - 1));

/**
 * Opens a scroll on the remote and reads its first batch, so `total` is known when this resolves.
 * When it rejects, nothing is left open; once it resolves, `close()` must be called, after an error too.
 */
export async function openRemoteSource(info: RemoteInfo, request: RemoteSearch, options: RemoteSourceOptions = {}): Promise<RemoteHitSource> {
  const scroll = keepAlive(request.scroll);
  queryJson(request.query);
  const client = new RemoteClient(info, options, request.signal);
  const source = new RemoteScroll(client, scroll, options.retryDelaysMs ?? ES_RETRY_DELAYS_MS);
  try {
    await source.start(request);
  } catch (e) {
    client.destroy();
    throw e;
  }
  return source;
}

class RemoteScroll implements RemoteHitSource {
  total = 0;
  searchRetries = 0;
  private version = CURRENT;
  private scrollId: string | null = null;
  private first: SearchResponse | undefined;
  private ended = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: RemoteClient,
    private readonly keepAlive: KeepAlive,
    private readonly retryDelaysMs: readonly number[],
  ) {
    client.onAbort(() => void this.close());
  }

  /** `GET /`, the first search, and the scroll ES asks right away when that brings a scroll id but no hits (old `scan` searches); a rejection anywhere retries all three. */
  async start(request: RemoteSearch): Promise<void> {
    this.first = await this.retrying(async () => {
      this.version = remoteVersion(await this.client.send({ method: 'GET', path: '/', params: [] }));
      const response = searchResponse(await this.client.send(initialSearch(request, this.keepAlive, this.version)));
      if (!response.scrollId || response.hits.length > 0) return response;
      return searchResponse(await this.client.send(scrollCall(response.scrollId, this.keepAlive, this.version)));
    });
    this.received(this.first);
  }

  async next(extraKeepAliveMs = 0): Promise<SourceHit[]> {
    this.client.throwIfAborted();
    if (this.closing) throw new EsError(500, 'illegal_state_exception', 'the remote source is closed');
    if (this.ended) return [];
    const keepAlive = extraKeepAliveMs > 0 ? { ...this.keepAlive, ms: this.keepAlive.ms + extraKeepAliveMs } : this.keepAlive;
    const response = this.first ?? this.received(await this.retrying(async () => searchResponse(await this.client.send(scrollCall(this.scrollId, keepAlive, this.version)))));
    this.first = undefined;
    if (response.failures.length > 0 || response.timedOut) throw new RemoteSearchFailures(response.failures, response.timedOut);
    if (response.hits.length === 0) this.ended = true;
    for (const hit of response.hits) {
      if (hit.source === undefined) throw illegalArgument(`[${hit.index}][${hit.id}] didn't store _source`);
    }
    return response.hits as SourceHit[];
  }

  /** Every response names the scroll to ask next and to clear at the end, as soon as it arrives. */
  private received(response: SearchResponse): SearchResponse {
    this.scrollId = response.scrollId;
    this.total = response.total;
    return response;
  }

  /** Clears the scroll (a failure to do so is ignored, as ES only logs it) and lets the connection go. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.scrollId) await this.client.send(clearScrollCall(this.scrollId, this.version), { afterAbort: true }).catch(() => undefined);
      this.client.destroy();
    })();
    return this.closing;
  }

  /** ES's `RetryListener`: a 429 is retried after each delay in turn, then given up as the 429 it was. */
  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt();
      } catch (e) {
        if (!(e instanceof RemoteStatusError && e.status === 429) || retry >= this.retryDelaysMs.length) throw e;
        await this.client.wait(this.retryDelaysMs[retry]);
        this.searchRetries++;
      }
    }
  }
}

// ---- responses -----------------------------------------------------------------------------------


interface ParsedHit { index: string; id: string; routing?: string; source?: Record<string, unknown> }

interface SearchResponse {
  timedOut: boolean;
  scrollId: string | null;
  total: number;
  hits: ParsedHit[];
  failures: SearchFailure[];
}

/** A response ES's parsers cannot read (`XContentParseException`). */
class ShapeError extends Error {}

/** The media types ES's `XContentType` knows; of them only JSON's are read here (a remote answers JSON unless asked otherwise). */
const JSON_MEDIA_TYPES = new Set(['json', 'x-ndjson', '*', 'vnd.elasticsearch+json', 'vnd.elasticsearch+x-ndjson'].map((t) => `application/${t}`));
const OTHER_MEDIA_TYPES = new Set(['smile', 'cbor', 'yaml', 'vnd.elasticsearch+smile', 'vnd.elasticsearch+cbor', 'vnd.elasticsearch+yaml'].map((t) => `application/${t}`));

/** The body as JSON, with ES's errors for a missing content type and for what does not parse. */
function replyJson<T>(reply: Reply, read: (body: unknown) => T): T {
  const mediaType = reply.contentType?.split(';')[0].trim().toLowerCase() ?? '';
  if (!JSON_MEDIA_TYPES.has(mediaType) && !OTHER_MEDIA_TYPES.has(mediaType)) {
    throw new EsError(500, 'exception', `Response didn't include Content-Type: ${reply.body === undefined ? 'No error body.' : `body=${reply.body}`}`);
  }
  try {
    if (!JSON_MEDIA_TYPES.has(mediaType)) throw new ShapeError(`cannot read [${mediaType}]`);
    return read(JSON.parse(reply.body ?? ''));
  } catch (e) {
    if (!(e instanceof ShapeError || e instanceof SyntaxError)) throw e;
    const cause = new EsError(500, 'x_content_parse_exception', e.message);
    throw new EsError(500, 'exception', 'Error parsing the response, remote is likely not an Elasticsearch instance', {}, cause);
  }
}

/** `GET /`: only `version.number` counts, stripped of `-SNAPSHOT` and a pre-release tag. */
function remoteVersion(reply: Reply): number {
  return replyJson(reply, (body) => {
    const root = object(body, '/');
    if (root.version === undefined) throw illegalArgument('Required [version]');
    const number = object(root.version, 'version').number;
    if (typeof number !== 'string') throw new ShapeError(number === undefined ? '[version] Required [number]' : '[version] failed to parse field [number]');
    const plain = number.replace('-SNAPSHOT', '').replace(/-(alpha\d+|beta\d+|rc\d+)/, '');
    if (plain === '') return CURRENT;
    const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(plain);
    if (!parts) throw new ShapeError(`[/] failed to parse field [version]: unable to parse version ${plain}`);
    return Number(parts[1]) * 1_000_000 + Number(parts[2]) * 10_000 + Number(parts[3]) * 100 + 99;
  });
}

/** A search or scroll response, read as `RemoteResponseParsers.RESPONSE_PARSER` reads it. */
function searchResponse(reply: Reply): SearchResponse {
  return replyJson(reply, (body): SearchResponse => {
    const root = object(body, 'search_response');
    if (root.error !== undefined) {
      return { timedOut: false, scrollId: null, total: 0, hits: [], failures: [{ index: null, shard: null, node: null, reason: remoteThrowable(root.error) }] };
    }
    if (!isBooleanValue(root.timed_out)) throw new ShapeError('Failed to build [search_response] after last required field arrived');
    const timedOut = parseBoolean(String(root.timed_out));
    const scrollId = optional(root._scroll_id, 'string', '_scroll_id') ?? null;
    const hits = root.hits === undefined ? undefined : object(root.hits, 'hits');
    const shards = root._shards === undefined ? undefined : object(root._shards, '_shards');
    const failures = shards?.failures === undefined ? [] : list(shards.failures, 'failures').map(searchFailure);
    return { timedOut, scrollId, total: hits ? totalHits(hits.total) : 0, hits: hits ? list(hits.hits, 'hits').map(hit) : [], failures };
  });
}

function totalHits(total: unknown): number {
  if (typeof total === 'number') return total;
  const value = object(total, 'total').value;
  if (typeof value !== 'number') throw new ShapeError('[hits] failed to parse field [total]');
  return value;
}

function hit(value: unknown): ParsedHit {
  const raw = object(value, 'hit');
  const index = optional(raw._index, 'string', '_index');
  const id = optional(raw._id, 'string', '_id');
  if (index === undefined || id === undefined) throw new ShapeError(`[hit] Required [${index === undefined ? '_index' : '_id'}]`);
  if (raw._version !== undefined && !(typeof raw._version === 'number' || /^-?\d+$/.test(String(raw._version)))) throw new ShapeError('[hit] failed to parse field [_version]');
  const source = raw._source === undefined ? undefined : object(raw._source, '_source');
  let routing = optional(raw._routing, 'string', '_routing');
  // Remotes before 2.0 return routing among the stored fields asked for; nothing else may be there.
  if (raw.fields !== undefined) {
    const fields = object(raw.fields, 'fields');
    for (const key of Object.keys(fields)) if (!['_routing', '_ttl', '_parent'].includes(key)) throw new ShapeError(`[fields] unknown field [${key}]`);
    routing = optional(fields._routing, 'string', '_routing') ?? routing;
  }
  return { index, id, ...(routing !== undefined && { routing }), ...(source !== undefined && { source }) };
}

function searchFailure(value: unknown): SearchFailure {
  const raw = object(value, 'failure');
  const index = raw.index === null ? null : (optional(raw.index, 'string', 'index') ?? null);
  const shard = optional(raw.shard, 'number', 'shard') ?? null;
  const node = optional(raw.node, 'string', 'node') ?? null;
  if (raw.reason === undefined) throw new ShapeError('[failure] Required [reason]');
  const reason = typeof raw.reason === 'string' ? new EsError(500, 'runtime_exception', `Unknown remote exception with reason=[${raw.reason}]`) : remoteThrowable(raw.reason);
  return { index, shard, node, reason };
}

/**
 * A remote error as `RemoteResponseParsers.ThrowableBuilder` rebuilds it: rejections and parsing
 * errors keep their type (and status), anything else becomes a `runtime_exception` "type: reason".
 */
function remoteThrowable(value: unknown): EsError {
  const raw = object(value, 'reason');
  if (typeof raw.type !== 'string' || typeof raw.reason !== 'string') throw new ShapeError(`[reason] [${typeof raw.type !== 'string' ? 'type' : 'reason'}] is required`);
  const cause = raw.caused_by === undefined ? undefined : remoteThrowable(raw.caused_by);
  if (raw.type === 'es_rejected_execution_exception') return new EsError(429, raw.type, raw.reason, {}, cause);
  if (raw.type === 'parsing_exception') {
    const location = typeof raw.line === 'number' && typeof raw.col === 'number' ? { line: raw.line, col: raw.col } : {};
    return new EsError(400, raw.type, raw.reason, location, cause);
  }
  return new EsError(500, 'runtime_exception', `${raw.type}: ${raw.reason}`, {}, cause);
}

function object(value: unknown, name: string): Record<string, unknown> {
  if (!isObject(value)) throw new ShapeError(`[${name}] expected an object`);
  return value;
}

function list(value: unknown, name: string): unknown[] {
  if (!Array.isArray(value)) throw new ShapeError(`[${name}] expected an array`);
  return value;
}

/** A field ES declares with a type: absent is fine, anything else (null too) must have that type. */
function optional<T extends 'string' | 'number'>(value: unknown, type: T, name: string): (T extends 'string' ? string : number) | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== type) throw new ShapeError(`failed to parse field [${name}]`);
  return value as T extends 'string' ? string : number;
}
