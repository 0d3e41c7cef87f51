/**
 * `docvalue_fields`: the values a hit's fields hold in the segment's columns, as ES's doc values give
 * them under `fields`: sorted ascending, numbers with their duplicates, keywords once each, dates
 * formatted, booleans as `true`/`false`. Names may be `*` patterns over the mapped fields; an
 * unmapped name gives nothing. Text fields have no doc values: asking for one fails the index's
 * shards with ES's fielddata error, as does asking for more fields than
 * `index.max_docvalue_fields_search` allows.
 */
import { EsError, illegalArgument } from '../errors.ts';
import { NUMERIC_TYPES } from '../field-types.ts';
import type { FieldMapping, Mappings } from '../mapping.ts';
import { globPattern } from '../patterns.ts';
import { fielddataRefusal } from '../query/metadata-fields.ts';
import type { IndexSnapshot } from '../search-index/index-snapshot.ts';
import { forEachValue, type Segment } from '../segments/segment.ts';
import { MAX_DOCVALUE_FIELDS } from '../settings.ts';
import type { DocValueField } from './request.ts';

/** One requested field of one index: its name in `fields`, and how a document's values are read. */
export interface DocValueReader {
  name: string;
  values(segment: Segment, local: number): unknown[];
}

/** Metadata fields with doc values here; other `_` names of ES's are refused by name below. */
const METADATA: Record<string, (index: string) => DocValueReader['values']> = {
  _index: (index) => () => [index],
  _seq_no: () => (segment, local) => [segment.seqs[local]],
};

/**
 * The readers for one index's hits, or the failure of its shards. ES counts the fields the names
 * match against the limit before it loads any of them.
 */
export function docValueReaders(target: IndexSnapshot, requested: readonly DocValueField[]): DocValueReader[] | EsError {
  const { mappings, name: index, settings } = target.index;
  const matched = new Map<string, string | undefined>();
  for (const { field, format } of requested) for (const name of matchingFields(field, mappings)) matched.set(name, format);
  const limit = settings.maxDocvalueFields ?? MAX_DOCVALUE_FIELDS;
  if (matched.size > limit) {
    return illegalArgument(
      `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${limit}] but was [${matched.size}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.`,
    );
  }
  try {
    return [...matched].map(([name, format]) => reader(name, format, mappings.get(name), index));
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
}

/** The fields a hit lists under `fields`: those with values, in the order asked for. */
export function docValuesOf(readers: readonly DocValueReader[], segment: Segment, local: number): Record<string, unknown[]> | undefined {
  let fields: Record<string, unknown[]> | undefined;
  for (const reader of readers) {
    const values = reader.values(segment, local);
    if (values.length > 0) (fields ??= {})[reader.name] = values;
  }
  return fields;
}

/** A plain name matches itself when mapped (or a metadata field); a pattern matches mapped fields, subfields included. */
function matchingFields(field: string, mappings: Mappings): string[] {
  if (!field.includes('*')) return mappings.get(field) || field.startsWith('_') ? [field] : [];
  const pattern = globPattern(field);
  return [...mappings.fields.keys()].filter((path) => pattern.test(path));
}

function reader(name: string, format: string | undefined, mapping: FieldMapping | undefined, index: string): DocValueReader {
  if (!mapping) return metadataReader(name, format, index);
  const { type } = mapping;
  if (type === 'text') {
    throw illegalArgument(
      `Fielddata is disabled on [${name}] in [${index}]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
    );
  }
  if (type === 'keyword' || type === 'boolean') {
    if (format !== undefined) throw illegalArgument(`Field [${name}] of type [${type}] does not support custom formats`);
    return type === 'keyword' ? { name, values: keywordValues(name) } : { name, values: numberValues(name, (v) => v === 1) };
  }
  if (type === 'date') return { name, values: numberValues(name, dateFormat(name, format)) };
  if (format !== undefined && (NUMERIC_TYPES as readonly string[]).includes(type)) throw notSupportedFormat(name, format);
  return { name, values: numberValues(name, (v) => v) };
}

function metadataReader(name: string, format: string | undefined, index: string): DocValueReader {
  const refusal = fielddataRefusal(name);
  if (refusal) throw refusal;
  const values = METADATA[name];
  if (!values) throw illegalArgument(`[${name}] in [docvalue_fields] is not supported by deeppage yet`);
  if (format !== undefined) throw illegalArgument(`Field [${name}] of type [${name}] does not support custom formats`);
  return { name, values: values(index) };
}

/** A keyword's distinct terms, in term order (ordinals ascend with the terms). */
function keywordValues(field: string): DocValueReader['values'] {
  return (segment, local) => {
    const column = segment.columns.get(field);
    if (column?.kind !== 'keyword') return [];
    const ordinals: number[] = [];
    forEachValue(column, local, (ordinal) => ordinals.push(ordinal));
    return ordinals.sort((a, b) => a - b).map((ordinal) => column.terms[ordinal]);
  };
}

/** A number column's values, ascending, duplicates kept (ES's sorted numeric doc values). */
function numberValues(field: string, shown: (value: number) => unknown): DocValueReader['values'] {
  return (segment, local) => {
    const column = segment.columns.get(field);
    if (column?.kind !== 'number') return [];
    const values: number[] = [];
    forEachValue(column, local, (value) => values.push(value));
    return values.sort((a, b) => a - b).map(shown);
  };
}

/**
 * How a date's epoch milliseconds print: by default as the field's format prints them
 * (`strict_date_optional_time`), else in one of ES's built-in formats; `a||b` prints as `a`.
 */
function dateFormat(name: string, format: string | undefined): (millis: number) => unknown {
  const printer = (format ?? 'strict_date_optional_time').split('||')[0];
  switch (printer) {
    case 'strict_date_optional_time':
    case 'date_optional_time':
    case 'strict_date_time':
    case 'date_time':
      return (millis) => new Date(millis).toISOString();
    case 'strict_date_time_no_millis':
    case 'date_time_no_millis':
      return (millis) => `${new Date(millis).toISOString().slice(0, 19)}Z`;
    case 'strict_date':
    case 'date':
      return (millis) => new Date(millis).toISOString().slice(0, 10);
    // ES prints epoch formats as strings.
    case 'epoch_millis':
      return (millis) => String(millis);
    case 'epoch_second':
      return (millis) => String(millis / 1000);
    default:
      throw notSupportedFormat(name, format!);
  }
}

function notSupportedFormat(name: string, format: string): EsError {
  return illegalArgument(`[format] [${format}] of [docvalue_fields] field [${name}] is not supported by deeppage yet`);
}
