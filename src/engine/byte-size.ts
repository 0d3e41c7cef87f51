/**
 * Elasticsearch's byte sizes (`ByteSizeValue`, as in 8.x): a size read from a setting
 * ({@link parseByteSize}), a size written for people (`?human`, breaker messages, `_cat` cells:
 * {@link formatByteSize}), and a size in whole units for `_cat`'s `bytes=` ({@link inUnit}), all over
 * one table of units in powers of 1024.
 *
 * @example
 * parseByteSize('http.max_content_length', '100mb') // 104857600
 * parseByteSize('indices.breaker.total.limit', '1.5K') // 1536
 * formatByteSize(2007) // '1.9kb': one decimal, cut rather than rounded
 * inUnit(230_708, 'kb') // 225
 */
import { illegalArgument } from './errors.ts';

/** Each unit name a size may be given in, and its power of 1024. */
const UNITS: ReadonlyMap<string, number> = new Map([
  ['b', 0],
  ['k', 1],
  ['kb', 1],
  ['m', 2],
  ['mb', 2],
  ['g', 3],
  ['gb', 3],
  ['t', 4],
  ['tb', 4],
  ['p', 5],
  ['pb', 5],
]);

/** How a size is written, by power of 1024. */
const SUFFIXES = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];

/** Java's `Long.parseLong`. */
const INTEGER = /^[+-]?\d+$/;
/** Java's `Double.parseDouble`, for decimal numbers (its NaN, Infinity and hexadecimal forms are not sizes here). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/;
/** Past a Java long's largest value: ES holds sizes in bytes as one. */
const LONG_BOUND = 2n ** 63n;

/**
 * The bytes that a setting's value names, read as `ByteSizeValue.parseBytesSizeValue` reads it: a
 * number and a unit from {@link UNITS}, in any case, with spaces around either, or `0` or `-1`
 * alone. -1 (also `-1b`) is ES's "no size"; a setting that cannot take it refuses it. Bytes are a
 * whole number; the other units also take a fraction, and the product is cut to whole bytes.
 */
export function parseByteSize(setting: string, text: string): number {
  if (text === '0') return 0;
  if (text === '-1') return -1;
  const lower = text.toLowerCase().trim();
  const unit = /(?:[kmgtp]b?|b)$/.exec(lower)?.[0];
  if (unit === undefined) throw illegalArgument(`failed to parse setting [${setting}] with value [${text}] as a size in bytes: unit is missing or unrecognized`);
  const number = lower.slice(0, -unit.length).trim();
  const power = UNITS.get(unit)!;
  const scale = 1024 ** power;
  const notANumber = () => illegalArgument(`failed to parse setting [${setting}] with value [${text}]`);
  const outOfRange = () => illegalArgument(`failed to parse setting [${setting}] with value [${text}] as a size in bytes`);
  const whole = INTEGER.test(number) ? BigInt(number) : undefined;
  if (whole !== undefined && whole >= -LONG_BOUND && whole < LONG_BOUND) {
    // A whole number of units (a long): -1 only in bytes, nothing below, and nothing past a long.
    if (whole < -1n || (whole === -1n && power > 0) || whole * BigInt(scale) >= LONG_BOUND) throw outOfRange();
    return Number(whole * BigInt(scale));
  }
  if (power === 0 || !DECIMAL.test(number)) throw notANumber();
  // Java's cast of the product to a long: toward zero, and held at the long's bounds.
  const bound = Number(LONG_BOUND);
  const bytes = Math.trunc(Math.max(-bound, Math.min(Number(number) * scale, bound)));
  if (bytes < -1) throw outOfRange();
  return bytes === 0 ? 0 : bytes;
}

/**
 * Bytes as `ByteSizeValue.toString` writes them: in the largest unit of which there is at least one,
 * with one decimal, cut rather than rounded, and none when it is 0 (`Strings.format1Decimals`):
 * 2007 → `1.9kb`, 1536 → `1.5kb`, 1024 → `1kb`, 1023 → `1023b`, 0 → `0b`.
 */
export function formatByteSize(bytes: number): string {
  let power = 0;
  while (power < SUFFIXES.length - 1 && bytes >= 1024 ** (power + 1)) power++;
  // format1Decimals cuts the text of Java's Double.toString after the first decimal. JavaScript's
  // String gives the same shortest decimal that reads back as the number, without an exponent for
  // any size a long holds, so the digits kept are the same.
  const text = String(bytes / 1024 ** power);
  const point = text.indexOf('.');
  const kept = point < 0 ? text : text[point + 1] === '0' ? text.slice(0, point) : text.slice(0, point + 2);
  return kept + SUFFIXES[power];
}

/**
 * Bytes in whole units of `unit`, named exactly as {@link UNITS} names it (`_cat`'s `bytes=`, which
 * ES matches case by case), cut as `ByteSizeValue.getKb()` and its siblings cut; undefined for a name
 * that is not a unit.
 */
export function inUnit(bytes: number, unit: string): number | undefined {
  const power = UNITS.get(unit);
  return power === undefined ? undefined : Math.trunc(bytes / 1024 ** power);
}
