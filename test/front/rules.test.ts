/** The front's two rules on their own: which header fields are hop-by-hop, and which requests are reads. */
import { describe, expect, it } from 'vitest';
import { endToEnd } from '../../src/front/hop-by-hop.ts';
import { isRead } from '../../src/front/read-only.ts';

describe('endToEnd', () => {
  it("drops RFC 9110 §7.6.1's fields and those Connection names, keeping case, order and repeats", () => {
    const raw = ['Accept', '*/*', 'Connection', 'Keep-Alive, X-Trace', 'Keep-Alive', 'timeout=5', 'X-Trace', '1', 'Proxy-Authorization', 'x', 'Proxy-Connection', 'close',
      'TE', 'trailers', 'Trailer', 'X-Sum', 'Transfer-Encoding', 'chunked', 'Upgrade', 'h2c', 'x-a', '1', 'X-A', '2', 'Authorization', 'Basic eA=='];
    expect(endToEnd(raw)).toEqual(['Accept', '*/*', 'x-a', '1', 'X-A', '2', 'Authorization', 'Basic eA==']);
    expect(endToEnd(['Host', 'a', 'Expect', '100-continue', 'X', 'y'], new Set(['host', 'expect']))).toEqual(['X', 'y']);
  });
});

describe('isRead', () => {
  it.each([
    ['GET', '/books/_doc/1', true], ['HEAD', '/books', true],
    ['POST', '/_search', true], ['POST', '/books,other/_search?q=a', true], ['POST', '/books/_count', true], ['POST', '/_msearch', true],
    ['POST', '/_mget', true], ['POST', '/books/_search/template', true], ['POST', '/_msearch/template', true], ['POST', '/books/_validate/query', true],
    ['POST', '/books/_explain/1', true], ['POST', '/books/_termvectors/1', true], ['POST', '/_field_caps', true],
    ['POST', '/_search/scroll', false], ['POST', '/books/_pit', false], ['POST', '/books/_doc', false], ['POST', '/_bulk', false],
    ['POST', '/books/_update/1', false], ['POST', '/books/_delete_by_query', false], ['POST', '/template', false],
    ['PUT', '/books', false], ['DELETE', '/books', false], ['POST', '/', false],
  ])('%s %s: %s', (method, path, read) => {
    expect(isRead(method, path)).toBe(read);
  });
});
