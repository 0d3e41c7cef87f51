import fc from 'fast-check';
import { TrieRouter } from 'hono/router/trie-router';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoRouter } from '../../src/http/route-memo.ts';
import { testApp } from './app-helpers.ts';

const t = testApp();
afterAll(() => t.close());

/** Every route the app has, as routers are given them (handlers named by their route). */
const ROUTES = t.app.routes.map((r) => [r.method, r.path] as const);

function routers() {
  const memo = new MemoRouter<string>(), trie = new TrieRouter<string>();
  for (const [method, path] of ROUTES) {
    memo.add(method, path, `${method} ${path}`);
    trie.add(method, path, `${method} ${path}`);
  }
  return { memo, trie };
}

const segment = fc.oneof(fc.constantFrom('_search', '_doc', '_bulk', '_cat', 'indices', '_alias', '_mapping', '_count', '_pit', '_refresh', 'cities', '_all', '*'), fc.stringMatching(/^[a-z0-9_%.-]{1,12}$/));
const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD');

describe('MemoRouter', () => {
  it("answers every request as Hono's trie router does, asked once or again, past the number it keeps", () => {
    const { memo, trie } = routers();
    fc.assert(
      fc.property(fc.array(fc.tuple(method, path), { minLength: 1, maxLength: 60 }), (asks) => {
        for (const [m, p] of [...asks, ...asks]) expect(memo.match(m, p)).toEqual(trie.match(m, p));
      }),
      { numRuns: 100 },
    );
    // More distinct paths than it keeps, then the first ones again.
    for (let i = 0; i < 3000; i++) expect(memo.match('GET', `/i${i}/_doc/${i}`)).toEqual(trie.match('GET', `/i${i}/_doc/${i}`));
    expect(memo.match('GET', '/i0/_doc/0')).toEqual(trie.match('GET', '/i0/_doc/0'));
  });

  it('forgets what it kept when a route is added', () => {
    const memo = new MemoRouter<string>();
    memo.add('GET', '/:index', 'index');
    expect(memo.match('GET', '/_stats')[0].map(([h]) => h)).toEqual(['index']);
    memo.add('GET', '/_stats', 'stats');
    expect(memo.match('GET', '/_stats')[0].map(([h]) => h)).toEqual(['index', 'stats']);
  });

  it('serves a path longer than it keeps', () => {
    const { memo, trie } = routers();
    const long = `/${'x'.repeat(300)}/_doc/1`;
    expect(memo.match('GET', long)).toEqual(trie.match('GET', long));
  });

  it('routes the app', async () => {
    expect((await t.json('GET', '/')).status).toBe(200);
    expect((await t.json('GET', '/missing/_search')).body.error.type).toBe('index_not_found_exception');
  });
});
