/**
 * Reading a request's body as the route expects it: JSON (absent allowed) or NDJSON, after checking
 * that its media type is one ES accepts.
 */
import type { Context } from 'hono';
import { parseJsonBody, parseNdjson, type NdjsonLine } from './body.ts';
import { bodyKind, unsupportedMediaType } from './media-type.ts';

/** The JSON body, or undefined when there is none. */
export async function jsonBody(c: Context): Promise<unknown> {
  return (await jsonBodyAndText(c)).value;
}

/** The JSON body and its text (a document's `_source` is stored as it was sent). */
export async function jsonBodyAndText(c: Context): Promise<{ value: unknown; text: string }> {
  const text = await c.req.text();
  if (text.trim() === '') return { value: undefined, text };
  checkMediaType(c);
  return { value: parseJsonBody(text), text };
}

export async function ndjsonBody(c: Context): Promise<NdjsonLine[]> {
  const text = await c.req.text();
  checkMediaType(c);
  return parseNdjson(text);
}

/** Bodies may also come in the `source` parameter (with `source_content_type`), as ES allows for GETs. */
export async function jsonBodyOrSource(c: Context): Promise<unknown> {
  const source = c.req.query('source');
  if (source !== undefined) return parseJsonBody(source);
  return jsonBody(c);
}

function checkMediaType(c: Context): void {
  const contentType = c.req.header('content-type');
  if (contentType !== undefined && bodyKind(contentType) === undefined) throw unsupportedMediaType(contentType);
}
