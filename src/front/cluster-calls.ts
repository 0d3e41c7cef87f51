/**
 * The front's own requests to the cluster (point-in-time walks, pages, counts), each answered whole:
 * sent over the same hosts and failover as the pass-through (forward.ts), with the headers of the
 * client they serve (its credentials: the cluster decides what it may see), and counted.
 */
import type { IncomingMessage } from 'node:http';
import { EsError } from '../engine/errors.ts';
import type { ClusterHosts } from './cluster-hosts.ts';
import { send } from './forward.ts';
import { isRead } from './read-only.ts';
import { stringifyExact } from './json-text.ts';
import { KeptBody } from './request-body.ts';

/** A cluster's answer, read whole. */
export interface ClusterAnswer {
  status: number;
  /** Its header lines as received, names as sent. */
  rawHeaders: string[];
  text: string;
}

/** Headers a client sends that the front does not pass on its own requests: framing, encodings, the body's type. */
const NOT_PASSED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'accept-encoding', 'expect', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection']);

/** The header lines of a client's request the front's requests on its behalf carry: credentials, `Accept`, `X-Opaque-Id`…. */
export function clientHeaders(rawHeaders: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!NOT_PASSED.has(rawHeaders[i].toLowerCase())) out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return out;
}

/** What the front's cluster requests were for, as `_front/stats` counts them: `housekeeping` with the front's own credentials (`GET /`, closing points in time), `check` with a caller's (its right to the front's endpoints, `_nodes/stats`). */
export type CallPurpose = 'walk' | 'page' | 'count' | 'pit' | 'aggregations' | 'housekeeping' | 'check';

export class ClusterCalls {
  /** Requests made through this object (one client request's share, for {@link forRequest}'s). */
  made = 0;

  constructor(
    private readonly hosts: ClusterHosts,
    private readonly frontHeaders: Readonly<Record<string, string>>,
    /** Every request the front made, by purpose: shared by the objects {@link forRequest} makes. */
    readonly counts: Record<CallPurpose | 'total', number> = { total: 0, walk: 0, page: 0, count: 0, pit: 0, aggregations: 0, housekeeping: 0, check: 0 },
  ) {}

  /** The same calls, counted apart too: the requests made for one client request (builds in the background are not). */
  forRequest(): ClusterCalls {
    return new ClusterCalls(this.hosts, this.frontHeaders, this.counts);
  }

  /** One request with a JSON body (a value, its text or its bytes) or none; the cluster's errors are answers, a cluster out of reach an {@link EsError}. */
  async call(purpose: CallPurpose, method: string, target: string, headers: readonly string[], body?: unknown): Promise<ClusterAnswer> {
    this.made++;
    this.counts.total++;
    this.counts[purpose]++;
    const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : stringifyExact(body));
    const rawHeaders = bytes === undefined ? [...headers] : [...headers, 'Content-Type', 'application/json', 'Content-Length', String(bytes.length)];
    const sent = await send(this.hosts, { method, target, rawHeaders, frontHeaders: this.frontHeaders, body: new KeptBody(bytes) }, isRead(method, target));
    if ('error' in sent) throw sent.error;
    return { status: sent.answer.statusCode!, rawHeaders: sent.answer.rawHeaders, text: await readAll(sent.answer) };
  }
}

function readAll(answer: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    answer.once('aborted', () => reject(new EsError(502, 'connect_transport_exception', 'the cluster\'s answer broke off')));
    answer.once('error', reject);
  });
}
