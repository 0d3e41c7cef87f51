/**
 * The front's request handler: the front's own endpoints (`/_front/…`), accelerated searches
 * (rank/accelerated-search.ts), and everything else through to the cluster unchanged
 * (pass-through.ts).
 *
 * The paging page at `/_deeppage/` is the front's own (front-page.ts), reading the cluster through it.
 *
 * The front's endpoints:
 * - `GET /_front/stats`: its rank indices (count, documents, bytes, builds, build time), the points
 *   in time it holds open, and the cluster requests it made, by purpose;
 * - `POST /_front/_refresh`: every rank index rebuilt on a new point in time (each old one serves
 *   until its new one is complete).
 * - `GET /_nodes/stats` (and its metric forms): the cluster's answer with the same figures under
 *   `front`.
 * The front keeps no users: these answer a caller the cluster answers (its `GET /` with the
 * caller's headers); anyone else gets the cluster's refusal (401, 403) as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EsError, illegalArgument } from '../engine/errors.ts';
import { bodyTooLarge } from '../http/request-body.ts';
import { clientHeaders, type ClusterCalls } from './cluster-calls.ts';
import { sendClusterAnswer } from './client-answer.ts';
import { frontPage } from './front-page.ts';
import { failed, forward, passThrough, sendError, type PassThroughOptions } from './pass-through.ts';
import { answerSearch } from './rank/accelerated-search.ts';
import type { RankIndices } from './rank/rank-indices.ts';
import type { Distribution } from './rank/point-in-time.ts';
import type { ResultWindows } from './rank/result-windows.ts';
import { frontSearch } from './rank/search-shape.ts';
import { KeptBody } from './request-body.ts';

export interface FrontRoutesOptions extends PassThroughOptions {
  calls: ClusterCalls;
  indices: RankIndices;
  windows: ResultWindows;
  distribution: (headers: readonly string[]) => Promise<Distribution>;
}

export function frontRoutes(options: FrontRoutesOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const through = passThrough(options);
  const page = frontPage();
  return (req, res) => {
    if (page(req, res)) return;
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const path = target.split('?')[0];
    if (path === '/_front' || path.startsWith('/_front/')) return void frontEndpoint(req, path, options, res).catch((error) => failed(res, error));
    if (method === 'GET' && (path === '/_nodes/stats' || path.startsWith('/_nodes/stats/'))) return void nodesStats(req, res, options).catch((error) => failed(res, error));
    if ((method === 'GET' || method === 'POST') && isSearchPath(path)) return void search(req, res, options).catch((error) => failed(res, error));
    through(req, res);
  };
}

/** `/_search` or `/{index}/_search`. */
function isSearchPath(path: string): boolean {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.at(-1) === '_search' && segments.length <= 2;
}

async function search(req: IncomingMessage, res: ServerResponse, options: FrontRoutesOptions): Promise<void> {
  const body = await readBody(req, options.maxBodyBytes).catch((error: unknown) => error);
  if (!(body instanceof Buffer)) {
    if (body instanceof EsError) return sendError(res, body);
    throw body;
  }
  const found = frontSearch(req.method ?? 'GET', req.url ?? '/', req.rawHeaders, body);
  if (found && (await answerSearch(found, res, options))) return;
  await forward(req, res, new KeptBody(body.length === 0 && !hasBody(req) ? undefined : body), options);
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

async function frontEndpoint(req: IncomingMessage, path: string, options: FrontRoutesOptions, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const endpoint = path === '/_front/stats' && method === 'GET' ? 'stats' : path === '/_front/_refresh' && method === 'POST' ? 'refresh' : undefined;
  if (endpoint === undefined) return sendError(res, illegalArgument(`no handler found for uri [${path}] and method [${method}]`));
  req.resume();
  const caller = await options.calls.call('check', 'GET', '/', clientHeaders(req.rawHeaders));
  if (caller.status !== 200) {
    sendClusterAnswer(res, caller);
    return;
  }
  if (endpoint === 'stats') return sendJson(res, 200, frontStats(options));
  sendJson(res, 200, { acknowledged: true, rebuilding: options.indices.refresh() });
}

function frontStats({ calls, indices }: FrontRoutesOptions): unknown {
  return { ...indices.stats(), cluster_requests: calls.counts };
}

/** The cluster's `_nodes/stats`, with the front's figures added under `front` when it is a JSON object. */
async function nodesStats(req: IncomingMessage, res: ServerResponse, options: FrontRoutesOptions): Promise<void> {
  req.resume();
  const answer = await options.calls.call('check', 'GET', req.url ?? '/', clientHeaders(req.rawHeaders));
  const text = answer.text.trimEnd();
  if (answer.status !== 200 || !text.startsWith('{') || !text.endsWith('}')) {
    sendClusterAnswer(res, answer);
    return;
  }
  const empty = /^\{\s*\}$/.test(text);
  sendClusterAnswer(res, answer, `${text.slice(0, -1)}${empty ? '' : ','}"front":${JSON.stringify(frontStats(options))}}`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
  res.end(bytes);
}

/** The client's whole body, refused past the limit as the engine refuses it. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) return reject(bodyTooLarge(limit));
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        req.pause();
        reject(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
