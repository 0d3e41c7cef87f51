import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceCache } from '../../src/store/source-cache.ts';

const bytesOf = (text: string) => new TextEncoder().encode(text);
const textOf = (bytes: Uint8Array | undefined) => bytes && new TextDecoder().decode(bytes);

describe('SourceCache', () => {
  it('keeps a source from its start, and gives back the same bytes until it is let go', () => {
    const cache = new SourceCache(1 << 20);
    const stored = bytesOf('head{"n":1}');
    const kept = cache.keep('u', 2, 41, stored, 4);
    stored.fill(0); // storage's read buffer is reused by the next read
    expect(textOf(kept)).toBe('{"n":1}');
    expect(cache.get('u', 2, 41)).toBe(kept);
    expect([cache.get('u', 2, 40), cache.get('u', 1, 41), cache.get('v', 2, 41)]).toEqual([undefined, undefined, undefined]);
    cache.forget('u');
    expect(cache.get('u', 2, 41)).toBeUndefined();
  });

  it('holds at most its budget, keeps what is read again, and lets the least recent go first', () => {
    const budget = 64 * 1024;
    const cache = new SourceCache(budget);
    const source = (seq: number) => bytesOf(JSON.stringify({ seq, pad: 'x'.repeat(1000) }));
    // Seq 0 is read again after each new one; the others only once.
    for (let seq = 1; seq <= 200; seq++) {
      cache.get('u', 0, 0) ?? cache.keep('u', 0, 0, source(0), 0);
      cache.keep('u', 0, seq, source(seq), 0);
      expect(cache.bytes).toBeLessThanOrEqual(budget);
    }
    expect(textOf(cache.get('u', 0, 0))).toBe(textOf(source(0)));
    expect(textOf(cache.get('u', 0, 200))).toBe(textOf(source(200)));
    expect(cache.get('u', 0, 1)).toBeUndefined();
  });

  it('hands out a copy of its own of a source too large to keep, and keeps nothing of it', () => {
    const cache = new SourceCache(16 * 1024);
    const stored = bytesOf('y'.repeat(2000));
    const copy = cache.keep('u', 0, 1, stored, 0);
    stored.fill(0);
    expect(textOf(copy)).toBe('y'.repeat(2000));
    expect([cache.get('u', 0, 1), cache.bytes]).toEqual([undefined, 0]);
  });

  it('never writes over a view it handed out, through many slabs and generations', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 40 }), fc.string({ maxLength: 300 })), { maxLength: 300 }), (reads) => {
        const cache = new SourceCache(32 * 1024);
        const handed: [Uint8Array, string][] = [];
        for (const [seq, text] of reads) {
          const kept = cache.get('u', 0, seq) ?? cache.keep('u', 0, seq, bytesOf(`${seq}:${text}`), 0);
          handed.push([kept, textOf(kept)!]);
        }
        for (const [view, text] of handed) expect(textOf(view)).toBe(text);
      }),
    );
  });
});
