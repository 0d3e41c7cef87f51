/**
 * How ES reads single values out of a request. URI parameters are strings parsed strictly, as
 * Java does (`Integer.parseInt`); body values are JSON coerced leniently, as ES's XContent parser
 * does (`"10"` and `10.7` are both the int 10). Every parameter parser in src/engine/request goes
 * through these, so the error strings exist once. Booleans, read four ways, have a module of their
 * own (../booleans.ts).
 */
import { badRequest, illegalArgument, parsingError, type EsError } from '../errors.ts';

export const INT_MIN = -(2 ** 31);
export const INT_MAX = 2 ** 31 - 1;

/** ES's name for the JSON token a value starts with, as its parse errors print it. */
export function tokenName(value: unknown): string {
  if (Array.isArray(value)) return 'START_ARRAY';
  if (value === null) return 'VALUE_NULL';
  switch (typeof value) {
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'START_OBJECT';
  }
}

/** A URI int parameter, as `RestRequest.paramAsInt`: optional sign, ASCII digits, within int32. */
export function intParam(name: string, value: string): number {
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= INT_MIN && n <= INT_MAX)) throw illegalArgument(`Failed to parse int parameter [${name}] with value [${value}]`);
  return n || 0; // "-0" is 0
}

/** A URI float parameter, as `RestRequest.paramAsFloat` (Java's `Float.parseFloat`). */
export function floatParam(name: string, value: string): number {
  if (!NUMERIC_STRING.test(value)) throw illegalArgument(`Failed to parse float parameter [${name}] with value [${value}]`);
  return Math.fround(Number(value));
}

/**
 * What Java's `Double.parseDouble` takes, minus hex and the spelled-out infinities. Written so that
 * a long run of digits has one way to match (`\d+\.?\d*` had n, and took seconds to refuse 30,000
 * digits and a letter).
 */
const NUMERIC_STRING = /^\s*[+-]?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A body int: a number (truncated toward zero) or a numeric string, within int32. */
export function bodyInt(name: string, value: unknown): number {
  const n = bodyNumber(name, value);
  if (n < INT_MIN || n > INT_MAX) {
    const shown = typeof value === 'string' ? value.trim() : String(value);
    throw badRequest('input_coercion_exception', `Numeric value (${shown}) out of range of int`);
  }
  return Math.trunc(n) || 0;
}

/** A float in a body (a number, or a string that reads as one, as Jackson coerces it). */
export function bodyFloat(name: string, value: unknown): number {
  return Math.fround(bodyNumber(name, value));
}

/** A number in a body, or a string that reads as one; anything else is the field's parse error. */
function bodyNumber(name: string, value: unknown): number {
  let n = NaN;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && NUMERIC_STRING.test(value)) n = Number(value);
  if (Number.isNaN(n)) {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    throw badRequest('x_content_parse_exception', `[${name}] failed to parse field value [${shown}]`);
  }
  return n;
}

/** Java's `String.split(",")`, which ES uses for comma lists: trailing empty items are dropped. */
export function commaList(value: string): string[] {
  const items = value.split(',');
  while (items.length > 0 && items[items.length - 1] === '') items.pop();
  return items;
}

/** ES's complaint about a key it does not know where it found one, named by the value's token. */
export function unknownKey(key: string, value: unknown): EsError {
  return parsingError(`Unknown key for a ${tokenName(value)} in [${key}].`);
}

/** For what ES does but deeppage does not yet: refused with a 400 rather than quietly ignored. */
export { notSupported } from '../errors.ts';


/** The `level` of `_stats` and `_cluster/health` (ES's ClusterStatsLevel, any case). */
export function clusterLevel(value: string | undefined, fallback: 'cluster' | 'indices'): 'cluster' | 'indices' | 'shards' {
  if (value === undefined) return fallback;
  const level = value.toLowerCase();
  if (level === 'cluster' || level === 'indices' || level === 'shards') return level;
  throw illegalArgument(`level parameter must be one of [cluster] or [indices] or [shards] but was [${value}]`);
}
