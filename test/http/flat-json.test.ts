/**
 * The fast path for action lines (src/http/flat-json.ts) against `JSON.parse`, the reference: for
 * any text it either gives up or gives exactly what `JSON.parse` gives (values, key order, -0), and
 * it does not give up on the plain action lines it is for.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatJson, startsAsAction } from '../../src/http/flat-json.ts';
import { parseNdjson } from '../../src/http/body.ts';

const read = (text: string) => {
  const bytes = Buffer.from(`${text}\n`);
  return flatJson(bytes, 0, bytes.length - 1);
};

/** Same as JSON.parse's value: deep equality, the same key order at every level, -0 kept. */
function expectSameAsParse(text: string): void {
  const fast = read(text);
  if (fast === undefined) return;
  const parsed = JSON.parse(text) as unknown;
  expect(fast).toStrictEqual(parsed);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed));
  expect(Object.getPrototypeOf(fast)).toBe(Object.prototype);
}

const plainString = fc.stringMatching(/^[ -!#-[\]-~]{0,12}$/);
const plainScalar = fc.oneof(plainString, fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), fc.boolean(), fc.constant(null), fc.constant(-0));
const plainName = fc.oneof(fc.constantFrom('_index', '_id', 'routing', 'version', 'if_seq_no', 'require_alias', 'index'), plainString).filter((name) => name !== '__proto__');
const metadata = fc.dictionary(plainName, plainScalar, { maxKeys: 5 });
const actionLine = fc.record({ action: fc.constantFrom('index', 'create', 'update', 'delete'), metadata });
/** Whitespace JSON allows between tokens. */
const spacing = fc.constantFrom(undefined, 1, '\t', ' \r ');

describe('flatJson', () => {
  it('gives what JSON.parse gives, or gives up, for any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), spacing, (value, space) => expectSameAsParse(JSON.stringify(value, null, space))),
      { numRuns: 2000 },
    );
  });

  it('reads every plain action line, as JSON.parse does', () => {
    fc.assert(
      fc.property(actionLine, spacing, ({ action, metadata }, space) => {
        const text = JSON.stringify({ [action]: metadata }, null, space);
        expect(read(text)).toBeDefined();
        expectSameAsParse(text);
        const compact = JSON.stringify({ [action]: metadata });
        expect(startsAsAction(Buffer.from(compact), 0, compact.length)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives up on what is not plain, and on what is not JSON', () => {
    for (const text of [
      '{"index":{"_id":"a\\"b"}}', // an escape
      '{"index":{"_id":"é"}}', // not ASCII
      '{"index":{"version":1.5}}',
      '{"index":{"version":1e3}}',
      '{"index":{"version":0123}}',
      '{"index":{"version":1234567890123456}}', // sixteen digits
      '{"index":{"_id":["a"]}}',
      '{"a":{"b":{"c":1}}}', // three levels
      '{"__proto__":{"_id":"1"}}',
      '{"index":{"__proto__":1}}',
      '{"index":{"_id":"1"}', // unclosed
      '{"index":{"_id":"1"}} x',
      '{"index":{"_id":"1",}}',
      '{"index":{"_id" "1"}}',
      '{"index":{"_id":-}}',
      '{"index":{"_id":tru}}',
      '[1]',
      '"index"',
    ]) {
      expect(read(text), text).toBeUndefined();
    }
  });

  it('keeps JSON.parse\'s rules where they are easy to miss', () => {
    // A repeated name: the last value, at the first one's place.
    expect(read('{"index":{"_id":"1","routing":"r","_id":"2"}}')).toStrictEqual({ index: { _id: '2', routing: 'r' } });
    expect(Object.keys(read('{"index":{"_id":"1","routing":"r","_id":"2"}}')!.index as object)).toEqual(['_id', 'routing']);
    expect(Object.is((read('{"a":-0}') as { a: number }).a, -0)).toBe(true);
    expect(read(' \t{ "index" : { } } \r')).toStrictEqual({ index: {} });
    expect(read('{"index":{"n":999999999999999,"m":-999999999999999,"t":true,"f":false,"z":null}}')).toStrictEqual({ index: { n: 999999999999999, m: -999999999999999, t: true, f: false, z: null } });
  });
});

describe('startsAsAction', () => {
  it('tells action lines by their first name', () => {
    const starts = (text: string) => startsAsAction(Buffer.from(text), 0, text.length);
    expect(starts('{"index":{}}')).toBe(true);
    expect(starts('{"delete":{"_id":"1"}}')).toBe(true);
    expect(starts('{"indexes":{}}')).toBe(false);
    expect(starts('{"price":1}')).toBe(false);
    expect(starts('{ "index":{}}')).toBe(false);
    expect(starts('{"index')).toBe(false);
  });
});

describe('NDJSON lines through the fast path', () => {
  it('are the values JSON.parse gives, and malformed action lines fail as before', () => {
    const body = '{"index":{"_index":"items","_id":"i1"}}\n{"price":1.5,"category":"books"}\n{"delete":{"_id":"i2"}}\n';
    expect(parseNdjson(body).map((line) => line.value)).toStrictEqual(body.trim().split('\n').map((line) => JSON.parse(line)));
    expect(() => parseNdjson('{"index":{"_id":"1"}\n')).toThrow(/x_content_parse_exception|Unexpected end-of-input/);
  });
});
