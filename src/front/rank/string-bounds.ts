/**
 * Strings between strings, in the order Elasticsearch sorts keywords: by code point (the order of
 * their UTF-8 bytes). The cold page's bisection of a keyword key (cold-page.ts) asks for a bound
 * between two it knows; any string strictly between them will do, one near the middle of the
 * code points where they first differ halves the space fastest.
 *
 * @example
 * between('apple', 'cherry') // 'b' (code point 98, halfway between 'a' and 'c')
 * between('a', 'a\u0000')    // undefined: nothing sorts between them
 */

const LAST_CODE_POINT = 0x10ffff;
/** Surrogate code points are not characters: a bound is never one. */
const SURROGATES = [0xd800, 0xdfff] as const;

/** A string that sorts strictly after `low` and before `high` (low < high), or undefined when none does. */
export function between(low: string, high: string): string | undefined {
  const found = pointsBetween(codePoints(low), codePoints(high));
  return found && String.fromCodePoint(...found);
}

function pointsBetween(a: number[], b: number[]): number[] | undefined {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === b.length) return undefined; // b is a prefix of a (or equal): a is not below b
  if (i === a.length) {
    // a is a proper prefix of b: a, then something below b's rest.
    const below = belowRest(b.slice(i));
    return below && [...a, ...below];
  }
  if (a[i] > b[i]) return undefined;
  if (b[i] - a[i] > 1) {
    const mid = character((a[i] + b[i]) >>> 1, a[i], b[i]);
    if (mid !== undefined) return [...a.slice(0, i), mid];
  }
  // Neighbouring code points: a itself, then anything, sorts after a and still before b.
  return [...a, LAST_CODE_POINT >>> 1];
}

/** A non-empty sequence sorting before `rest` (non-empty): undefined when rest is U+0000 alone. */
function belowRest(rest: number[]): number[] | undefined {
  if (rest[0] > 0) {
    const mid = character(rest[0] >>> 1, -1, rest[0]);
    return mid === undefined ? undefined : [mid];
  }
  // U+0000 first: U+0000 alone is a proper prefix of rest, so below it.
  return rest.length > 1 ? [0] : undefined;
}

/** `point`, moved off the surrogates, if it stays strictly between `low` and `high`. */
function character(point: number, low: number, high: number): number | undefined {
  let p = point;
  if (p >= SURROGATES[0] && p <= SURROGATES[1]) p = SURROGATES[0] - 1 > low ? SURROGATES[0] - 1 : SURROGATES[1] + 1;
  return p > low && p < high ? p : undefined;
}

function codePoints(text: string): number[] {
  return Array.from(text, (c) => c.codePointAt(0)!);
}
