/**
 * The front's request handler: every request passes through to the cluster unchanged, and the
 * cluster's answer comes back unchanged (status, end-to-end headers, body bytes), both streamed.
 *
 * Hosts are tried in turn (cluster-hosts.ts). The next host is tried when the last could not be
 * connected to (nothing of the request was sent), for any request; after a failure that may have
 * reached the host (an error once the request was being written, a reset before the answer's head),
 * only for a read whose body is kept (read-only.ts, request-body.ts), never for a write. When no host
 * answers: 503 if none accepted a connection, else 502, in Elasticsearch's error shape. The
 * cluster's own errors (401, 403, 404, 5xx…) are answers, passed through as they are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EsError, illegalArgument } from '../engine/errors.ts';
import { errorBody } from '../http/error-response.ts';
import { bodyTooLarge } from '../http/request-body.ts';
import type { ClusterHosts } from './cluster-hosts.ts';
import { send } from './forward.ts';
import { endToEnd } from './hop-by-hop.ts';
import { isRead } from './read-only.ts';
import { RequestBody, type BodySource } from './request-body.ts';

export interface PassThroughOptions {
  hosts: ClusterHosts;
  /** `front.headers`. */
  headers: Readonly<Record<string, string>>;
  /** `http.max_content_length`, in bytes: the engine's body limit, held by the front too. */
  maxBodyBytes: number;
}

export function passThrough({ hosts, headers, maxBodyBytes }: PassThroughOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => void handle(req, res).catch((error) => failed(res, error));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    if (!target.startsWith('/')) return sendError(res, illegalArgument(`the front takes origin-form request targets only, got [${target}]`));
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBodyBytes) return sendError(res, bodyTooLarge(maxBodyBytes));
    const read = isRead(method, target);
    await forward(req, res, new RequestBody(req, maxBodyBytes, read), { hosts, headers, maxBodyBytes });
  }
}

/** Sends the client's request, with this body, to the cluster and its answer back unchanged. */
export async function forward(req: IncomingMessage, res: ServerResponse, body: BodySource, { hosts, headers }: PassThroughOptions): Promise<void> {
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  const sent = await send(hosts, { method, target, rawHeaders: req.rawHeaders, frontHeaders: headers, body }, isRead(method, target));
  if ('answer' in sent) return answer(sent.answer, res);
  sendError(res, sent.error);
  // A body the cluster never read is left unread; the connection then cannot carry another request.
  if (!req.readableEnded) res.once('finish', () => req.destroy());
}

/** A handler's failure: its EsError, else a 500 in Elasticsearch's shape; a cut connection once the answer began. */
export function failed(res: ServerResponse, error: unknown): void {
  // A cluster out of reach (503, 502) is an answer in Elasticsearch's shape, not a failure of the front's.
  if (error instanceof EsError && !res.headersSent) return sendError(res, error);
  console.error(error);
  if (!res.headersSent) sendError(res, new EsError(500, 'exception', String(error)));
  else res.destroy();
}

function answer(from: IncomingMessage, res: ServerResponse): void {
  // Date and every end-to-end field come from the cluster; Node adds no Date of its own.
  res.sendDate = false;
  res.writeHead(from.statusCode!, from.statusMessage, endToEnd(from.rawHeaders));
  from.pipe(res);
  // A cluster answer cut short is cut short for the client too; a client gone drops the cluster's.
  from.once('aborted', () => res.destroy());
  from.once('error', () => res.destroy());
  res.once('close', () => {
    if (!from.complete) from.destroy();
  });
}

export function sendError(res: ServerResponse, error: EsError): void {
  const bytes = Buffer.from(JSON.stringify(errorBody(error)));
  res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': bytes.length });
  res.end(bytes);
}
