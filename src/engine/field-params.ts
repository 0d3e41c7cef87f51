/**
 * The mapping parameters ES 8 knows for each field type, and what deeppage does with each: `type`,
 * `fields` and a keyword's `ignore_above` are read by mapping.ts; any other parameter is taken only
 * with a value that changes nothing here (ES's default, which ES leaves out of `GET _mapping` as
 * deeppage does), and refused as not supported yet with any other value. A parameter the type does
 * not have is ES's `unknown parameter`.
 *
 * @example
 * checkFieldParams('tag', 'keyword', { type: 'keyword', doc_values: true }) // fine: ES's default
 * checkFieldParams('tag', 'keyword', { type: 'keyword', doc_values: false }) // 400: not supported yet
 * checkFieldParams('tag', 'keyword', { type: 'keyword', foo: 1 })            // 400: unknown parameter [foo] on mapper [tag] of type [keyword]
 */
import { nodeBooleanOf } from './booleans.ts';
import { badRequest, illegalArgument } from './errors.ts';
import type { FieldType } from './field-types.ts';
import { isObject } from './patterns.ts';

/** Whether a value of the parameter changes nothing here. */
type NoEffect = (value: unknown) => boolean;

/** A flag parameter (ES reads them with `XContentMapValues.nodeBooleanValue`, booleans.ts) set to `wanted`. */
const flag = (wanted: boolean): NoEffect => (value) => nodeBooleanOf(value) === wanted;
/** A flag whose value changes only when ES does work, never what a request answers (`eager_global_ordinals`). */
const anyFlag: NoEffect = (value) => nodeBooleanOf(value) !== undefined;
const oneOf = (...values: unknown[]): NoEffect => (value) => values.includes(value);
const unset: NoEffect = (value) => value === null;
const emptyObject: NoEffect = (value) => isObject(value) && Object.keys(value).length === 0;
const emptyList: NoEffect = (value) => Array.isArray(value) && value.length === 0;
const never: NoEffect = () => false;

/** What most field types take: where and whether values are kept, and scripts. */
const VALUES_KEPT: Record<string, NoEffect> = {
  doc_values: flag(true),
  index: flag(true),
  store: flag(false),
  null_value: unset,
  meta: emptyObject,
  copy_to: emptyList,
  script: never,
  on_script_error: never,
};

/** Every text field is analyzed with the standard analyzer (the index default is that one too). */
const STANDARD = oneOf('standard', 'default');

const KEYWORD: Record<string, NoEffect> = {
  ...VALUES_KEPT,
  eager_global_ordinals: anyFlag,
  index_options: oneOf('docs'),
  norms: flag(false),
  similarity: oneOf('BM25', null),
  normalizer: unset,
  split_queries_on_whitespace: flag(false),
  time_series_dimension: flag(false),
};

const TEXT: Record<string, NoEffect> = {
  index: flag(true),
  store: flag(false),
  meta: emptyObject,
  copy_to: emptyList,
  analyzer: STANDARD,
  search_analyzer: STANDARD,
  search_quote_analyzer: STANDARD,
  norms: flag(true),
  similarity: oneOf('BM25', null),
  index_options: oneOf('positions'),
  fielddata: flag(false),
  fielddata_frequency_filter: never,
  eager_global_ordinals: anyFlag,
  index_phrases: flag(false),
  index_prefixes: unset,
  position_increment_gap: oneOf(100, '100'),
  term_vector: oneOf('no'),
};

const NUMBER: Record<string, NoEffect> = {
  ...VALUES_KEPT,
  coerce: flag(true),
  ignore_malformed: flag(false),
  time_series_dimension: flag(false),
  time_series_metric: unset,
};

const DATE: Record<string, NoEffect> = {
  ...VALUES_KEPT,
  ignore_malformed: flag(false),
  // What deeppage reads: ISO 8601 dates and times, and epoch milliseconds.
  format: oneOf('strict_date_optional_time||epoch_millis', 'date_optional_time||epoch_millis'),
  locale: oneOf('ROOT', ''),
};

const BOOLEAN: Record<string, NoEffect> = { ...VALUES_KEPT, ignore_malformed: flag(false), time_series_dimension: flag(false) };

const PARAMS: Record<FieldType, Record<string, NoEffect>> = {
  keyword: KEYWORD,
  text: TEXT,
  date: DATE,
  boolean: BOOLEAN,
  long: NUMBER,
  integer: NUMBER,
  short: NUMBER,
  byte: NUMBER,
  double: NUMBER,
  float: NUMBER,
  half_float: NUMBER,
  scaled_float: NUMBER,
  unsigned_long: NUMBER,
};

/** Read by mapping.ts itself. */
const READ = new Set(['type', 'fields']);

/**
 * Checks every parameter of a field's mapping but those mapping.ts reads (`type`, `fields`,
 * `ignore_above`); `name` is the field's own name (its last path segment), as ES names a mapper.
 */
export function checkFieldParams(name: string, type: FieldType, spec: Record<string, unknown>): void {
  const known = PARAMS[type];
  for (const [param, value] of Object.entries(spec)) {
    if (READ.has(param) || (param === 'ignore_above' && type === 'keyword')) continue;
    if (param === 'boost') throw mapperParsing(`Unknown parameter [boost] on mapper [${name}]`);
    const noEffect = known[param];
    if (!noEffect) throw mapperParsing(`unknown parameter [${param}] on mapper [${name}] of type [${type}]`);
    if (value === null && !noEffect(null)) throw mapperParsing(`[${param}] on mapper [${name}] of type [${type}] must not have a [null] value`);
    if (!noEffect(value)) throw illegalArgument(`[${param}] ${JSON.stringify(value)} on field [${name}] of type [${type}] is not supported by deeppage yet`);
  }
}

const mapperParsing = (reason: string) => badRequest('mapper_parsing_exception', `Failed to parse mapping: ${reason}`);
