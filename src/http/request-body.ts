/**
 * Reading a request's body as the route expects it: JSON (absent allowed) or NDJSON, after checking
 * that its media type is one ES accepts, and no larger than the app's limit (ES's
 * `http.max_content_length`): a declared length over it is refused before reading, a chunked body as
 * soon as it grows past it.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { EsError } from '../engine/errors.ts';
import { parseJsonBody, parseNdjsonInPasses, type NdjsonApi, type NdjsonLine } from './body.ts';
import { bodyKind, unsupportedMediaType } from './media-type.ts';
import { queryOf } from './request-uri.ts';
import { TURNS, type Turns } from './turns.ts';

/** The context variable holding the body limit in bytes (set by the app). */
export const BODY_LIMIT = 'bodyLimit' as const;

/** The Node request under @hono/node-server (absent when the app is called directly, as tests do). */
export function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

export function bodyTooLarge(limit: number): EsError {
  return new EsError(413, 'content_too_long_exception', `request body is larger than the limit of [${limit}] bytes`);
}

/** The body as text (UTF-8, a byte order mark dropped), refused once over the limit. */
async function bodyText(c: Context): Promise<string> {
  const bytes = await bodyBytes(c);
  return bytes.length === 0 ? '' : DECODER.decode(bytes);
}

/**
 * The body's bytes, refused once over the limit: UTF-8 as sent, or, when it is not valid UTF-8 or
 * starts with a byte order mark, as the text {@link bodyText} reads (invalid sequences replaced,
 * the mark dropped) encoded again, so that bytes kept from it are always the text it was read as.
 */
async function bodyBytes(c: Context): Promise<Buffer> {
  const limit = c.get(BODY_LIMIT) as number | undefined ?? Infinity;
  const incoming = incomingOf(c);
  if (!incoming) {
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > limit) throw bodyTooLarge(limit);
    return asUtf8(bytes);
  }
  if (bodiless(incoming)) return EMPTY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(chunk);
  }
  // The work on the body waits for a turn of its own, as the request's first part did.
  await (c.get(TURNS) as Turns | undefined)?.take();
  return asUtf8(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}

const DECODER = new TextDecoder();
const EMPTY = Buffer.alloc(0);

function asUtf8(bytes: Buffer): Buffer {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bom || !isUtf8(bytes) ? Buffer.from(DECODER.decode(bytes)) : bytes;
}

/** The JSON body, or undefined when there is none. */
export async function jsonBody(c: Context): Promise<unknown> {
  return (await jsonBodyAndText(c)).value;
}

/** The JSON body and its text (a document's `_source` is stored as it was sent). */
export async function jsonBodyAndText(c: Context): Promise<{ value: unknown; text: string }> {
  const text = await bodyText(c);
  if (text.trim() === '') return { value: undefined, text };
  checkMediaType(c);
  return { value: parseJsonBody(text), text };
}

export async function ndjsonBody(c: Context, api: NdjsonApi = 'bulk'): Promise<NdjsonLine[]> {
  const bytes = await bodyBytes(c);
  checkMediaType(c);
  return parseNdjsonInPasses(bytes, api);
}

/** The URI parameters that may carry a request's body instead of it, as ES allows for GETs. */
export const BODY_SOURCE_PARAMS = ['source', 'source_content_type'];

/**
 * Bodies may also come in the `source` parameter (with `source_content_type`), as ES allows for GETs.
 * Undefined at once for a request with neither (most searches are GETs without one), a promise of
 * the body when it must be read: await it either way.
 */
export function jsonBodyOrSource(c: Context): unknown {
  const source = queryOf(c).source;
  if (source !== undefined) return parseJsonBody(source);
  if (hasNoBody(c)) return undefined;
  return jsonBody(c);
}

/**
 * The URI parameters the API reads: all but `source` and `source_content_type`, which carry the
 * body ({@link jsonBodyOrSource} reads them). The query itself when it has neither, as most searches.
 */
export function apiParams(c: Context): Record<string, string> {
  const query = queryOf(c);
  // Most searches carry their body as a body: the parameters as they are (a rest copy costs a few µs).
  if (query.source === undefined && query.source_content_type === undefined) return query;
  const { source: _source, source_content_type: _type, ...rest } = query;
  return rest;
}

/** Whether the request has no body at all, known without reading anything: then its URI says all it asks. */
export function hasNoBody(c: Context): boolean {
  const incoming = incomingOf(c);
  return incoming ? bodiless(incoming) : c.req.raw.body === null;
}

/** No length and no chunked encoding: the request has no body (RFC 9112 §6.3), so no stream is read. */
function bodiless({ headers }: IncomingMessage): boolean {
  return headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;
}

function checkMediaType(c: Context): void {
  const contentType = c.req.header('content-type');
  if (contentType !== undefined && bodyKind(contentType) === undefined) throw unsupportedMediaType(contentType);
}
