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
  if (path === undefined) c.set(PATH as never, (path = new URL(c.req.url).pathname) as never);
  return path;
}
