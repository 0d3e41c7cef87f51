/**
 * The HTTP connection a reindex from remote talks over, as Elasticsearch's low-level REST client
 * makes it: keep-alive, the user's headers and preemptive basic auth, a connect and a socket
 * timeout, a limit on a response's size, and parameters in the order ES's client writes them.
 *
 * A remote answer that is not 2xx becomes ES's `status_exception` with the remote's status and body
 * ({@link RemoteStatusError}). Transport failures become the errors ES's REST client reports
 * (`connect_exception`, `socket_timeout_exception`, …), all 500s.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EsError, illegalArgument } from '../errors.ts';
import { formEncode, hashMapOrder, hashTableSize } from './java-text.ts';
import type { RemoteInfo } from './remote-info.ts';

/** One request: its path below the client's prefix, and its parameters (sent in the order ES's client writes them). */
export interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  params: [string, string][];
  body?: { text: string; type: string };
}

/** The bodies' content types; a text body is sent in Latin-1, as ES's client sends it. */
export const JSON_TYPE = 'application/json; charset=UTF-8';
export const TEXT_TYPE = 'text/plain; charset=ISO-8859-1';

/** A response as read: its body as UTF-8 text, none for a 204 or 304. */
export interface Reply {
  status: number;
  contentType: string | undefined;
  body: string | undefined;
}

interface Exchange extends Reply {
  /** `HTTP/1.1 404 Not Found`. */
  statusLine: string;
}

/** How a {@link RemoteClient} is built. */
export interface RemoteClientOptions {
  /** Largest response accepted, in bytes (ES: 100mb). */
  bufferLimitBytes?: number;
}

/** ES's `HeapBufferedAsyncResponseConsumer` limit for a remote's responses. */
const BUFFER_LIMIT_BYTES = 100 * 1024 * 1024;

/** ES's `RestStatus`: a status it has no constant for is answered as a 500. */
const KNOWN_STATUSES = new Set([
  ...[100, 101, 200, 201, 202, 203, 204, 205, 206, 207, 300, 301, 302, 303, 304, 305, 307],
  ...Array.from({ length: 18 }, (_, i) => 400 + i),
  ...[422, 423, 424, 429, 500, 501, 502, 503, 504, 505, 507],
]);

/** A remote's non-2xx answer, as ES's `wrapExceptionToPreserveStatus` wraps it. */
export class RemoteStatusError extends EsError {}

/**
 * One remote's HTTP connection, as ES's low-level REST client makes it: keep-alive, the user's
 * headers and preemptive basic auth on every request, a connect timeout, and a socket timeout on
 * every wait for bytes. The signal destroys requests in flight.
 */
export class RemoteClient {
  private readonly transport: typeof http | typeof https | undefined;
  private readonly agent: http.Agent;
  /** Requests in flight, each with the way to fail it. */
  private readonly inFlight = new Map<http.ClientRequest, (error: EsError) => void>();
  private readonly bufferLimit: number;
  /** Apache names its connections `http-outgoing-N`, and its socket timeouts name them. */
  private readonly connectionIds = new WeakMap<Socket, number>();
  private connections = 0;
  /** Put before every request's path; empty for none. */
  private readonly prefix: string;

  constructor(
    private readonly info: RemoteInfo,
    options: RemoteClientOptions,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.prefix = clientPrefix(info);
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
