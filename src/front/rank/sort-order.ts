/**
 * The order a search's sort values come in, as the front needs it to merge sorted streams of them
 * (a walk's slices): per sort clause its direction and where documents without a value go, then the
 * point in time's `_shard_doc` tie-breaker, ascending. Values compare as the cluster orders them:
 * numbers by value (integers beyond 2^53, as `parseExact` keeps them, exactly), strings by code
 * point (the UTF-8 byte order of keywords), `null` (a missing value) first or last whatever the
 * direction. Two values of different kinds cannot be ordered: {@link Unordered} is thrown.
 */
import { EXACT_INTEGER } from '../json-text.ts';

export interface KeyOrder {
  desc: boolean;
  missingFirst: boolean;
}

/** One clause of a sort as given: its key (a field, `_score`, `_geo_distance`…), its options, and its order. */
export interface SortClause extends KeyOrder {
  name: string;
  /** `{order, missing, mode…}` as given, or the order as a string, or nothing. */
  options: unknown;
}

export class Unordered extends Error {}

/** A sort's clauses (`"f"`, `{"f": "desc"}`, `{"f": {…}}`, one or a list); undefined for anything else or none. */
export function sortClauses(sort: unknown): SortClause[] | undefined {
  const given = Array.isArray(sort) ? sort : sort === undefined ? [] : [sort];
  if (given.length === 0) return undefined;
  const clauses: SortClause[] = [];
  for (const clause of given) {
    let name: string;
    let options: unknown;
    if (typeof clause === 'string') name = clause;
    else if (isObject(clause) && Object.keys(clause).length === 1) [[name, options]] = Object.entries(clause);
    else return undefined;
    const order = typeof options === 'string' ? options : isObject(options) && typeof options.order === 'string' ? options.order : undefined;
    const desc = (order ?? (name === '_score' ? 'desc' : 'asc')) === 'desc';
    clauses.push({ name, options, desc, missingFirst: isObject(options) && options.missing === '_first' });
  }
  return clauses;
}

/** The orders of a sort's keys, plus the tie-breaker's. */
export function sortOrders(sort: unknown): KeyOrder[] {
  const orders = (sortClauses(sort) ?? []).map(({ desc, missingFirst }) => ({ desc, missingFirst }));
  return [...orders, { desc: false, missingFirst: false }];
}

/** How two sort values of one key compare in the cluster's order. */
export function compareValues(a: unknown, b: unknown, { desc, missingFirst }: KeyOrder): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === missingFirst ? -1 : 1;
  }
  let c: number;
  if (typeof a === 'number' && typeof b === 'number') c = a < b ? -1 : a > b ? 1 : Object.is(a, b) ? 0 : Object.is(a, -0) ? -1 : Object.is(b, -0) ? 1 : 0;
  else if (isExact(a) || isExact(b)) c = compareIntegers(a, b);
  else if (typeof a === 'string' && typeof b === 'string') c = compareCodePoints(a, b);
  else throw new Unordered(`sort values [${String(a)}] and [${String(b)}] are of different kinds`);
  return desc ? -c : c;
}

function isExact(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(EXACT_INTEGER);
}

function compareIntegers(a: unknown, b: unknown): number {
  const x = integer(a);
  const y = integer(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function integer(value: unknown): bigint {
  if (isExact(value)) return BigInt(value.slice(1));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw new Unordered(`sort value [${String(value)}] is not an integer`);
}

/** Strings by code point: UTF-16 order but for surrogates, which come after U+E000–U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
