/**
 * Node-level settings, named and written as Elasticsearch names its own (`-E name=value` on the
 * command line, as `bin/elasticsearch -E` takes them). Unknown names are refused, not ignored.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parseBoolean } from './booleans.ts';
import { parseByteSize } from './byte-size.ts';
import { illegalArgument } from './errors.ts';
import { PAGINGS, type Paging } from './search/request.ts';
import { timeValueMs } from './time-value.ts';

export interface NodeSettings {
  /** Budget for sorted runs, in bytes (`indices.sorted_runs.cache.size`). */
  sortedRunsCacheBytes: number;
  /** `search.paging`: how a search finds its page unless it says (its `paging`); `top_k` is Elasticsearch's algorithm. */
  searchPaging: Paging;
  /** `search.max_keep_alive`: the longest keep-alive a PIT or scroll may ask for (ES: 24h). */
  maxKeepAliveMs: number;
  /** `search.max_open_scroll_context` (ES: 500). */
  maxOpenScrollContexts: number;
  /** `search.max_open_pit_context`, OpenSearch's name for the cap on open points in time (300 there). */
  maxOpenPitContexts: number;
  /** `reindex.remote.whitelist`: `host:port` patterns (`*` wildcards) reindex may read from; empty allows none. */
  reindexRemoteWhitelist: string[];
  /** `http.max_content_length`: the largest request body, in bytes (ES: 100mb). */
  httpMaxContentLength: number;
  /** `indices.breaker.total.limit`: the parent circuit breaker's limit on the heap in use, in bytes (ES: 95% of the heap). */
  breakerTotalLimitBytes: number;
  /** `xpack.security.enabled`; unset, it follows from the host and the credentials (src/http/auth/security-mode.ts). */
  securityEnabled?: boolean;
  /** `xpack.security.authc.file.path`: the credentials file (src/http/auth/credentials.ts). */
  credentialsFile?: string;
  /** `compatibility.distribution`: whose product `GET /` names, and whether answers carry Elasticsearch's product header (src/http/routes/cluster.ts, src/http/respond.ts). */
  distribution: Distribution;
  /** `front.*`: set when deeppage fronts an Elasticsearch or OpenSearch cluster (src/front/, docs/front-mode.md). */
  front?: FrontSettings;
}

/** Front mode's node settings, as read (the CA file is read when the front starts). */
export interface FrontSettings {
  /** `front.hosts`: one cluster's hosts, tried in order for failover; each an origin with an optional path prefix. */
  hosts: URL[];
  /** `front.ssl.certificate_authorities`: a PEM file of the CAs trusted for https hosts. */
  certificateAuthorities?: string;
  /** `front.headers.<name>`: headers the front sets on every cluster request, by name as given. */
  headers: Record<string, string>;
}

/** The products deeppage can answer as: Elasticsearch 8.x, or OpenSearch for its clients and tools. */
export const DISTRIBUTIONS = ['elasticsearch', 'opensearch'] as const;
export type Distribution = (typeof DISTRIBUTIONS)[number];

export const DEFAULT_NODE_SETTINGS: Omit<NodeSettings, 'sortedRunsCacheBytes' | 'breakerTotalLimitBytes'> = {
  distribution: 'elasticsearch',
  searchPaging: 'sorted_runs',
  maxKeepAliveMs: 24 * 3_600_000,
  maxOpenScrollContexts: 500,
  maxOpenPitContexts: 300,
  reindexRemoteWhitelist: [],
  httpMaxContentLength: 100 * 1024 ** 2,
};

/** Runs live in wasm32 memory (4 GiB at most, shared with scratch space): no budget may exceed this. */
export const MAX_RUNS_BYTES = 2 * 1024 ** 3;
/** Like ES's `indices.queries.cache.size`: a share of memory, here of the machine's, capped as above. */
export const DEFAULT_RUNS_CACHE_SIZE = '10%';

export function parseNodeSettings(given: Record<string, string> = {}): NodeSettings {
  const settings: NodeSettings = {
    sortedRunsCacheBytes: memorySize('indices.sorted_runs.cache.size', DEFAULT_RUNS_CACHE_SIZE),
    breakerTotalLimitBytes: heapSize('indices.breaker.total.limit', DEFAULT_BREAKER_TOTAL_LIMIT),
    ...DEFAULT_NODE_SETTINGS,
  };
  for (const [name, value] of Object.entries(given)) {
    switch (name) {
      case 'indices.sorted_runs.cache.size':
        settings.sortedRunsCacheBytes = memorySize(name, value);
        break;
      case 'search.paging':
        if (!(PAGINGS as readonly string[]).includes(value)) throw illegalArgument(`failed to parse value [${value}] for setting [${name}], must be one of [${PAGINGS.join(', ')}]`);
        settings.searchPaging = value as Paging;
        break;
      case 'search.max_keep_alive':
        settings.maxKeepAliveMs = timeValueMs(name, value);
        break;
      case 'search.max_open_scroll_context':
        settings.maxOpenScrollContexts = count(name, value);
        break;
      case 'search.max_open_pit_context':
        settings.maxOpenPitContexts = count(name, value);
        break;
      case 'http.max_content_length':
        settings.httpMaxContentLength = byteSize(name, value);
        if (settings.httpMaxContentLength > 2 ** 31 - 1) throw illegalArgument(`failed to parse value [${value}] for setting [${name}], must be <= [2147483647b]`);
        break;
      case 'indices.breaker.total.limit':
        settings.breakerTotalLimitBytes = heapSize(name, value);
        break;
      case 'indices.breaker.total.use_real_memory':
        if (!parseBoolean(value)) throw illegalArgument(`[${name}] set to [false] is not supported by deeppage: its parent breaker accounts the heap in use`);
        break;
      case 'reindex.remote.whitelist':
        settings.reindexRemoteWhitelist = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
        break;
      case 'xpack.security.enabled':
        settings.securityEnabled = parseBoolean(value);
        break;
      case 'xpack.security.authc.file.path':
        settings.credentialsFile = value;
        break;
      case 'compatibility.distribution':
        if (!(DISTRIBUTIONS as readonly string[]).includes(value)) throw illegalArgument(`failed to parse value [${value}] for setting [${name}], must be one of [${DISTRIBUTIONS.join(', ')}]`);
        settings.distribution = value as Distribution;
        break;
      case 'front.hosts':
        frontOf(settings).hosts = frontHosts(name, value);
        break;
      case 'front.ssl.certificate_authorities':
        if (value.trim() === '') throw illegalArgument(`[${name}] must not be empty`);
        frontOf(settings).certificateAuthorities = value;
        break;
      default:
        if (name.startsWith(FRONT_HEADERS)) {
          frontOf(settings).headers[frontHeaderName(name)] = frontHeaderValue(name, value);
          break;
        }
        throw illegalArgument(`unknown setting [${name}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
    }
  }
  if (settings.front) checkFront(settings.front);
  return settings;
}

function count(name: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n <= 2 ** 31 - 1)) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}] must be >= 0`);
  return n;
}

/** ES's memory size: a byte size (`512mb`, `1gb`, `0b`) or a percentage (`10%`) of the machine's memory, capped at {@link MAX_RUNS_BYTES}. */
export function memorySize(name: string, value: string): number {
  const text = value.trim().toLowerCase();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  let bytes: number;
  if (percent) {
    const share = Number(percent[1]);
    if (share > 100) throw illegalArgument(`failed to parse [${name}] setting: percentage should be in [0-100], got [${value}]`);
    bytes = Math.floor((totalmem() * share) / 100);
  } else bytes = byteSize(name, value);
  return Math.min(bytes, MAX_RUNS_BYTES);
}

/** The parent breaker's default with real-memory accounting, as ES's. */
export const DEFAULT_BREAKER_TOTAL_LIMIT = '95%';

/** ES's breaker limit: a byte size, or a percentage of the heap's limit (V8's, as ES's is the JVM's). */
function heapSize(name: string, value: string): number {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  if (!percent) return byteSize(name, value);
  const share = Number(percent[1]);
  if (share > 100) throw illegalArgument(`failed to parse [${name}] setting: percentage should be in [0-100], got [${value}]`);
  return Math.floor((getHeapStatistics().heap_size_limit * share) / 100);
}

/** ES's byte size (byte-size.ts), where none of these settings can take its -1 ("no size"). */
function byteSize(name: string, value: string): number {
  const bytes = parseByteSize(name, value);
  if (bytes < 0) throw illegalArgument(`failed to parse value [${value}] for setting [${name}], must be >= [0]`);
  return bytes;
}

const FRONT_HEADERS = 'front.headers.';
/** Headers the front owns on the way to the cluster, or that carry secrets `ps` would show (the front's own credentials are secure settings). */
const FRONT_HEADERS_REFUSED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'authorization', 'proxy-authorization', 'cookie']);

function frontOf(settings: NodeSettings): FrontSettings {
  return (settings.front ??= { hosts: [], headers: {} });
}

/** `http://es1:9200,https://es2:9200/prefix`: absolute http(s) URLs, no credentials, query or fragment. */
function frontHosts(name: string, value: string): URL[] {
  const hosts = value.split(',').map((s) => s.trim());
  if (hosts.some((host) => host === '')) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: expected a comma-separated list of http:// or https:// URLs`);
  return hosts.map((host) => {
    let url: URL;
    try {
      url = new URL(host);
    } catch {
      throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: [${host}] is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: [${host}] must use http or https`);
    if (url.username || url.password) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: [${url.host}] must not carry credentials: clients' own credentials are forwarded`);
    if (url.search || url.hash) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: [${host}] must not have a query or fragment`);
    return url;
  });
}

function frontHeaderName(setting: string): string {
  const header = setting.slice(FRONT_HEADERS.length);
  // RFC 9110 §5.1: a field name is a token.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw illegalArgument(`[${setting}]: [${header}] is not a valid header name`);
  if (FRONT_HEADERS_REFUSED.has(header.toLowerCase())) throw illegalArgument(`[${setting}]: the header [${header}] cannot be set by the front`);
  return header;
}

function frontHeaderValue(setting: string, value: string): string {
  // RFC 9110 §5.5: no CR, LF or NUL in a field value; surrounding whitespace is not part of it.
  if (/[\r\n\0]/.test(value)) throw illegalArgument(`[${setting}]: a header value must not contain CR, LF or NUL`);
  return value.trim();
}

function checkFront(front: FrontSettings): void {
  if (front.hosts.length === 0) throw illegalArgument('[front.hosts] must be set when any other front.* setting is');
  if (front.certificateAuthorities !== undefined && !front.hosts.some((url) => url.protocol === 'https:')) {
    throw illegalArgument('[front.ssl.certificate_authorities] is set but no host in [front.hosts] uses https');
  }
}
