/**
 * Byte sizes as Elasticsearch's ByteSizeValue reads and writes them: the cases of its own tests
 * (ByteSizeValueTests) and reference pages, and properties over sizes of every unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatByteSize, inUnit, parseByteSize } from '../../src/engine/byte-size.ts';

const SUFFIXES = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];
const NAMES = [['b'], ['k', 'kb'], ['m', 'mb'], ['g', 'gb'], ['t', 'tb'], ['p', 'pb']];
const parse = (text: string) => parseByteSize('test', text);
const reason = (text: string) => {
  try {
    parse(text);
  } catch (error) {
    return (error as { reason: string }).reason;
  }
  throw new Error(`${text} parsed`);
};

describe('formatByteSize', () => {
  it("writes ES's examples: the largest unit reached, one decimal cut rather than rounded, none when 0", () => {
    expect([10, 1536, 1536 * 1024, 1536 * 1024 ** 2, 1536 * 1024 ** 3, 1536 * 1024 ** 4, 1536 * 1024 ** 5].map(formatByteSize)).toEqual(['10b', '1.5kb', '1.5mb', '1.5gb', '1.5tb', '1.5pb', '1536pb']);
    // 2007 bytes are 1.959kb: ES writes 1.9kb, where rounding would give 2kb.
    expect([0, 1, 1023, 1024, 2007, 2047, 1024 ** 2 - 1].map(formatByteSize)).toEqual(['0b', '1b', '1023b', '1kb', '1.9kb', '1.9kb', '1023.9kb']);
    // The decimal is cut from Java's shortest text for the quotient: this size is the double nearest
    // 4.1 pebibytes, a hair below it, and Double.toString (as String here) writes it 4.1.
    expect(formatByteSize(4616189618054758)).toBe('4.1pb');
  });

  it('writes any size as its whole units and tenths, cut', () => {
    // Below 2^51 bytes a size's tenths are never close enough to the next tenth for the shortest
    // decimal of the quotient to round up to it, so the exact tenths are what Java writes.
    const size = fc
      .record({ power: fc.integer({ min: 1, max: 5 }), whole: fc.integer({ min: 1, max: 1023 }), tenth: fc.integer({ min: 0, max: 9 }), within: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) })
      .filter(({ power, whole }) => (whole + 1) * 1024 ** power < 2 ** 51);
    fc.assert(
      fc.property(size, ({ power, whole, tenth, within }) => {
        const scale = 1024 ** power;
        const low = Math.ceil(((whole * 10 + tenth) * scale) / 10), high = Math.ceil(((whole * 10 + tenth + 1) * scale) / 10);
        const bytes = low + Math.floor(within * (high - low));
        expect(formatByteSize(bytes)).toBe(`${whole}${tenth === 0 ? '' : `.${tenth}`}${SUFFIXES[power]}`);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1023 }), (bytes) => {
        expect(formatByteSize(bytes)).toBe(`${bytes}b`);
      }),
    );
  });
});

describe('parseByteSize', () => {
  it("reads ES's examples: any case, spaces before the unit, 1024 to a unit", () => {
    for (const [texts, written] of [
      [['42PB', '42 PB', '42pb', '42 pb', '42P', '42 P', '42p', '42 p'], '42pb'],
      [['54TB', '54 TB', '54tb', '54 tb', '54T', '54 T', '54t', '54 t'], '54tb'],
      [['12GB', '12 GB', '12gb', '12 gb', '12G', '12 G', '12g', '12 g'], '12gb'],
      [['12M', '12 M', '12m', '12 m', '12mb'], '12mb'],
      [['23KB', '23 KB', '23kb', '23 kb', '23K', '23 K', '23k', '23 k'], '23kb'],
      [['1B', '1 B', '1b', '1 b'], '1b'],
    ] as const) {
      for (const text of texts) expect(formatByteSize(parse(text)), text).toBe(written);
    }
    expect(['1GB', '1024MB', '1048576KB', '1073741824B'].map(parse)).toEqual(Array(4).fill(1024 ** 3));
    expect([parse('4pb'), parse('4tb'), parse('4gb')]).toEqual([4503599627370496, 4398046511104, 4294967296]);
  });

  it('reads 0 and -1 without a unit, and fractions of units other than bytes, cut to whole bytes', () => {
    expect(['0', '0b', '0B', '-1', '-1b', '-1B'].map(parse)).toEqual([0, 0, 0, -1, -1, -1]);
    expect(formatByteSize(parse('23.5kb'))).toBe('23.5kb');
    expect([parse('0.5gb'), parse('.5g'), parse('1.1kb'), parse('1e3k')]).toEqual([1024 ** 3 / 2, 1024 ** 3 / 2, 1126, 1024000]);
  });

  it('refuses in ES words: a missing or unknown unit, a number it cannot read, a size out of range', () => {
    for (const text of ['23', '', ' 0 ', '23jw', '42b.', '5 bytes']) expect(reason(text)).toBe(`failed to parse setting [test] with value [${text}] as a size in bytes: unit is missing or unrecognized`);
    for (const text of ['g', 'kb', '1.5b', 'onekb', '1..5mb']) expect(reason(text)).toBe(`failed to parse setting [test] with value [${text}]`);
    for (const text of ['-2b', '-1kb', '-0.5mb', '9223372036854775807kb']) expect(reason(text)).toBe(`failed to parse setting [test] with value [${text}] as a size in bytes`);
  });

  it('reads back what it is given in whole units, under any name and case of the unit', () => {
    const given = fc.record({ n: fc.integer({ min: 0, max: 1023 }), power: fc.integer({ min: 0, max: 5 }), name: fc.nat(1), upper: fc.boolean(), space: fc.constantFrom('', ' ', '  ') });
    fc.assert(
      fc.property(given, ({ n, power, name, upper, space }) => {
        const unit = NAMES[power][name % NAMES[power].length];
        const bytes = parse(`${n}${space}${upper ? unit.toUpperCase() : unit}`);
        expect(bytes).toBe(n * 1024 ** power);
        expect(formatByteSize(bytes)).toBe(n === 0 ? '0b' : `${n}${SUFFIXES[power]}`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('inUnit', () => {
  it("gives whole units under each unit's exact name, as _cat's bytes= does, and nothing for another name", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.integer({ min: 0, max: 5 }), (bytes, power) => {
        for (const name of NAMES[power]) expect(inUnit(bytes, name)).toBe(Math.floor(bytes / 1024 ** power));
      }),
    );
    expect(['KB', 'Kb', 'bytes', 'kib', ''].map((name) => inUnit(230_708, name))).toEqual(Array(5).fill(undefined));
  });
});
