import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainPath } from '../../src/http/request-uri.ts';

describe('plainPath', () => {
  it('gives a path exactly as the URL parser does, or leaves it to the parser', () => {
    const unit = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@%/\\ "<>`{}|^[]é😀?#\t'.split(''), '%2e', '%2E', '%20', '..', './', '/.', '%zz');
    let plain = 0;
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 16 }).map((parts) => `/${parts.join('')}`), (path) => {
        const url = `http://127.0.0.1:9200${path}`;
        const fast = plainPath(url);
        if (fast !== undefined) {
          plain++;
          expect(fast).toBe(new URL(url).pathname);
        }
      }),
      { numRuns: 5000 },
    );
    // The property says something only if the fast way is taken often.
    expect(plain).toBeGreaterThan(200);
  });

  it('takes the usual search paths without the parser', () => {
    for (const path of ['/', '/cities/_search', '/logs-*,-logs-old/_search', '/my%20index/_doc/a%2Fb', '/_cat/indices']) {
      expect(plainPath(`http://localhost:9200${path}?size=10&from=0#x`)).toBe(new URL(`http://localhost:9200${path}`).pathname);
    }
    expect(plainPath('http://localhost:9200/a/../b')).toBeUndefined();
    expect(plainPath('http://localhost:9200/a/%2e%2E/b')).toBeUndefined();
  });
});
