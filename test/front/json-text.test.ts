/**
 * The front's JSON text tools against JSON.parse/JSON.stringify: spans of members and elements cut
 * any value's text exactly; integers beyond 2^53 survive a parse and a stringify digit for digit;
 * sort values compare as the cluster orders them (sort-order.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elements, members, parseExact, stringifyExact, valueEnd } from '../../src/front/json-text.ts';
import { compareCodePoints, compareValues, sortOrders } from '../../src/front/rank/sort-order.ts';

describe('JSON spans', () => {
  it('cut every member and element of any value as JSON.parse reads them, with or without white space', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()), fc.boolean(), (object, array, pretty) => {
        const text = JSON.stringify(object, null, pretty ? 2 : undefined);
        const found = members(text, 0);
        const read = JSON.parse(text) as Record<string, unknown>;
        expect(found.map((m) => m.key)).toEqual(Object.keys(read));
        for (const m of found) expect(JSON.parse(text.slice(m.start, m.end))).toEqual(read[m.key]);
        const list = JSON.stringify(array, null, pretty ? 1 : undefined);
        expect(elements(list, 0).map((e) => JSON.parse(list.slice(e.start, e.end)))).toEqual(JSON.parse(list));
        expect(valueEnd(` ${list}`, 0)).toBe(list.length + 1);
      }),
    );
  });
});

describe('exact integers', () => {
  it('keeps integers beyond 2^53 digit for digit through parseExact and stringifyExact, and parses the rest as JSON.parse does', () => {
    const big = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n });
    fc.assert(
      fc.property(fc.array(fc.oneof(big, fc.jsonValue())), (values) => {
        const text = `[${values.map((v) => (typeof v === 'bigint' ? String(v) : JSON.stringify(v))).join(',')}]`;
        const parsed = parseExact(text) as unknown[];
        values.forEach((v, i) => {
          if (typeof v === 'bigint') expect(stringifyExact(parsed[i])).toBe(String(v));
          else expect(JSON.parse(stringifyExact(parsed[i]))).toEqual(JSON.parse(JSON.stringify(v)));
        });
      }),
    );
    expect(stringifyExact(parseExact('{"q":{"term":{"n":9007199254740993}},"s":"9007199254740993"}'))).toBe('{"q":{"term":{"n":9007199254740993}},"s":"9007199254740993"}');
  });
});

describe('sort order', () => {
  it('orders strings by code point, which is UTF-8 byte order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });

  it('reads directions and missing placement from a sort, _score descending by default, then the tie-breaker', () => {
    expect(sortOrders([{ n: 'desc' }, 'k', '_score', { d: { order: 'asc', missing: '_first' } }])).toEqual([
      { desc: true, missingFirst: false },
      { desc: false, missingFirst: false },
      { desc: true, missingFirst: false },
      { desc: false, missingFirst: true },
      { desc: false, missingFirst: false },
    ]);
  });

  it('puts missing values first or last whatever the direction, and compares big integers exactly', () => {
    const desc = { desc: true, missingFirst: false };
    expect(compareValues(null, 5, desc)).toBe(1);
    expect(compareValues(null, 5, { desc: true, missingFirst: true })).toBe(-1);
    expect(compareValues(1, 2, desc)).toBe(1);
    expect(compareValues('\u00009223372036854775807', '\u00009223372036854775806', { desc: false, missingFirst: false })).toBe(1);
    expect(compareValues(-0, 0, { desc: false, missingFirst: false })).toBe(-1);
    expect(() => compareValues('a', 1, desc)).toThrow();
  });
});
