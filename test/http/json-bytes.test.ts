import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes, Slab } from '../../src/http/json-bytes.ts';

/** One slab for every writer here, as an app has. */
const slab = new Slab();
const written = (write: (out: JsonBytes) => void, capacity?: number) => {
  const out = new JsonBytes(capacity, slab);
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
    const integers = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.integer(), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 10 ** 15, 10 ** 16, 2 ** 53 - 1, 2 ** 53, 2 ** 64, -0));
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

  it('writes a part written before again', () => {
    const text = written((out) => {
      const start = out.length;
      out.text('{"_index":"città"');
      const end = out.length;
      out.ascii('},');
      out.again(start, end);
      out.ascii('}');
    });
    expect(text).toBe('{"_index":"città"},{"_index":"città"}');
  });

  it('without a slab, writes into a buffer of its own', () => {
    const out = new JsonBytes(4);
    out.ascii('{"n":');
    out.number(12);
    out.ascii('}');
    expect(out.take().toString()).toBe('{"n":12}');
  });

  it('gives back nothing of an answer taken while one opened after it is still being written', () => {
    const first = new JsonBytes(64, slab);
    const second = new JsonBytes(64, slab);
    first.ascii('12345678');
    expect(first.take().toString()).toBe('12345678');
    const third = new JsonBytes(64, slab);
    third.ascii('c'.repeat(64));
    second.ascii('b'.repeat(64));
    expect(second.take().toString()).toBe('b'.repeat(64));
    expect(third.take().toString()).toBe('c'.repeat(64));
  });

  it('never writes over the bytes of an answer taken earlier, however writers interleave, grow and give back', () => {
    // Several writers open at once (as list answers written over several passes of the loop are),
    // each writing, some past their first capacity; every answer taken keeps its bytes to the end.
    const op = fc.oneof(
      fc.record({ kind: fc.constant('open' as const), capacity: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constantFrom(32 * 1024, 40_000, 64 * 1024)) }),
      fc.record({ kind: fc.constant('write' as const), writer: fc.nat(3), text: fc.string({ maxLength: 24 }), repeat: fc.integer({ min: 1, max: 12 }) }),
      fc.record({ kind: fc.constant('take' as const), writer: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const open: { out: JsonBytes; expected: string }[] = [];
        const taken: { bytes: Buffer; expected: string }[] = [];
        for (const step of ops) {
          if (step.kind === 'open') open.push({ out: new JsonBytes(step.capacity, slab), expected: '' });
          else if (open.length > 0) {
            const at = step.writer % open.length;
            const writer = open[at];
            if (step.kind === 'write') {
              for (let i = 0; i < step.repeat; i++) writer.out.string(step.text);
              writer.expected += JSON.stringify(step.text).repeat(step.repeat);
            } else {
              taken.push({ bytes: writer.out.take(), expected: writer.expected });
              open.splice(at, 1);
            }
          }
          for (const answer of taken) expect(answer.bytes.toString('utf8')).toBe(answer.expected);
        }
        for (const writer of open) taken.push({ bytes: writer.out.take(), expected: writer.expected });
        for (const answer of taken) expect(answer.bytes.toString('utf8')).toBe(answer.expected);
      }),
      { numRuns: 300 },
    );
  });
});
