/**
 * Reading a reindex's source from another Elasticsearch-compatible cluster, as Elasticsearch's
 * reindex-from-remote does it (modules/reindex: `ReindexRequest.buildRemoteInfo`, `ReindexValidator`,
 * `remote/RemoteScrollableHitSource`, `RemoteRequestBuilders`, `RemoteResponseParsers`):
 *
 * 1. `source.remote` is read ({@link parseRemoteInfo}) and its `host:port` checked against
 *    `reindex.remote.whitelist` ({@link checkRemoteAllowed}).
 * 2. {@link openRemoteSource} asks `GET /` for the remote's version (which shapes the requests, as
 *    in ES), opens a scroll with `POST /{indices}/_search?scroll=…`, and each `next()` after the
 *    first asks `POST /_search/scroll`. `close()` (also run when the signal aborts) clears the scroll.
 *
 * A remote answer that is not 2xx becomes ES's `status_exception` with the remote's status and body;
 * a 429 is retried with ES's backoff first. Transport failures become the errors ES's REST client
 * reports (`connect_exception`, `socket_timeout_exception`, …), all 500s. Paths, parameters (in the
 * order ES's REST client writes them) and bodies are the ones ES sends, so captures compare equal.
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
import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv4, isIPv6, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EsError, illegalArgument } from '../errors.ts';
import { globPattern, isObject } from '../patterns.ts';
import { timeValueMs } from '../time-value.ts';

/** One document read from a source index. */
export interface SourceHit {
  index: string;
  id: string;
  routing?: string;
  source: Record<string, unknown>;
  /** The source's JSON text as stored, when the source has it: the destination stores it as it is. */
  text?: string;
}
/** Batches of a source, in order; an empty batch means the end. */
/**
 * Batches of a source, in order; an empty batch means the end. `next(extraKeepAliveMs)` keeps the
 * source alive that much longer than its keep-alive (a reindex about to wait before the next read).
 */
export interface HitSource { readonly total: number; next(extraKeepAliveMs?: number): Promise<SourceHit[]>; close(): Promise<void> }

/** `source.remote` as ES's `RemoteInfo` holds it. */
export interface RemoteInfo {
  scheme: string;
  /** As Java's `URI.getHost()` gives it: IPv6 addresses keep their brackets. */
  host: string;
  port: number;
  /** The URL's path when it has one (`/proxy`); ES sends no prefix for `/`. */
  pathPrefix?: string;
  username?: string;
  password?: string;
  headers: Record<string, string>;
  /** Longest silence while waiting for response bytes; 0 or -1: none. */
  socketTimeoutMs: number;
  connectTimeoutMs: number;
}

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

export interface RemoteSourceOptions {
  /** Delays before retrying a rejected (429) request, one per retry; default ES's (500ms growing, 11 retries, about a minute). */
  retryDelaysMs?: readonly number[];
  /** Largest response accepted, in bytes (ES: 100mb). */
  bufferLimitBytes?: number;
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

// ---- source.remote -------------------------------------------------------------------------------

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * `source.remote` read as `ReindexRequest.buildRemoteInfo` reads it, with its errors. ES throws these
 * while parsing the body's `source`, so it answers them wrapped: 400 `x_content_parse_exception`
 * "[reindex] failed to parse field [source]" with this error as `caused_by`.
 */
export function parseRemoteInfo(value: unknown): RemoteInfo {
  if (!isObject(value)) {
    const type = javaClass(value);
    throw badRemote('class_cast_exception', `class ${type} cannot be cast to class java.util.Map (${type} and java.util.Map are in module java.base of loader 'bootstrap')`);
  }
  const given = new Map(Object.entries(value));
  const take = (name: string) => {
    const field = given.get(name);
    given.delete(name);
    return field ?? undefined;
  };
  const username = stringField('username', take('username'));
  const password = stringField('password', take('password'));
  const host = stringField('host', take('host'));
  if (host === undefined) throw badRemote('null_pointer_exception', '[host] must be specified to reindex from a remote cluster');
  const url = parseHostUrl(host);
  if (!url) throw illegalArgument(`[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [${host}]`);
  const headers = headersField(take('headers'));
  const socketTimeoutMs = timeField('socket_timeout', take('socket_timeout'));
  const connectTimeoutMs = timeField('connect_timeout', take('connect_timeout'));
  if (given.size > 0) {
    const unsupported = hashMapOrder([...given.keys()], hashTableSize(Object.keys(value).length));
    throw illegalArgument(`Unsupported fields in [remote]: [${unsupported.join(',')}]`);
  }
  return { ...url, username, password, headers, socketTimeoutMs, connectTimeoutMs };
}

/** `reindex.remote.whitelist`: `host:port` patterns with `*`; the scheme plays no part; an empty list allows nothing. */
export function checkRemoteAllowed(info: RemoteInfo, whitelist: readonly string[]): void {
  const check = `${info.host}:${info.port}`;
  if (whitelist.some((pattern) => globPattern(pattern).test(check))) return;
  throw illegalArgument(`[${check}] not whitelisted in reindex.remote.whitelist`);
}

/**
 * The remote as a task description names it (`RemoteInfo.toString`), the query pretty-printed as ES
 * keeps it; the description reads `reindex from [<this>][src1, src2] to [dest]`.
 */
export function describeRemote(info: RemoteInfo, query?: unknown): string {
  const scheme = info.scheme === 'http' ? '' : `scheme=${info.scheme} `;
  const prefix = info.pathPrefix !== undefined ? ` pathPrefix=${info.pathPrefix}` : '';
  const user = info.username !== undefined ? ` username=${info.username}` : '';
  const password = info.password !== undefined ? ' password=<<>>' : '';
  return `${scheme}host=${info.host} port=${info.port}${prefix} query=${queryJson(query, true)}${user}${password}`;
}

/** The query as the remote receives it; a non-object is refused as ES refuses it when reading the body. */
export function queryJson(query: unknown, pretty = false): string {
  if (query === undefined || query === null) return pretty ? '{\n  "match_all" : {\n    "boost" : 1.0\n  }\n}' : '{"match_all":{"boost":1.0}}';
  if (!isObject(query)) throw illegalArgument(`Expected [query] to be an object but was [${javaString(query)}]`);
  return javaJson(query, pretty);
}

function stringField(name: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw illegalArgument(`Expected [${name}] to be a string but was [${javaString(value)}]`);
}

function headersField(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw illegalArgument(`Expected [headers] to be an object containing strings but was [${javaString(value)}]`);
  for (const key of hashMapOrder(Object.keys(value))) {
    if (typeof value[key] !== 'string') throw illegalArgument(`Expected [headers] to be an object containing strings but has [${key}=${javaString(value[key])}]`);
  }
  return value as Record<string, string>;
}

function timeField(name: string, value: unknown): number {
  const text = stringField(name, value);
  return text === undefined ? DEFAULT_TIMEOUT_MS : timeValueMs(name, text);
}

const badRemote = (type: string, reason: string) => new EsError(400, type, reason);

/**
 * `scheme://host:port(/path)?` as Java's `java.net.URI` reads it for ES: a server-based authority
 * with an explicit port, else undefined. A host Java refuses (`my_host`, `1.2.3`) leaves no port.
 */
function parseHostUrl(text: string): Pick<RemoteInfo, 'scheme' | 'host' | 'port' | 'pathPrefix'> | undefined {
  if (/[^\x21-\x7e\u0080-\uffff]|["<>\\^`{|}]/.test(text.replace(/%[0-9A-Fa-f]{2}/g, ''))) return undefined;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]/?#]*\]|[^:/?#]*)(?::(\d*))?([^?#]*)(?:\?[^#]*)?(?:#.*)?$/.exec(text);
  if (!match) return undefined;
  const [, scheme, host, port, path] = match;
  if (!port || Number(port) > 2 ** 31 - 1 || !validHost(host)) return undefined;
  let pathPrefix: string | undefined;
  if (path !== '') {
    try {
      pathPrefix = decodeURIComponent(path);
    } catch {
      pathPrefix = path;
    }
  }
  return { scheme, host, port: Number(port), pathPrefix };
}

/** Java's URI hosts: `[IPv6]`, IPv4, or labels of letters, digits and inner hyphens whose last starts with a letter. */
function validHost(host: string): boolean {
  if (host.startsWith('[')) return isIPv6(host.slice(1, -1));
  if (isIPv4(host)) return true;
  const labels = host.replace(/\.$/, '').split('.');
  if (!labels.every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label))) return false;
  return labels.length === 1 || /^[A-Za-z]/.test(labels[labels.length - 1]);
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

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  params: [string, string][];
  body?: { text: string; type: string };
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const TEXT_TYPE = 'text/plain; charset=ISO-8859-1';

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

/** `_source` as ES's `FetchSourceContext` writes it, or undefined when none was given. */
function fetchSource(given: unknown): string | undefined {
  if (given === undefined || given === null) return undefined;
  if (given === false) return 'false';
  const includes: string[] = [];
  const excludes: string[] = [];
  const patterns = (value: unknown) => (Array.isArray(value) ? value : [value]).map(String);
  if (typeof given === 'string' || Array.isArray(given)) includes.push(...patterns(given));
  else if (isObject(given)) {
    for (const [key, value] of Object.entries(given)) {
      if (key === 'includes' || key === 'include') includes.push(...patterns(value));
      else if (key === 'excludes' || key === 'exclude') excludes.push(...patterns(value));
    }
  }
  return JSON.stringify({ includes, excludes });
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
/** ES's `HeapBufferedAsyncResponseConsumer` limit for a remote's responses. */
const BUFFER_LIMIT_BYTES = 100 * 1024 * 1024;

/**
 * Opens a scroll on the remote and reads its first batch, so `total` is known when this resolves.
 * When it rejects, nothing is left open; once it resolves, `close()` must be called, after an error too.
 */
export async function openRemoteSource(info: RemoteInfo, request: RemoteSearch, options: RemoteSourceOptions = {}): Promise<RemoteHitSource> {
  const scroll = keepAlive(request.scroll);
  queryJson(request.query);
  const client = new RemoteClient(info, clientPrefix(info), options, request.signal);
  const source = new RemoteScroll(client, scroll, options.retryDelaysMs ?? ES_RETRY_DELAYS_MS);
  try {
    await source.start(request);
  } catch (e) {
    client.destroy();
    throw e;
  }
  return source;
}

/** What ES's `buildRestClient` refuses: timeouts past an int of milliseconds, a prefix ending in `//`. */
function clientPrefix(info: RemoteInfo): string {
  if (Math.max(info.connectTimeoutMs, info.socketTimeoutMs) > 2 ** 31 - 1) throw new EsError(500, 'arithmetic_exception', 'integer overflow');
  const prefix = info.pathPrefix;
  if (prefix === undefined || prefix === '/') return '';
  const clean = prefix.startsWith('/') ? prefix : `/${prefix}`;
  if (!clean.endsWith('/')) return clean;
  if (clean.endsWith('//')) throw illegalArgument(`pathPrefix is malformed. too many trailing slashes: [${prefix}]`);
  return clean.slice(0, -1);
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

interface Reply {
  status: number;
  contentType: string | undefined;
  body: string | undefined;
}

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
    const timedOut = root.timed_out === true || root.timed_out === 'true';
    if (!timedOut && root.timed_out !== false && root.timed_out !== 'false') throw new ShapeError('Failed to build [search_response] after last required field arrived');
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

// ---- the connection ------------------------------------------------------------------------------

/** A remote's non-2xx answer, as ES's `wrapExceptionToPreserveStatus` wraps it. */
class RemoteStatusError extends EsError {}

/** ES's `RestStatus`: a status it has no constant for is answered as a 500. */
const KNOWN_STATUSES = new Set([
  ...[100, 101, 200, 201, 202, 203, 204, 205, 206, 207, 300, 301, 302, 303, 304, 305, 307],
  ...Array.from({ length: 18 }, (_, i) => 400 + i),
  ...[422, 423, 424, 429, 500, 501, 502, 503, 504, 505, 507],
]);

interface Exchange extends Reply {
  /** `HTTP/1.1 404 Not Found`. */
  statusLine: string;
}

/**
 * One remote's HTTP connection, as ES's low-level REST client makes it: keep-alive, the user's
 * headers and preemptive basic auth on every request, a connect timeout, and a socket timeout on
 * every wait for bytes. The signal destroys requests in flight.
 */
class RemoteClient {
  private readonly transport: typeof http | typeof https | undefined;
  private readonly agent: http.Agent;
  /** Requests in flight, each with the way to fail it. */
  private readonly inFlight = new Map<http.ClientRequest, (error: EsError) => void>();
  private readonly bufferLimit: number;
  /** Apache names its connections `http-outgoing-N`, and its socket timeouts name them. */
  private readonly connectionIds = new WeakMap<Socket, number>();
  private connections = 0;

  constructor(
    private readonly info: RemoteInfo,
    private readonly prefix: string,
    options: RemoteSourceOptions,
    private readonly signal: AbortSignal | undefined,
  ) {
    const scheme = info.scheme.toLowerCase();
    this.transport = scheme === 'http' ? http : scheme === 'https' ? https : undefined;
    this.agent = new (scheme === 'https' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 1 });
    this.bufferLimit = options.bufferLimitBytes ?? BUFFER_LIMIT_BYTES;
    this.onAbort(() => this.inFlight.forEach((fail) => fail(this.abortError())));
  }

  onAbort(listener: () => void): void {
    this.signal?.addEventListener('abort', listener, { once: true });
  }

  throwIfAborted(): void {
    if (this.signal?.aborted) throw this.abortError();
  }

  async wait(ms: number): Promise<void> {
    this.throwIfAborted();
    await sleep(ms, undefined, { signal: this.signal }).catch(() => this.throwIfAborted());
  }

  destroy(): void {
    this.agent.destroy();
  }

  /** A 2xx reply, or the error ES makes of any other outcome; `afterAbort` lets the scroll be cleared once the signal has aborted. */
  async send(call: Call, { afterAbort = false } = {}): Promise<Reply> {
    if (!afterAbort) this.throwIfAborted();
    if (!this.transport) throw new EsError(500, 'unsupported_scheme_exception', `${this.info.scheme.toLowerCase()} protocol is not supported`);
    const query = call.params.length > 0 ? `?${queryString(call.params)}` : '';
    const uri = `${this.prefix}${call.path}${query}`;
    const reply = await this.exchange(this.transport, call, uri, afterAbort);
    if (reply.status >= 300) throw this.statusError(call, uri, reply);
    return reply;
  }

  private exchange(transport: typeof http | typeof https, call: Call, uri: string, afterAbort: boolean): Promise<Exchange> {
    const body = call.body && Buffer.from(call.body.text, call.body.type === TEXT_TYPE ? 'latin1' : 'utf8');
    return new Promise((resolve, reject) => {
      let request: http.ClientRequest;
      try {
        request = transport.request({ host: bareHost(this.info.host), port: this.info.port, method: call.method, path: uri, headers: this.headers(call, body), agent: this.agent });
      } catch (e) {
        reject((e as NodeJS.ErrnoException).code === 'ERR_SOCKET_BAD_PORT' ? illegalArgument(`port out of range:${this.info.port}`) : transportError(e, this.info));
        return;
      }
      let settled = false;
      const settle = () => {
        const first = !settled;
        settled = true;
        this.inFlight.delete(request);
        return first;
      };
      // Destroyed without an error: a socket already handed back to the agent has no one to hear it.
      const fail = (error: EsError) => {
        if (!settle()) return;
        request.destroy();
        reject(error);
      };
      if (!afterAbort) this.inFlight.set(request, fail);
      request.on('socket', (socket: Socket) => this.watchConnect(request, socket, fail));
      if (this.info.socketTimeoutMs > 0) request.setTimeout(this.info.socketTimeoutMs, () => fail(this.socketTimeout(request.socket)));
      request.on('error', (e) => fail(e instanceof EsError ? e : transportError(e, this.info)));
      request.on('response', (response) => {
        response.on('error', () => undefined);
        const length = Number(response.headers['content-length'] ?? NaN);
        if (length > this.bufferLimit) return fail(tooLarge(length, this.bufferLimit));
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > this.bufferLimit) fail(tooLarge(received, this.bufferLimit));
          else chunks.push(chunk);
        });
        response.on('close', () => response.complete || fail(closedEarly(length, received)));
        response.on('end', () => {
          if (!settle()) return;
          const status = response.statusCode ?? 0;
          resolve({
            status,
            statusLine: `HTTP/${response.httpVersion} ${status} ${response.statusMessage ?? ''}`,
            contentType: response.headers['content-type'],
            // Apache's client gives 204 and 304 answers no entity at all.
            body: status === 204 || status === 304 ? undefined : Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      request.end(body);
    });
  }

  /** The connect timeout runs from a new socket's creation until it connects; a reused socket has none. */
  private watchConnect(request: http.ClientRequest, socket: Socket, fail: (error: EsError) => void): void {
    if (!socket.connecting) return;
    this.connectionIds.set(socket, this.connections++);
    let address = '';
    socket.once('lookup', (_error, ip: string) => (address = ip));
    if (this.info.connectTimeoutMs <= 0) return;
    const timer = setTimeout(() => {
      // Java prints the resolved address as `name/ip:port`, with no name for an address literal.
      const host = bareHost(this.info.host);
      const name = isIP(host) ? '' : host;
      fail(new EsError(500, 'connect_exception', `Timeout connecting to [${name}/${address || host}:${this.info.port}]`));
    }, this.info.connectTimeoutMs);
    socket.once('connect', () => clearTimeout(timer));
    request.once('close', () => clearTimeout(timer));
  }

  private socketTimeout(socket: Socket | null): EsError {
    const id = (socket && this.connectionIds.get(socket)) ?? this.connections - 1;
    const ms = this.info.socketTimeoutMs.toLocaleString('en-US');
    return new EsError(500, 'socket_timeout_exception', `${ms} milliseconds timeout on connection http-outgoing-${id} [ACTIVE]`);
  }

  /** The user's headers win over the client's own (Host, Content-Type, Authorization), as with Apache's client. */
  private headers(call: Call, body: Buffer | undefined): Record<string, string> {
    const headers: Record<string, string> = { host: `${this.info.host}:${this.info.port}` };
    // Node sends no body with a DELETE unless told its length.
    if (call.body && body) Object.assign(headers, { 'content-type': call.body.type, 'content-length': String(body.length) });
    if (this.info.username !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${this.info.username}:${this.info.password ?? ''}`).toString('base64')}`;
    }
    for (const [name, value] of Object.entries(this.info.headers)) {
      delete headers[name.toLowerCase()];
      headers[name] = value;
    }
    return headers;
  }

  /** ES keeps the remote's status (500 for one it has no name for) and puts the body in the reason. */
  private statusError(call: Call, uri: string, reply: Exchange): EsError {
    const known = KNOWN_STATUSES.has(reply.status);
    const prefix = known ? '' : `Couldn't extract status [${reply.status}]. `;
    const host = `${this.info.scheme.toLowerCase()}://${this.info.host}:${this.info.port}`;
    const entity = reply.body === undefined ? '' : `\n${reply.body}`;
    const cause = new EsError(reply.status, 'response_exception', `method [${call.method}], host [${host}], URI [${uri}], status line [${reply.statusLine}]${entity}`);
    const reason = reply.body === undefined ? 'No error body.' : `body=${reply.body}`;
    return new RemoteStatusError(known ? reply.status : 500, 'status_exception', prefix + reason, {}, cause);
  }

  private abortError(): EsError {
    const reason: unknown = this.signal?.reason;
    return reason instanceof EsError ? reason : new EsError(400, 'task_cancelled_exception', 'task cancelled');
  }
}

const bareHost = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

function tooLarge(length: number, limit: number): EsError {
  const cause = new EsError(500, 'content_too_long_exception', `entity content is too long [${length}] for the configured buffer limit [${limit}]`);
  return new EsError(400, 'illegal_argument_exception', 'Remote responded with a chunk that was too large. Use a smaller batch size.', {}, cause);
}

function closedEarly(expected: number, received: number): EsError {
  const reason = Number.isFinite(expected)
    ? `Premature end of Content-Length delimited message body (expected: ${expected}; received: ${received})`
    : 'Connection closed unexpectedly';
  return new EsError(500, 'connection_closed_exception', reason);
}

/** What ES's REST client reports for a failure below HTTP (Java's exception, as ES names its type). */
function transportError(e: unknown, info: RemoteInfo): EsError {
  const error = e as NodeJS.ErrnoException;
  switch (error.code) {
    case 'ECONNREFUSED':
      return new EsError(500, 'connect_exception', 'Connection refused');
    case 'ENOTFOUND':
      return new EsError(500, 'unknown_host_exception', `${info.host}: Name or service not known`);
    case 'EAI_AGAIN':
      return new EsError(500, 'unknown_host_exception', `${info.host}: Temporary failure in name resolution`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new EsError(500, 'no_route_to_host_exception', 'No route to host');
    case 'ECONNRESET':
      return error.message === 'socket hang up'
        ? new EsError(500, 'connection_closed_exception', 'Connection closed unexpectedly')
        : new EsError(500, 'i_o_exception', 'Connection reset by peer');
  }
  if (typeof error.code === 'string' && /CERT|SSL|TLS/.test(error.code)) return new EsError(500, 's_s_l_handshake_exception', error.message);
  return new EsError(500, 'i_o_exception', error instanceof Error ? error.message : String(e));
}

/**
 * The query string as ES's REST client writes it: form-encoded, in the order of the `HashMap` it
 * copies the request's parameters into (sized for them, so 8 buckets for up to 6).
 */
function queryString(params: [string, string][]): string {
  const values = new Map(params);
  const order = hashMapOrder(hashMapOrder([...values.keys()]), hashTableSize(values.size, true));
  return order.map((name) => `${formEncode(name)}=${formEncode(values.get(name)!)}`).join('&');
}

// ---- Java's ways -----------------------------------------------------------------------------------

/** `URLEncoder.encode`: letters, digits and `.-*_` kept, space as `+`, all else `%XX` of its UTF-8. */
function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Java's `String.hashCode`, spread as `HashMap.hash` spreads it. */
function javaHash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return h ^ (h >>> 16);
}

/**
 * The buckets a `HashMap` holding `count` keys has: grown from 16 by doubling past 3/4 full, or, for
 * a copy (`new HashMap<>(map)`), the power of two at least `ceil(count / 0.75)`.
 */
function hashTableSize(count: number, copy = false): number {
  if (copy) {
    let size = 1;
    while (size < Math.ceil(count / 0.75)) size *= 2;
    return size;
  }
  let size = 16;
  while (count > size * 0.75) size *= 2;
  return size;
}

/** The order a `java.util.HashMap` iterates keys inserted in this order: by bucket, then insertion. */
function hashMapOrder(keys: string[], tableSize = hashTableSize(keys.length)): string[] {
  return keys
    .map((key, at) => ({ key, at, bucket: javaHash(key) & (tableSize - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.at - b.at)
    .map(({ key }) => key);
}

/** A JSON value as Java's `toString` prints it (lists `[a, b]`, maps `{k=v}` in `HashMap` order). */
function javaString(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(javaString).join(', ')}]`;
  if (isObject(value)) return `{${hashMapOrder(Object.keys(value)).map((key) => `${key}=${javaString(value[key])}`).join(', ')}}`;
  return String(value);
}

function javaClass(value: unknown): string {
  if (typeof value === 'string') return 'java.lang.String';
  if (typeof value === 'boolean') return 'java.lang.Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'java.lang.Integer' : 'java.lang.Double';
  return 'java.util.ArrayList';
}

/**
 * JSON as ES writes a map it read (`XContentBuilder.map`): keys in `HashMap` order; pretty-printed as
 * Jackson's default printer with two-space indents does (`"key" : value`, `{ }` and `[ ]` when empty).
 */
function javaJson(value: unknown, pretty: boolean, depth = 0): string {
  const newline = pretty ? `\n${'  '.repeat(depth + 1)}` : '';
  const close = pretty ? `\n${'  '.repeat(depth)}` : '';
  if (Array.isArray(value)) {
    if (value.length === 0) return pretty ? '[ ]' : '[]';
    return `[${value.map((item) => newline + javaJson(item, pretty, depth + 1)).join(',')}${close}]`;
  }
  if (isObject(value)) {
    const keys = hashMapOrder(Object.keys(value));
    if (keys.length === 0) return pretty ? '{ }' : '{}';
    const entries = keys.map((key) => `${newline}${JSON.stringify(key)}${pretty ? ' : ' : ':'}${javaJson(value[key], pretty, depth + 1)}`);
    return `{${entries.join(',')}${close}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
