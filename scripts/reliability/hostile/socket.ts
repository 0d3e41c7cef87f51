/**
 * Hostile requests on a real socket: {@link sendRequest} sends a generated request as it is (the
 * path byte for byte, `.` and `..` included, the body in pauses when it is slow), and
 * {@link rawExchange} writes any bytes at all (invalid UTF-8 in the request line, lying lengths,
 * header floods) and reads whatever comes back until the server closes or goes quiet.
 */
import { request, type Agent } from 'node:http';
import { connect } from 'node:net';
import type { Answer } from './check.ts';
import type { HostileRequest } from './requests.ts';

export interface SocketAnswer extends Answer {
  headers: Record<string, string | string[] | undefined>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the request over HTTP/1.1 and reads the whole answer; rejects on a connection error or after `timeoutMs`. */
export function sendRequest(url: string, req: HostileRequest, options: { agent?: Agent; timeoutMs?: number } = {}): Promise<SocketAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    // Node's client refuses some requests itself (a header value it cannot send): those never leave.
    try {
      sendOn(resolve, reject);
    } catch (error) {
      reject(error);
    }
  });
  function sendOn(resolve: (answer: SocketAnswer) => void, reject: (error: unknown) => void): void {
    const body = req.body;
    const headers = { ...req.headers, ...(body && { 'content-length': String(body.length) }) };
    const outgoing = request({ hostname, port, method: req.method, path: req.target, headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, header: (name) => single(res.headers[name]), body: text });
      });
    });
    outgoing.setTimeout(options.timeoutMs ?? 30_000, () => outgoing.destroy(new Error(`no answer within ${(options.timeoutMs ?? 30_000) / 1000} s`)));
    outgoing.on('error', reject);
    if (!body) return void outgoing.end();
    if (!req.slow) return void outgoing.end(body);
    // Three pieces, 20 ms apart: the server must wait for the rest, not answer for a part.
    void (async () => {
      const third = Math.ceil(body.length / 3);
      for (let at = 0; at < body.length; at += third) {
        outgoing.write(body.subarray(at, at + third));
        await pause(20);
      }
      outgoing.end();
    })();
  }
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export interface RawAnswer {
  /** The status of the first answer, if one came. */
  status?: number;
  /** Everything the server sent. */
  text: string;
  /** The server closed the connection (rather than going quiet until the deadline). */
  closed: boolean;
}

/**
 * Opens a connection, lets `write` send what it likes (it may pause, end or destroy the socket),
 * and collects the answer until the server closes it or `quietMs` pass without a byte.
 */
export function rawExchange(url: string, write: (socket: import('node:net').Socket) => Promise<void> | void, quietMs = 1000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), text, closed });
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), quietMs);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      quiet();
    });
    socket.on('close', () => finish(true));
    // A reset after the server answered and closed is a close like any other.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? finish(true) : reject(error)));
    socket.on('connect', async () => {
      try {
        await write(socket);
        quiet();
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The body of a raw answer (after its headers), de-chunked if it was sent in chunks. */
export function rawBody(text: string): string {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return '';
  const head = text.slice(0, split).toLowerCase();
  let body = text.slice(split + 4);
  if (/\r\ntransfer-encoding: chunked/.test(head)) {
    let out = '';
    while (body.length > 0) {
      const end = body.indexOf('\r\n');
      const size = parseInt(body.slice(0, end), 16);
      if (!(size > 0)) break;
      out += body.slice(end + 2, end + 2 + size);
      body = body.slice(end + 2 + size + 2);
    }
    body = out;
  }
  return Buffer.from(body, 'latin1').toString('utf8');
}
