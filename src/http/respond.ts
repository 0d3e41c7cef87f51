/**
 * Writing responses: JSON with ES's content type, pretty-printed when `?pretty` is given (as ES does),
 * and the error shape for every failure. Every answer the app gives is made here, with the header
 * the official client checks on each 2xx.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { EsError } from '../engine/errors.ts';
import { RawJson } from '../engine/raw-json.ts';
import type { SearchResponse } from '../engine/search/search.ts';
import { errorBody } from './error-response.ts';
import { filterPath } from './filter-path.ts';
import { JsonBytes, type Slab } from './json-bytes.ts';
import { RESPONSE_CONTENT_TYPE } from './media-type.ts';
import { searchResponseBody } from './search-response.ts';
import { queryOf } from './request-uri.ts';

/** A successful response, trimmed by `filter_path` if given; a {@link RawJson} body is sent as kept (its bytes or text) unless reshaped. */
export function send(c: Context, status: number, body: unknown): Response {
  const filter = queryOf(c).filter_path;
  return write(c, status, filter === undefined ? body : filterPath(body instanceof RawJson ? body.value : body, filter));
}

/**
 * An answer ending in a long list (a large `_bulk`'s items): `write(i, out)` writes entry i's JSON
 * as bytes, and the list is written {@link LIST_SLICE} entries per pass of the event loop (5,000
 * bulk items at once took 10 ms). `filter_path` and `pretty` answers are made at once, from the
 * entries as values (`value(i)`). The bytes come from the app's `slab`.
 */
export async function sendWithList(c: Context, status: number, head: Record<string, unknown>, key: string, list: ListEntries, slab: Slab): Promise<Response> {
  const query = queryOf(c);
  if (query.filter_path !== undefined || query.pretty !== undefined) return send(c, status, { ...head, [key]: Array.from({ length: list.count }, (_, i) => list.value(i)) });
  const start = JSON.stringify(head);
  const out = new JsonBytes(start.length + 16 + list.count * list.bytesEach, slab);
  out.text(`${start.slice(0, -1)}${start.length > 2 ? ',' : ''}${JSON.stringify(key)}:[`);
  for (let i = 0; i < list.count; i++) {
    if (i > 0 && i % LIST_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    if (i > 0) out.ascii(',');
    list.write(i, out);
  }
  out.ascii(']}');
  return respond(status, out.take() as Buffer<ArrayBuffer>);
}

/** The entries of a list answer: how many, and each as a value or written as JSON bytes (the same JSON). */
export interface ListEntries {
  count: number;
  /** About how many bytes an entry takes: the answer's buffer is sized for the list up front. */
  bytesEach: number;
  value(i: number): unknown;
  write(i: number, out: JsonBytes): void;
}

const LIST_SLICE = 1000;

/**
 * A search response: its hits' stored `_source` spliced in as stored, unless `filter_path` or `pretty`
 * reshape it, its bytes from the app's `slab`. `query` is the request's URI parameters, when the
 * caller has them at hand.
 */
export function sendSearch(c: Context, body: SearchResponse, slab: Slab, query: Readonly<Record<string, string | undefined>> = queryOf(c)): Response {
  if (query.filter_path !== undefined || query.pretty !== undefined) return send(c, 200, body);
  return respond(200, searchResponseBody(body, slab) as Buffer<ArrayBuffer>);
}

/**
 * Errors are never filtered (ES turns `filter_path` off for them). An error's `header` block (a
 * 401's `WWW-Authenticate`) is also sent as HTTP headers, as ES sends an exception's headers.
 */
export function sendError(c: Context, error: EsError): Response {
  return write(c, error.status, errorBody(error), error.fields.header as Record<string, string[]> | undefined);
}

function write(c: Context, status: number, body: unknown, headers?: Record<string, string[]>): Response {
  const pretty = queryOf(c).pretty !== undefined;
  // Stored JSON goes out as it is kept: its bytes when it has them (encoded once), else its text.
  const text = pretty ? `${JSON.stringify(body, null, 2)}\n` : body instanceof RawJson ? ((body.bytes as Uint8Array<ArrayBuffer> | undefined) ?? body.text) : splicedJson(body);
  return respond(status, text, headers);
}

/**
 * Headers as a plain object, shared by every answer (@hono/node-server writes such a response's
 * headers as they are; a `Headers` instance would be built, then converted, per request).
 */
/** What every answer of the server carries, whatever it is: the official client rejects any 2xx response without it. */
export const PRODUCT_HEADER: Readonly<Record<string, string>> = Object.freeze({ 'x-elastic-product': 'Elasticsearch' });

/**
 * Answering as OpenSearch (`compatibility.distribution: opensearch`), no answer carries
 * {@link PRODUCT_HEADER}: OpenSearch sends none, and tools tell the two apart by it. Taken off
 * once the answer is made, whichever way it was made.
 */
export const withoutProductHeader: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.delete('x-elastic-product');
};

const HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': RESPONSE_CONTENT_TYPE,
  ...PRODUCT_HEADER,
});

/**
 * `extra` values are lists: @hono/node-server hands a plain object's headers to Node's `writeHead`,
 * which sends one header line per value, as ES sends one `WWW-Authenticate` per scheme (a web
 * `Headers`, as under `app.request()`, joins them into one line with commas).
 */
function respond(status: number, body: string | Uint8Array<ArrayBuffer>, extra?: Record<string, string[]>): Response {
  return new Response(body, { status, headers: extra ? ({ ...HEADERS, ...extra } as unknown as HeadersInit) : HEADERS });
}

/**
 * JSON text of a body whose last top-level field may be stored JSON ({@link RawJson}, as a GET's
 * `_source` is): that field is spliced in as stored, everything else serialized.
 */
function splicedJson(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return JSON.stringify(body);
  const entries = Object.entries(body);
  const last = entries[entries.length - 1];
  if (!last || !(last[1] instanceof RawJson)) return JSON.stringify(body);
  const head = JSON.stringify(Object.fromEntries(entries.slice(0, -1)));
  return `${head.slice(0, -1)}${entries.length > 1 ? ',' : ''}${JSON.stringify(last[0])}:${last[1].text}}`;
}

