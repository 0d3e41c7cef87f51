/**
 * Writing responses: JSON with ES's content type, pretty-printed when `?pretty` is given (as ES does),
 * and the error shape for every failure.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EsError } from '../engine/errors.ts';
import { RawJson } from '../engine/raw-json.ts';
import type { SearchResponse } from '../engine/search/search.ts';
import { errorBody } from './error-response.ts';
import { filterPath } from './filter-path.ts';
import { RESPONSE_CONTENT_TYPE } from './media-type.ts';
import { searchResponseBody } from './search-response.ts';

/** A successful response, trimmed by `filter_path` if given. */
export function send(c: Context, status: number, body: unknown): Response {
  const filter = c.req.query('filter_path');
  return write(c, status, filter === undefined ? body : filterPath(body, filter));
}

/** A search response: its hits' stored `_source` spliced in as stored, unless `filter_path` or `pretty` reshape it. */
export function sendSearch(c: Context, body: SearchResponse): Response {
  if (c.req.query('filter_path') !== undefined || c.req.query('pretty') !== undefined) return send(c, 200, body);
  return c.body(searchResponseBody(body), 200, { 'Content-Type': RESPONSE_CONTENT_TYPE });
}

/** Errors are never filtered (ES turns `filter_path` off for them). */
export function sendError(c: Context, error: EsError): Response {
  return write(c, error.status, errorBody(error));
}

function write(c: Context, status: number, body: unknown): Response {
  const pretty = c.req.query('pretty') !== undefined;
  const text = pretty ? `${JSON.stringify(body, null, 2)}\n` : splicedJson(body);
  return c.body(text, status as ContentfulStatusCode, { 'Content-Type': RESPONSE_CONTENT_TYPE });
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

