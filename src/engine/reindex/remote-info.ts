/**
 * `source.remote` of a reindex, as Elasticsearch reads and checks it (modules/reindex:
 * `ReindexRequest.buildRemoteInfo`, `ReindexValidator`, `RemoteInfo.toString`):
 * {@link parseRemoteInfo} reads it with ES's errors, {@link checkRemoteAllowed} applies
 * `reindex.remote.whitelist` to its `host:port`, {@link describeRemote} names it in the task
 * description, and {@link queryJson} writes the query as the remote receives it.
 *
 * @example
 * const info = parseRemoteInfo(body.source.remote);
 * checkRemoteAllowed(info, settings.reindexRemoteWhitelist);
 */
import { isIPv4, isIPv6 } from 'node:net';
import { EsError, illegalArgument } from '../errors.ts';
import { globPattern, isObject } from '../patterns.ts';
import { timeValueMs } from '../time-value.ts';
import { hashMapOrder, hashTableSize, javaClass, javaJson, javaString } from './java-text.ts';

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
