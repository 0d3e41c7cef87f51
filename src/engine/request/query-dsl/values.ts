/**
 * How the query parsers read one option's JSON value, and the errors they share. Each reader is the
 * XContent accessor ES's hand-written `fromXContent` loops call (`floatValue`, `booleanValue`, `text`,
 * `objectText`), with the error ES gives when the value is of the right JSON type but unreadable.
 *
 * When the JSON type itself is wrong (`"boost": true`), ES fails inside Jackson with a message that
 * names the token and its position; as positions are not known here, those cases all answer
 * `x_content_parse_exception` `[<query>] failed to parse field [<option>]`, ES's wording for the same
 * failure in its ObjectParser-based queries.
 */
import type { Query, QueryValue, ZeroTermsQuery } from '../../query/query.ts';
import { bodyBoolean } from '../../booleans.ts';
import { badRequest, illegalArgument, parsingError, type EsError } from '../../errors.ts';
import { isObject } from '../../patterns.ts';
import { notSupported, tokenName } from '../request-values.ts';

export type JsonObject = Record<string, unknown>;

/** Parses a clause nested in a compound query, one level deeper. */
export type ParseInner = (value: unknown) => Query;

/** One query's `fromXContent`: the object under the query's name. */
export type QueryParser = (body: JsonObject, inner: ParseInner) => Query;

/** XContent's `token.isValue()`: a string, number or boolean (`null` is not a value token). */
export function isScalar(value: unknown): value is QueryValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A value of the wrong JSON type for the accessor reading it (see the module comment). */
export function unreadable(query: string, option: string): EsError {
  return badRequest('x_content_parse_exception', `[${query}] failed to parse field [${option}]`);
}

/** What Java's `Float.parseFloat` reads, after its trim; `NaN`, `Infinity` and hex floats are left out (one way to match each, see request-values.ts). */
const JAVA_FLOAT = /^[+-]?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?[fFdD]?$/;

/** `Float.parseFloat`, with its `NumberFormatException` (a 400 `number_format_exception` in ES). */
export function javaFloat(text: string): number {
  const trimmed = text.trim();
  if (JAVA_FLOAT.test(trimmed)) return Number(trimmed.replace(/[fFdD]$/, ''));
  throw badRequest('number_format_exception', trimmed === '' ? 'empty String' : `For input string: "${trimmed}"`);
}

/** `parser.floatValue()`: a JSON number, or a string read as a float (ES coerces strings). */
export function floatValue(query: string, option: string, value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return javaFloat(value);
  throw unreadable(query, option);
}

/** `parser.booleanValue()` (booleans.ts), a value of another JSON type {@link unreadable}. */
export function booleanValue(query: string, option: string, value: unknown): boolean {
  return bodyBoolean(value, () => unreadable(query, option));
}

/** `parser.text()`: a string, or a number or boolean as its JSON text; anything else has no text. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw illegalArgument(`Expected text but found ${tokenName(value)}`);
}

/** `parser.textOrNull()`: as `text`, with `null` read as absent. */
export function textOrNull(value: unknown): string | undefined {
  return value === null ? undefined : text(value);
}

/** `parser.objectText()` / `objectBytes()`: a scalar as given, `null` as absent. */
export function objectValue(query: string, option: string, value: unknown): QueryValue | undefined {
  if (value === null) return undefined;
  if (isScalar(value)) return value;
  throw unreadable(query, option);
}

/**
 * ES checks the boost when it sets it on the built query: a negative one (even `-0`, as
 * `Float.compare` orders it below 0) is refused, naming the query as its `toString()` prints it.
 * `holder` is the object the `boost` was given in.
 */
export function checkedBoost(boost: number, query: string, body: JsonObject, holder: JsonObject): number {
  if (boost < 0 || Object.is(boost, -0)) {
    const shown = render({ [query]: body }, holder, '');
    throw illegalArgument(`negative [boost] are not allowed in [${shown}], use a value between 0 and 1 to deboost`);
  }
  return boost;
}

/**
 * Pretty JSON as ES's `Strings.toString(builder, true, true)` writes it (`"key" : value`, two-space
 * indents, `{ }` and `[ ]` when empty). ES prints the query builder, which still has the default boost
 * 1.0 when the setter refuses the given one, and every option with its default filled in; this prints
 * the request's own clause with its boost shown as 1.0, so ES's added defaults are missing.
 */
function render(value: unknown, holder: JsonObject, indent: string): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    return `[\n${value.map((item) => inner + render(item, holder, inner)).join(',\n')}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{ }';
    const fields = entries.map(([key, item]) => {
      const shown = value === holder && key === 'boost' ? '1.0' : render(item, holder, inner);
      return `${inner}${JSON.stringify(key)} : ${shown}`;
    });
    return `{\n${fields.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** `zero_terms_query`: `none` or `all`, in any case. */
export function zeroTermsQuery(value: unknown): ZeroTermsQuery {
  const given = text(value);
  const lower = given.toLowerCase();
  if (lower === 'none' || lower === 'all') return lower;
  throw parsingError(`Unsupported zero_terms_query value [${given}]`);
}

/** `operator`: ES's `Operator.valueOf(text.toUpperCase())`, whose failure names the Java enum. */
export function operator(value: unknown): 'or' | 'and' {
  const given = text(value).toUpperCase();
  if (given === 'OR') return 'or';
  if (given === 'AND') return 'and';
  throw illegalArgument(`No enum constant org.elasticsearch.index.query.Operator.${given}`);
}

/** A field-keyed query (`term`, `match`, `range`, …) names one field; the second one is refused. */
export function oneField(query: string, seen: string | undefined, next: string): string {
  if (seen !== undefined) throw parsingError(`[${query}] query doesn't support multiple fields, found [${seen}] and [${next}]`);
  return next;
}

export function doesNotSupport(query: string, option: string): EsError {
  return parsingError(`[${query}] query does not support [${option}]`);
}

/** An object, array or `null` where the query reads only scalars. */
export function unknownToken(query: string, value: unknown, after: string): EsError {
  return parsingError(`[${query}] unknown token [${tokenName(value)}] after [${after}]`);
}

/** A clause of a compound query that is not a JSON object. */
export function mustStartWithObject(): EsError {
  return parsingError('[_na] query malformed, must start with start_object');
}

/** An option ES has and deeppage does not run yet: refused, as ignoring it would change the hits. */
export function unsupportedOption(query: string, option: string): EsError {
  return notSupported(`[${query}] parameter [${option}]`);
}

/** `_name` labels matches in `matched_queries`, which deeppage does not report yet. */
export function namedQueries(): EsError {
  return notSupported('[_name] (named queries)');
}
