/**
 * Node-level settings, named and written as Elasticsearch names its own (`-E name=value` on the
 * command line, as `bin/elasticsearch -E` takes them). Unknown names are refused, not ignored.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { Environment } from '../front/front-credentials.ts';
import { isFrontSetting, parseFrontSettings, type FrontSettings } from '../front/front-settings.ts';
import { parseBoolean } from './booleans.ts';
import { parseByteSize } from './byte-size.ts';
import { illegalArgument } from './errors.ts';
import { intSetting } from './int-setting.ts';
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

/** Front mode's settings live with the front (src/front/front-settings.ts); named here too for the files that took them from here. */
export type { FrontSettings };

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

/**
 * `given` by name, as `-E` gives them. `env` is read for the front's secure settings only, and only
 * when a `front.*` setting is given (src/front/front-credentials.ts).
 */
export function parseNodeSettings(given: Record<string, string> = {}, env: Environment = process.env): NodeSettings {
  const settings: NodeSettings = {
    sortedRunsCacheBytes: memorySize('indices.sorted_runs.cache.size', DEFAULT_RUNS_CACHE_SIZE),
    breakerTotalLimitBytes: heapSize('indices.breaker.total.limit', DEFAULT_BREAKER_TOTAL_LIMIT),
    ...DEFAULT_NODE_SETTINGS,
  };
  const front: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (isFrontSetting(name)) {
      front[name] = value;
      continue;
    }
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
        settings.maxOpenScrollContexts = intSetting(name, value);
        break;
      case 'search.max_open_pit_context':
        settings.maxOpenPitContexts = intSetting(name, value);
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
      default:
        throw illegalArgument(`unknown setting [${name}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
    }
  }
  const frontSettings = parseFrontSettings(front, env);
  if (frontSettings) settings.front = frontSettings;
  return settings;
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
