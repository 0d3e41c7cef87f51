/**
 * The atoms of hostile requests: parameter values (valid ones mixed in, so that some requests
 * succeed), strings with odd Unicode, and the two encoders that put them on the wire as written:
 * URI parts percent-encoded byte by byte (a lone surrogate as its WTF-8 bytes, %ED%A0%80), and JSON
 * text that may hold what JSON.stringify never writes (duplicate keys, number literals such as
 * 1e400, raw fragments).
 */
import fc from 'fast-check';

/**
 * Picks `valid` or `hostile` values, hostile ones with probability `rate`. Each request draws one
 * rate (requests.ts), so runs hold fully valid requests, requests broken in one place, and requests
 * broken everywhere.
 */
export function mix<T>(rate: number, valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>): fc.Arbitrary<T> {
  if (rate === 0) return valid;
  return fc.oneof({ arbitrary: valid, weight: Math.round((1 - rate) * 100) }, { arbitrary: hostile, weight: Math.round(rate * 100) });
}

/** {@link mix} over two lists of constants. */
export function pick<T>(rate: number, valid: readonly T[], hostile: readonly T[]): fc.Arbitrary<T> {
  return mix(rate, fc.constantFrom(...valid), fc.constantFrom(...hostile));
}

export const VALID_INTS = ['0', '1', '2', '5', '10'];
/** Ints ES refuses: signs, fractions, int and double overflow, spaces, words. */
export const HOSTILE_INTS = [
  '-1', '-0', '+1', '', ' 1', '1 ', '1.5', '0.5', '1e3', '1e400', '-1e400', 'NaN', 'Infinity', '-Infinity',
  '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967296', '9007199254740991', '9007199254740993', '99999999999999999999',
  '0x10', '010', '\uFF11', 'abc', 'null', 'true', '[]', '1,2', '%00', `${'1'.repeat(5000)}x`,
];

/** Patterns a backtracking matcher takes exponential time to refuse. */
export const MANY_STARS = `${'*a'.repeat(30)}*b`;

/** Short keep-alives: contexts opened by valid requests expire within the run, as they would be closed by a client. */
export const VALID_TIMES = ['1s', '500ms', '2s'];
export const HOSTILE_TIMES = [
  '0', '0s', '-1', '-2s', '1.5m', '1e400s', '1x', '', 's', '5', '9223372036854775807ms', '9223372036854775808nanos', '99999999999d', 'NaN',
  '-0s', '1 m', '1M', '\uFF11m', '1d', '1000000h',
];

export const VALID_BOOLS = ['true', 'false', ''];
export const HOSTILE_BOOLS = ['TRUE', 'True', '1', '0', 'yes', 'off', 'null', 'tru'];

/** Strings a field name, an id, a routing value or a query may hold: plain, empty, long, odd Unicode, control characters. */
export const ODD_STRINGS = [
  'a', 'tag', 'n', '', ' ', '_id', '_source', '_index', '__proto__', 'constructor', 'toString', '.', '..', 'a.b', 'a..b', '.a', 'a.',
  '*', '?', '\\', '"', "'", '/', ',', '#', '%', '&', '=', '+', ':', '\u0000', '\u0001', '\n', '\r\n', '\t', '\u007f',
  'é', 'É', 'İ', 'ß', '\u00e9\u0301', '\u202e', '\ufeff', '\uffff', '\ufffd', '😀', '👩‍👩‍👧', '\ud800', '\udc00', '\udbff\udfff',
  'x'.repeat(256), 'x'.repeat(600), 'é'.repeat(300), '😀'.repeat(200),
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_STRINGS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 1 },
);

/** Each byte of the text's UTF-8 (WTF-8 for a lone surrogate, which TextEncoder would replace), percent-encoded unless unreserved. */
export function percentEncode(text: string, keep = /[A-Za-z0-9\-_.~]/): string {
  let out = '';
  for (const char of text) {
    if (keep.test(char)) out += char;
    else for (const byte of wtf8(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** One code point (or lone surrogate) as bytes. */
function wtf8(char: string): number[] {
  const cp = char.codePointAt(0)!;
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/** A URI part as sent: percent-encoded, or with a few reserved characters left as they are, or bytes no UTF-8 decoder takes. */
export function uriPart(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(percentEncode(text)), weight: 6 },
    // `:`, `*`, `,`, `@`, `!` and `+` raw, as curl sends them.
    { arbitrary: fc.constant(percentEncode(text, /[A-Za-z0-9\-_.~:*,@!+]/)), weight: 2 },
    { arbitrary: fc.constant(percentEncode(text, /[A-Za-z]/)), weight: 1 },
  );
}

/** Percent-escapes that are not UTF-8 or not escapes at all. */
export const BROKEN_ESCAPES = ['%FF', '%C3', '%C3%28', '%ED%A0%80', '%ED%BF%BF', '%C0%AF', '%F4%90%80%80', '%', '%2', '%zz', '%00', '%25', '%E2%82'];

/** JSON text written as is: a number literal JSON.stringify would never write, or a fragment. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object whose entries are written in order, duplicate keys included. */
export class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

/** Number literals at and beyond the edges: int32, 2^53, double, negative zero, underflow. */
export const NUMBER_LITERALS = [
  '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740992', '9007199254740993', '-9007199254740993',
  '9223372036854775807', '9223372036854775808', '123456789012345678901234567890', '1e308', '1e309', '1e400', '-1e400',
  '1e-400', '-0', '-0.0', '0.1e1', '1E2', '4.9e-324', '1.7976931348623157e308',
];

/** JSON text for values that may hold {@link Raw} fragments and {@link Entries}. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** A JSON value of any type, small, with odd strings and edge numbers: what a field of the wrong type gets. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(0, 1, -1, 1.5, -0.5, 10, 2147483648, 1e21),
    fc.constantFrom(...NUMBER_LITERALS).map((text) => new Raw(text)),
    oddString,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(oddString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** A value nested `depth` levels deep in arrays or objects (how a parser's stack is tested). */
export function deeplyNested(depth: number, kind: 'array' | 'object', inner: string = '1'): Raw {
  return kind === 'array' ? new Raw(`${'['.repeat(depth)}${inner}${']'.repeat(depth)}`) : new Raw(`${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`);
}

export const DEPTHS = [64, 1_000, 10_000, 100_000];
