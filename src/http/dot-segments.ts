/**
 * `.` and `..` path segments, as sent (`/..`, `/%2e%2e`, `/a/../b`). The URL the app routes on has
 * them resolved away (WHATWG URL parsing), so `PUT /a/../b` would create index `b` and `PUT /..`
 * reach `/`. Elasticsearch takes them literally. deeppage refuses them instead of answering for
 * another resource: a first segment as ES refuses that index name, any later one as a path it has
 * no handler for (so a document id of `.` or `..` cannot be addressed).
 */
import { badRequest, EsError } from '../engine/errors.ts';
import { checkIndexName } from '../engine/index-names.ts';

const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** The error for a request target (Node's `req.url`, path and query) holding a dot segment; undefined for any other. */
export function dotSegmentError(target: string, method: string): EsError | undefined {
  const end = target.search(/[?#]/);
  const path = end < 0 ? target : target.slice(0, end);
  if (!DOT_SEGMENT.test(path)) return undefined;
  const first = path.split('/')[1].replace(/%2e/gi, '.');
  if (first === '.' || first === '..') {
    try {
      checkIndexName(first);
    } catch (error) {
      if (error instanceof EsError) return error;
      throw error;
    }
  }
  return badRequest('illegal_argument_exception', `no handler found for uri [${target}] and method [${method}]`);
}
