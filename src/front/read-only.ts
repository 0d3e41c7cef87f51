/**
 * Whether a request may be sent again to another host after it may already have reached one (it was
 * written, then the connection broke or was reset before a whole answer head came back). Only reads
 * are: sending a write twice could apply it twice, so a write is never retried after that point.
 *
 * Reads: GET and HEAD; a POST to an endpoint that only reads (its last path segment one of
 * {@link READ_ONLY_POSTS}, as `/{index}/_search` or `/_msearch/template`'s parent); nothing else.
 * `_search/scroll` is left out: a scroll moves forward with every call, so a call sent twice can
 * skip a batch. A `_pit` or `_async_search` POST opens state on the cluster and is not a read either.
 */

const READ_ONLY_POSTS = new Set(['_search', '_count', '_msearch', '_mget', '_field_caps', '_validate', '_explain', '_terms_enum', '_termvectors', '_mtermvectors', '_rank_eval', '_analyze']);

export function isRead(method: string, path: string): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  if (method !== 'POST') return false;
  const segments = path.split('?')[0].split('/').filter((s) => s !== '');
  const last = segments.at(-1);
  if (last === undefined) return false;
  // `/_search/template`, `/_msearch/template`, `/_validate/query`, `/{index}/_explain/{id}`, `/{index}/_termvectors/{id}`.
  if (last === 'template' || last === 'query') return segments.at(-2) === '_search' || segments.at(-2) === '_msearch' || segments.at(-2) === '_validate';
  if (segments.at(-2) === '_explain' || segments.at(-2) === '_termvectors') return true;
  return READ_ONLY_POSTS.has(last);
}
