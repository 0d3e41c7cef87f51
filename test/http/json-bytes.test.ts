import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../src/http/json-bytes.ts';

const written = (write: (out: JsonBytes) => void, capacity?: number) => {
  const out = new JsonBytes(capacity);
  write(out);
  return out.take().toString('utf8');
};

describe('JsonBytes', () => {
  it('writes any string as JSON.stringify does, escapes and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }), (any, ascii) => {
        expect(written((out) => out.string(any))).toBe(JSON.stringify(any));
        expect(written((out) => out.string(ascii))).toBe(JSON.stringify(ascii));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes any number as JSON.stringify does', () => {
    const integers = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.integer(), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 53 - 1, 2 ** 53, 2 ** 64, -0));
    fc.assert(
      fc.property(fc.oneof(integers, fc.double()), (value) => {
        expect(written((out) => out.number(value))).toBe(JSON.stringify(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('grows past its first capacity without losing what was written, short and long copies alike', () => {
    const long = Buffer.from('x'.repeat(1000));
    const short = Buffer.from(',"k":');
    const text = written((out) => {
      for (let i = 0; i < 300; i++) {
        out.raw(i % 10 === 0 ? long : short);
        out.number(i);
        out.text('é😀');
        out.ascii('|');
      }
    }, 8);
    let expected = '';
    for (let i = 0; i < 300; i++) expected += `${i % 10 === 0 ? 'x'.repeat(1000) : ',"k":'}${i}é😀|`;
    expect(text).toBe(expected);
  });
});
