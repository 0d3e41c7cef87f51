/**
 * `_source` comes back byte for byte as it was sent, through `_search` and `GET`, before and after a
 * restart (a clean one, which flushes segments, and a crash, which replays): key order (integer-like
 * keys included, which a JavaScript object would move first), whitespace, Unicode escapes and
 * numbers no double can hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

/** JSON text with the spellings a parse-and-serialize would change. */
const spacing = fc.constantFrom('', ' ', '\n  ', '\t');
const scalar = fc.constantFrom('12345678901234567890', '-0.0', '1.0', '1e3', '0.1000', '"\\u00e9t\\u00E9"', '"caf\u00e9"', '"\\ud83d\\ude00"', '"a\\/b"', 'true', 'null', '"\\"quoted\\""');
const key = fc.constantFrom('"b"', '"a"', '"2"', '"10"', '"\\u0041"', '"n"');
const sourceText = fc.uniqueArray(key, { minLength: 1, maxLength: 5 }).chain((keys) =>
  fc.tuple(...keys.map((k) => fc.tuple(spacing, scalar, spacing).map(([s1, v, s2]) => `${s1}${k}${s2}:${s1}${v}`)), spacing).map(([...parts]) => {
    const end = parts.pop() as string;
    return `{${(parts as string[]).join(',')}${end}}`;
  }),
);

describe('_source as sent', () => {
  it('comes back byte for byte from _search and GET, before and after clean and crashed restarts', async () => {
    const samples = fc.sample(fc.uniqueArray(sourceText, { minLength: 20, maxLength: 20 }), { numRuns: 1, seed: 11 })[0];
    const { dir, remove } = tempDir();
    try {
      let server = await startServer({ dataDir: dir, port: 0 });
      const check = async (when: string) => {
        for (const [i, text] of samples.entries()) {
          const got = await (await fetch(`${server.url}/raw/_doc/${i}`)).text();
          expect(got, `${when}: GET ${i}`).toContain(`"_source":${text}}`);
        }
        const search = await (await fetch(`${server.url}/raw/_search?size=100&sort=_doc`)).text();
        for (const text of samples) expect(search, `${when}: _search`).toContain(`"_source":${text}`);
      };
      try {
        // Values of every type under one key: nothing is mapped, so no document conflicts with another.
        await fetch(`${server.url}/raw`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"mappings":{"dynamic":false}}' });
        // Half through PUT, half through _bulk.
        for (const [i, text] of samples.slice(0, 10).entries()) {
          const res = await fetch(`${server.url}/raw/_doc/${i}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
          expect(res.status, text).toBe(201);
        }
        const lines = samples.slice(10).map((text, i) => `{"index":{"_id":"${i + 10}"}}\n${text.replaceAll('\n', ' ')}\n`).join('');
        samples.splice(10, 10, ...samples.slice(10).map((text) => text.replaceAll('\n', ' ')));
        const bulk = await fetch(`${server.url}/raw/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
        expect(((await bulk.json()) as { errors: boolean }).errors).toBe(false);
        await check('written');
        await server.close();
        server = await startServer({ dataDir: dir, port: 0 });
        await check('after a clean restart');
        // Crash-like: the engine stops without flushing, so the next start replays the stored documents.
        await fetch(`${server.url}/raw/_doc/0`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: samples[0] });
        await server.engine.close({ flush: false });
        await server.close().catch(() => {});
        server = await startServer({ dataDir: dir, port: 0 });
        await check('after a crash');
      } finally {
        await server.close().catch(() => {});
      }
    } finally {
      remove();
    }
  });
});
