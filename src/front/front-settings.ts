/**
 * Front mode's node settings (`front.*`, docs/front-mode.md), read from the names and values `-E`
 * gives, and its secure settings, the front's own credentials, from the environment
 * (front-credentials.ts). node-settings.ts hands every name {@link isFrontSetting} claims to
 * {@link parseFrontSettings}; nothing here knows the engine's settings.
 *
 * @example
 * parseFrontSettings({ 'front.hosts': 'http://es1:9200', 'front.refresh_interval': '30s' }, {})
 * // { hosts: [URL http://es1:9200/], headers: {}, refreshIntervalMs: 30000, maxOpenPits: 100 }
 */
import { illegalArgument } from '../engine/errors.ts';
import { intSetting } from '../engine/int-setting.ts';
import { timeValueMs } from '../engine/time-value.ts';
import { isFrontSecureSetting, readFrontCredentials, type Environment, type FrontCredentials } from './front-credentials.ts';

/** Front mode's node settings, as read (the CA file is read when the front starts). */
export interface FrontSettings {
  /** `front.hosts`: one cluster's hosts, tried in order for failover; each an origin with an optional path prefix. */
  hosts: URL[];
  /** `front.ssl.certificate_authorities`: a PEM file of the CAs trusted for https hosts. */
  certificateAuthorities?: string;
  /** `front.headers.<name>`: headers the front sets on every cluster request, by name as given. */
  headers: Record<string, string>;
  /** `front.refresh_interval`: how old a rank index may grow before it is rebuilt on a new point in time, in ms (default 1m). */
  refreshIntervalMs: number;
  /** `front.max_open_pits`: the most points in time the front holds open on the cluster (default 100). */
  maxOpenPits: number;
  /** The front's own credentials (`front.username`/`front.password` or `front.api_key`, secure settings), for its housekeeping requests; they print as their scheme only. */
  credentials?: FrontCredentials;
}

export const DEFAULT_FRONT_REFRESH_INTERVAL = '1m';
export const DEFAULT_FRONT_MAX_OPEN_PITS = 100;

const HOSTS = 'front.hosts';
const CERTIFICATE_AUTHORITIES = 'front.ssl.certificate_authorities';
const REFRESH_INTERVAL = 'front.refresh_interval';
const MAX_OPEN_PITS = 'front.max_open_pits';
const HEADERS = 'front.headers.';

/** Headers the front owns on the way to the cluster, or that carry secrets `ps` would show (the front's own credentials are secure settings). */
const HEADERS_REFUSED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'authorization', 'proxy-authorization', 'cookie']);

/** Whether `name` is the front's: a setting {@link parseFrontSettings} reads, or a secure one it refuses on the command line. */
export function isFrontSetting(name: string): boolean {
  return name === HOSTS || name === CERTIFICATE_AUTHORITIES || name === REFRESH_INTERVAL || name === MAX_OPEN_PITS || name.startsWith(HEADERS) || isFrontSecureSetting(name);
}

/**
 * The front's settings from `given` (only names {@link isFrontSetting} claims), with its credentials
 * from `env`; `undefined` when no `front.*` setting is given, and `env` is then not read: outside
 * front mode the front's variables mean nothing.
 */
export function parseFrontSettings(given: Readonly<Record<string, string>>, env: Environment): FrontSettings | undefined {
  const names = Object.keys(given);
  if (names.length === 0) return undefined;
  // First, before any other refusal could be the one shown: a secret on the command line.
  const credentials = readFrontCredentials(names, env);
  const front: FrontSettings = { hosts: [], headers: {}, refreshIntervalMs: refreshInterval(REFRESH_INTERVAL, DEFAULT_FRONT_REFRESH_INTERVAL), maxOpenPits: DEFAULT_FRONT_MAX_OPEN_PITS };
  for (const [name, value] of Object.entries(given)) {
    switch (name) {
      case HOSTS:
        front.hosts = hosts(name, value);
        break;
      case CERTIFICATE_AUTHORITIES:
        if (value.trim() === '') throw illegalArgument(`[${name}] must not be empty`);
        front.certificateAuthorities = value;
        break;
      case REFRESH_INTERVAL:
        front.refreshIntervalMs = refreshInterval(name, value);
        break;
      case MAX_OPEN_PITS:
        front.maxOpenPits = intSetting(name, value, 1);
        break;
      default:
        if (!name.startsWith(HEADERS)) throw new Error(`not a front setting: [${name}]`);
        front.headers[headerName(name)] = headerValue(name, value);
    }
  }
  if (front.hosts.length === 0) throw illegalArgument(`[${HOSTS}] must be set when any other front.* setting is`);
  if (front.certificateAuthorities !== undefined && !front.hosts.some((url) => url.protocol === 'https:')) {
    throw illegalArgument(`[${CERTIFICATE_AUTHORITIES}] is set but no host in [${HOSTS}] uses https`);
  }
  if (credentials) front.credentials = credentials;
  return front;
}

/** An ES time value of at least 1ms: `-1` (ES's "never") and `0` would leave a rank index never, or always, stale. */
function refreshInterval(name: string, value: string): number {
  const ms = timeValueMs(name, value);
  if (ms < 1) throw illegalArgument(`failed to parse value [${value}] for setting [${name}], must be >= [1ms]`);
  return ms;
}

/** `http://es1:9200,https://es2:9200/prefix`: absolute http(s) URLs, no credentials, query or fragment. */
function hosts(name: string, value: string): URL[] {
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
    // Without the value, as ES words a filtered setting's refusal: it holds a password.
    if (url.username || url.password) throw illegalArgument(`Failed to parse value for setting [${name}]: [${url.host}] must not carry credentials: clients' own credentials are forwarded`);
    if (url.search || url.hash) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}]: [${host}] must not have a query or fragment`);
    return url;
  });
}

function headerName(setting: string): string {
  const header = setting.slice(HEADERS.length);
  // RFC 9110 §5.1: a field name is a token.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw illegalArgument(`[${setting}]: [${header}] is not a valid header name`);
  if (HEADERS_REFUSED.has(header.toLowerCase())) throw illegalArgument(`[${setting}]: the header [${header}] cannot be set by the front`);
  return header;
}

function headerValue(setting: string, value: string): string {
  // RFC 9110 §5.5: no CR, LF or NUL in a field value; surrounding whitespace is not part of it.
  if (/[\r\n\0]/.test(value)) throw illegalArgument(`[${setting}]: a header value must not contain CR, LF or NUL`);
  return value.trim();
}
