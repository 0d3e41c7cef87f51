/**
 * A request's URI, read once per request: Hono parses the whole query string again on every
 * `c.req.query()` call, and a search asks for several parameters on its way through.
 */
import type { Context } from 'hono';

const QUERY = 'uriParams';
const PATH = 'uriPath';

/** The URI parameters, each by its first value (as `c.req.query()` gives them), parsed on first use. */
export function queryOf(c: Context): Record<string, string> {
  let query = c.get(QUERY as never) as Record<string, string> | undefined;
  if (query === undefined) c.set(QUERY as never, (query = c.req.query()) as never);
  return query;
}

/** The path as sent (percent-encoding kept), as Elasticsearch names a request in its errors. */
export function pathOf(c: Context): string {
  let path = c.get(PATH as never) as string | undefined;
  if (path === undefined) c.set(PATH as never, (path = plainPath(c.req.url) ?? new URL(c.req.url).pathname) as never);
  return path;
}

/**
 * The path of an absolute URL when the URL parser would give it back unchanged: only characters a
 * path keeps as they are, and no dot segment (`.`, `..`, or their `%2e` forms) to resolve. Else
 * undefined, and the parser decides (`new URL` costs a few microseconds a request).
 */
export function plainPath(url: string): string | undefined {
  const scheme = url.indexOf('://');
  const start = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  if (start < 0) return undefined;
  let end = url.indexOf('?', start);
  if (end < 0) end = url.length;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  const path = url.slice(start, end);
  return PLAIN_PATH.test(path) && !path.includes('/.') && !/%2e/i.test(path) ? path : undefined;
}

/** A path of characters the URL parser neither encodes nor rewrites (no backslash, space, quote, non-ASCII…). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
