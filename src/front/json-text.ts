/**
 * JSON text read without losing what `JSON.parse` would round: the front keeps the cluster's bytes
 * wherever it passes them on (a long such as `9223372036854775807`, the missing value Elasticsearch
 * shows in a sort, is not a double), so it reads answers as spans of the original text and parses
 * only what it must, with integers beyond 2^53 kept as their digits.
 */

/** A value's place in a text: `text.slice(start, end)` is its JSON. */
export interface Span {
  start: number;
  end: number;
}

/** A member of an object: its key and its value's span. */
export interface Member extends Span {
  key: string;
}

/** Where the value starting at or after `at` (after white space) ends. */
export function valueEnd(text: string, at: number): number {
  let i = skipSpace(text, at);
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    throw new SyntaxError('unterminated JSON value');
  }
  // A number, true, false or null: up to the next delimiter.
  while (i < text.length && !DELIMITERS.has(text.charCodeAt(i))) i++;
  return i;
}

/** The members of the object whose `{` is at or after `at`, in order. */
export function members(text: string, at: number): Member[] {
  const out: Member[] = [];
  let i = skipSpace(text, at);
  if (text.charCodeAt(i) !== 0x7b) throw new SyntaxError(`expected an object at ${i}`);
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return out;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) throw new SyntaxError(`expected ':' at ${i}`);
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    out.push({ key, start, end });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === 0x7d) return out;
    if (text.charCodeAt(i) !== 0x2c) throw new SyntaxError(`expected ',' or '}' at ${i}`);
    i = skipSpace(text, i + 1);
  }
}

/** The elements of the array whose `[` is at or after `at`, in order. */
export function elements(text: string, at: number): Span[] {
  const out: Span[] = [];
  let i = skipSpace(text, at);
  if (text.charCodeAt(i) !== 0x5b) throw new SyntaxError(`expected an array at ${i}`);
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x5d) return out;
  for (;;) {
    const start = i;
    const end = valueEnd(text, start);
    out.push({ start, end });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === 0x5d) return out;
    if (text.charCodeAt(i) !== 0x2c) throw new SyntaxError(`expected ',' or ']' at ${i}`);
    i = skipSpace(text, i + 1);
  }
}

/** The member named `key` of the object at `at`, if any. */
export function member(text: string, at: number, key: string): Member | undefined {
  return members(text, at).find((m) => m.key === key);
}

/**
 * Marks an integer `JSON.parse` would round: {@link parseExact} gives it as this prefix and its
 * digits. A string in the text cannot hold a raw NUL (JSON escapes it), so the mark is unambiguous.
 */
export const EXACT_INTEGER = '\u0000';

/** `JSON.parse`, except that integers beyond 2^53 come back as {@link EXACT_INTEGER} + their digits. */
export function parseExact(text: string): unknown {
  // Only a number token (after '[', ',' or ':') of 16 digits or more can be one JSON.parse rounds.
  if (!/[[,:]\s*-?\d{16}/.test(text)) return JSON.parse(text);
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i) - 1;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    let end = i + 1;
    while (end < text.length && !DELIMITERS.has(text.charCodeAt(end))) end++;
    const token = text.slice(i, end);
    if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
      out += `${text.slice(from, i)}"\\u0000${token}"`;
      from = end;
    }
    i = end - 1;
  }
  return JSON.parse(out + text.slice(from));
}

/** The JSON text of a value {@link parseExact} gave: marked integers as their digits, -0 as `-0.0` (it sorts before 0). */
export function exactText(value: unknown): string {
  if (typeof value === 'string' && value.startsWith(EXACT_INTEGER)) return value.slice(1);
  if (Object.is(value, -0)) return '-0.0';
  return JSON.stringify(value);
}

/** `JSON.stringify`, with the integers {@link parseExact} kept as their digits written as numbers again. */
export function stringifyExact(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000') ? text.replace(/"\\u0000(-?\d+)"/g, '$1') : text;
}

const DELIMITERS = new Set([0x2c, 0x7d, 0x5d, 0x20, 0x0a, 0x0d, 0x09, 0x3a]);

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Where the string whose `"` is at `i` ends (after its closing quote). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  throw new SyntaxError('unterminated JSON string');
}
