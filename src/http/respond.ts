/**
 * Writing responses: JSON with ES's content type, pretty-printed when `?pretty` is given (as ES does),
 * and the error shape for every failure.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EsError } from '../engine/errors.ts';
import { errorBody } from './error-response.ts';
import { filterPath } from './filter-path.ts';
import { RESPONSE_CONTENT_TYPE } from './media-type.ts';

export function send(c: Context, status: number, body: unknown): Response {
  const filter = c.req.query('filter_path');
  if (filter !== undefined) body = filterPath(body, filter);
  const pretty = c.req.query('pretty') !== undefined;
  const text = JSON.stringify(body, null, pretty ? 2 : undefined) + (pretty ? '\n' : '');
  return c.body(text, status as ContentfulStatusCode, { 'Content-Type': RESPONSE_CONTENT_TYPE });
}

export function sendError(c: Context, error: EsError): Response {
  return send(c, error.status, errorBody(error));
}
