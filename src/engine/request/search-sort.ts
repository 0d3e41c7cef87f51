/**
 * Sort clauses from the URI `sort` parameter or the body `sort`, read as ES's RestSearchAction and
 * SortBuilder read them. Whether a field can be sorted on is the engine's question: it has the mappings.
 *
 * @example
 * sortFromParam('price:desc,_score')
 * // [{ kind: 'field', field: 'price', order: 'desc', missing: '_last' }, { kind: 'score', order: 'desc' }]
 * sortFromBody([{ price: { order: 'asc', missing: '_first' } }, '_doc'])
 */
import type { Direction } from '../../core/index.ts';
import { badRequest, illegalArgument, type EsError } from '../errors.ts';
import { isObject } from '../patterns.ts';
import type { SortClause } from '../search/request.ts';
import { commaList, notSupported, tokenName } from './request-values.ts';

/**
 * `sort=field:asc,other:desc,_score,plain`. The order follows the last colon; a suffix other than
 * exactly `asc` or `desc` adds no clause at all, which is what ES does.
 */
export function sortFromParam(value: string): SortClause[] {
  const clauses: SortClause[] = [];
  for (const item of commaList(value)) {
    const colon = item.lastIndexOf(':');
    if (colon === -1) {
      clauses.push(sortOn(item));
      continue;
    }
    const suffix = item.slice(colon + 1);
    if (suffix === 'asc' || suffix === 'desc') clauses.push(sortOn(item.slice(0, colon), suffix));
  }
  return clauses;
}

/** Body `sort`: a name, an object of names to orders or options, or an array of names and objects. */
export function sortFromBody(value: unknown): SortClause[] {
  if (typeof value === 'string') return [sortOn(value)];
  if (isObject(value)) return objectClauses(value);
  if (!Array.isArray(value)) throw illegalArgument('malformed sort format, either start with array, object, or an actual string');
  return value.flatMap((item) => {
    if (typeof item === 'string') return [sortOn(item)];
    if (isObject(item)) return objectClauses(item);
    throw illegalArgument('malformed sort format, within the sort array, an object, or an actual string are allowed');
  });
}

/** Sorts ES builds with their own parsers; deeppage has none of them. */
const OTHER_SORTS = new Set(['_script', '_geo_distance', '_geoDistance']);

/** Options ES knows for a field sort that deeppage does not act on yet. */
const UNSUPPORTED_OPTIONS = new Set(['format', 'numeric_type', 'nested', 'nested_path', 'nested_filter']);

function objectClauses(sorts: Record<string, unknown>): SortClause[] {
  return Object.entries(sorts).map(([name, spec]) => {
    if (typeof spec === 'string') return sortOn(name, sortOrder(spec));
    if (OTHER_SORTS.has(name)) throw notSupported(`[${name}] sort`);
    const parser = name === '_score' ? '_score' : 'field_sort';
    if (!isObject(spec)) throw xContentParse(`[${parser}] Expected START_OBJECT but was: ${tokenName(spec)}`);
    return sortWithOptions(name, parser, spec);
  });
}

function sortWithOptions(name: string, parser: string, options: Record<string, unknown>): SortClause {
  let order: Direction | undefined;
  const field: Partial<Extract<SortClause, { kind: 'field' }>> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'order') {
      order = sortOrder(stringOption(parser, key, value));
    } else if (parser === '_score') {
      throw xContentParse(`[${parser}] unknown field [${key}]`);
    } else if (key === 'missing') {
      if (typeof value !== 'string' && typeof value !== 'number') throw wrongType(parser, key, value);
      field.missing = value;
    } else if (key === 'unmapped_type') {
      field.unmappedType = stringOption(parser, key, value);
    } else if (key === 'mode') {
      field.mode = sortMode(stringOption(parser, key, value));
    } else if (UNSUPPORTED_OPTIONS.has(key)) {
      throw notSupported(`sort option [${key}]`);
    } else {
      throw xContentParse(`[${parser}] unknown field [${key}]`);
    }
  }
  const clause = sortOn(name, order);
  return clause.kind === 'field' ? { ...clause, ...field } : clause;
}

/** One clause with ES's default order: descending for `_score`, ascending for everything else. */
function sortOn(name: string, order?: Direction): SortClause {
  if (name === '_score') return { kind: 'score', order: order ?? 'desc' };
  if (name === '_doc') return { kind: 'doc', order: order ?? 'asc' };
  // Only over a point in time: the request's check (search-params.ts) says so otherwise.
  if (name === '_shard_doc') return { kind: 'shard_doc', order: order ?? 'asc' };
  return { kind: 'field', field: name, order: order ?? 'asc', missing: '_last' };
}

/** ES's `SortOrder.fromString`, which ignores case (unlike the URI form). */
function sortOrder(value: string): Direction {
  const order = value.toLowerCase();
  if (order === 'asc' || order === 'desc') return order;
  throw illegalArgument(`Unknown SortOrder [${value}]`);
}

function sortMode(value: string): 'min' | 'max' {
  const mode = value.toLowerCase();
  if (mode === 'min' || mode === 'max') return mode;
  if (mode === 'sum' || mode === 'avg' || mode === 'median') throw notSupported(`sort mode [${value}]`);
  throw illegalArgument(`Unknown SortMode [${value}]`);
}

function stringOption(parser: string, key: string, value: unknown): string {
  if (typeof value !== 'string') throw wrongType(parser, key, value);
  return value;
}

const wrongType = (parser: string, key: string, value: unknown) =>
  xContentParse(`[${parser}] ${key} doesn't support values of type: ${tokenName(value)}`);

const xContentParse = (reason: string): EsError => badRequest('x_content_parse_exception', reason);
