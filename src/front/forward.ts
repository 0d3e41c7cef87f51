/**
 * One try of a request on one host: the client's method, target and end-to-end headers (Host set for
 * the host, the front's `front.headers` set over the client's), its body streamed once the host has
 * accepted the connection. Resolves with the host's answer head, or with how it failed: whether any
 * byte of the request may have reached the host decides whether another host may be tried.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { EsError } from '../engine/errors.ts';
import type { ClusterHost, ClusterHosts } from './cluster-hosts.ts';
import { endToEnd } from './hop-by-hop.ts';
import type { BodySource } from './request-body.ts';

/** How long a host may take to accept a connection before the next one is tried, in ms. */
export const CONNECT_TIMEOUT_MS = 10_000;

export type Attempt =
  | { answer: IncomingMessage }
  | { error: Error; /** Whether a byte of the request may have reached the host. */ sent: boolean };

export interface Outgoing {
  method: string;
  /** The request target as the client sent it: path and query, never absolute. */
  target: string;
  /** The client's raw header list. */
  rawHeaders: readonly string[];
  /** `front.headers`, set over the client's. */
  frontHeaders: Readonly<Record<string, string>>;
  body: BodySource;
}

/** A request's fate over every host: the answer of the first that gave one, or the error for the client. */
export type Sent = { answer: IncomingMessage } | { error: EsError };

/**
 * Sends a request to the cluster's hosts in turn (cluster-hosts.ts): the next host is tried when the
 * last could not be connected to (nothing was sent), for any request; after a failure that may have
 * reached the host, only for a `read` whose body can be sent again, never for a write. When no host
 * answers: 503 if none accepted a connection, else 502, as Elasticsearch's errors.
 */
export async function send(hosts: ClusterHosts, outgoing: Outgoing, read: boolean): Promise<Sent> {
  const failures: string[] = [];
  let connected = false;
  for (const host of hosts.inTurn()) {
    const tried = await attempt(host, outgoing);
    if ('answer' in tried) {
      hosts.answered(host);
      return tried;
    }
    if (tried.error instanceof EsError) return { error: tried.error };
    failures.push(`[${host.url.host}] ${(tried.error as NodeJS.ErrnoException).code ?? tried.error.message}`);
    hosts.failed(host);
    if (!tried.sent) continue;
    connected = true;
    if (!read || !outgoing.body.replayable) break;
  }
  const reason = connected ? `no answer from the cluster: ${failures.join(', ')}` : `None of the configured nodes are available: ${failures.join(', ')}`;
  return { error: connected ? new EsError(502, 'connect_transport_exception', reason) : new EsError(503, 'no_node_available_exception', reason) };
}

export function attempt(host: ClusterHost, { method, target, rawHeaders, frontHeaders, body }: Outgoing): Promise<Attempt> {
  const replaced = new Set(['host', 'expect', ...Object.keys(frontHeaders).map((name) => name.toLowerCase())]);
  const headers = [...endToEnd(rawHeaders, replaced), 'Host', host.url.host];
  for (const [name, value] of Object.entries(frontHeaders)) headers.push(name, value);
  // A body without a declared length goes on in chunks, whatever the method (Node chunks only some by default).
  const chunked = rawHeaders.some((field, i) => i % 2 === 0 && field.toLowerCase() === 'transfer-encoding');
  if (chunked && !rawHeaders.some((field, i) => i % 2 === 0 && field.toLowerCase() === 'content-length')) headers.push('Transfer-Encoding', 'chunked');
  const request = host.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let sent = false;
    const upstream = request({
      protocol: host.url.protocol,
      hostname: host.url.hostname.replace(/^\[|\]$/g, ''),
      port: host.url.port || undefined,
      method,
      path: host.prefix + target,
      headers,
      setHost: false,
      agent: host.agent,
    });
    const timer = setTimeout(() => upstream.destroy(Object.assign(new Error(`no connection to [${host.url.host}] within ${CONNECT_TIMEOUT_MS}ms`), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS);
    const start = () => {
      clearTimeout(timer);
      sent = true;
      body.sendTo(upstream);
    };
    upstream.once('socket', (socket) => {
      if (!socket.connecting) return start();
      // TLS hosts: the request goes once the handshake is done; before that nothing of it is sent.
      socket.once(host.url.protocol === 'https:' ? 'secureConnect' : 'connect', start);
    });
    upstream.once('response', (answer) => {
      clearTimeout(timer);
      resolve({ answer });
    });
    upstream.once('error', (error) => {
      clearTimeout(timer);
      resolve({ error, sent });
    });
  });
}
