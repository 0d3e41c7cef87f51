/**
 * An index's mappings: the type of each field, set explicitly at index creation or dynamically from
 * the first value seen, as Elasticsearch does. Fields are kept flat by dotted path; `properties`
 * nesting exists only in the JSON form that clients send and read.
 */
import { documentBoolean, nodeBooleanOf } from './booleans.ts';
import { badRequest, EsError, illegalArgument } from './errors.ts';
import { checkFieldParams } from './field-params.ts';
import { FIELD_TYPES, type FieldType } from './field-types.ts';
import { isObject } from './patterns.ts';

export interface FieldMapping {
  type: FieldType;
  /** Keyword values longer than this are not indexed (ES's dynamic `.keyword` subfield uses 256). */
  ignoreAbove?: number;
  /** Multi-fields: a `text` field's `keyword` subfield, etc. Their paths are `parent.name`. */
  fields?: Record<string, FieldMapping>;
}

export type Dynamic = 'true' | 'false' | 'strict';

const INTEGER_RANGES: Partial<Record<FieldType, [number, number]>> = {
  long: [-(2 ** 63), 2 ** 63 - 1],
  integer: [-(2 ** 31), 2 ** 31 - 1],
  short: [-32768, 32767],
  byte: [-128, 127],
  unsigned_long: [0, 2 ** 64 - 1],
};
/** Numeric types that hold whole numbers: a fraction is cut off when a value is read. */
export const WHOLE_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['long', 'integer', 'short', 'byte', 'unsigned_long']);
/** ES's `index.mapping.depth.limit`: how deep objects (and here arrays) may nest in a document. */
const MAX_DEPTH = 20;
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A document's indexed values, flat: a leaf field path (subfields included), then one of its
 * values, and so on, a field's values in the document's order. One array per document rather than
 * a map and a list per field: it lives from planning the write until the write buffer appends its
 * values to the buffer's columns, and every object alive then is one more for the collector to copy.
 */
export type DocValues = (string | number)[];

/** The values `values` holds for `field`, in order; undefined when it has none. */
export function valuesOf(values: DocValues, field: string): (string | number)[] | undefined {
  let found: (string | number)[] | undefined;
  for (let i = 0; i < values.length; i += 2) if (values[i] === field) (found ??= []).push(values[i + 1]);
  return found;
}

/** One document's extraction under way: what {@link Mappings.extract} gathers as it walks the source. */
interface Extraction {
  id: string;
  values: DocValues;
  /** Made when the document brings its first new field (most bring none). */
  added: Map<string, FieldMapping> | undefined;
  addedObjects: Set<string> | undefined;
}

/** What a document that adds no field gives as its `added` (never changed). */
const NONE_ADDED: ReadonlyMap<string, FieldMapping> = new Map();

export class Mappings {
  readonly fields = new Map<string, FieldMapping>();
  /** Paths that are objects: every parent of a field (a leaf's subfields aside), and objects mapped with no fields yet. */
  readonly #objects = new Set<string>();
  /** Each multi-field's subfields (`fields`) with their full paths: made when it is defined, not per document. */
  readonly #subfields = new Map<string, readonly Subfield[]>();
  dynamic: Dynamic = 'true';
  /** `_meta`: the application's own notes, kept and shown as given. */
  meta?: Record<string, unknown>;

  /**
   * Parses a `mappings` body (`{dynamic?, properties: {...}}`), refusing what ES refuses and what
   * deeppage does not do. `strict: false` for mappings deeppage wrote itself (stored, or copied),
   * which were checked when they came in.
   */
  static parse(body: unknown, strict = true): Mappings {
    const mappings = new Mappings();
    if (body === undefined || body === null) return mappings;
    if (!isObject(body)) throw mapperParsing('Failed to parse mapping: mappings must be an object');
    const { properties, dynamic, ...rest } = body;
    const unknown = Object.keys(rest).filter((k) => k !== '_doc' && k !== '_source' && k !== '_meta');
    if (unknown.length) throw mapperParsing(`Failed to parse mapping: Root mapping definition has unsupported parameters:  [${unknown.join(', ')}]`);
    if (isObject(body._doc)) throw mapperParsing('Failed to parse mapping: mapping types are not supported, put the fields in [properties]');
    if (strict) checkRootParams(body);
    if (dynamic !== undefined) mappings.dynamic = parseDynamic(dynamic);
    if (body._meta !== undefined) {
      if (!isObject(body._meta)) throw mapperParsing(`Failed to parse mapping: [_meta] must be an object, got ${javaClass(body._meta)}[${javaString(body._meta)}]`);
      mappings.meta = body._meta;
    }
    if (properties !== undefined) mappings.#addProperties('', properties, strict);
    return mappings;
  }

  get(path: string): FieldMapping | undefined {
    return this.fields.get(path);
  }

  /** The JSON form, nested under `properties` as ES renders it. */
  toJSON(): Record<string, unknown> {
    // Prototype-free objects, so that fields named like Object's members (`toString`) are plain keys.
    const properties: Record<string, unknown> = Object.create(null);
    for (const [path, field] of this.fields) {
      if (isSubfield(this.fields, path)) continue;
      const parts = path.split('.');
      let node = properties;
      for (const part of parts.slice(0, -1)) {
        const child = (node[part] ??= { properties: Object.create(null) }) as { properties: Record<string, unknown> };
        node = child.properties;
      }
      node[parts[parts.length - 1]] = renderField(field);
    }
    // Objects mapped with nothing in them yet, as ES renders them.
    const filled = new Set([...this.fields.keys()].flatMap(parents));
    for (const path of this.#objects) {
      if (filled.has(path)) continue;
      let node = properties;
      for (const part of path.split('.').slice(0, -1)) node = ((node[part] ??= { properties: Object.create(null) }) as { properties: Record<string, unknown> }).properties;
      node[path.slice(path.lastIndexOf('.') + 1)] ??= { type: 'object' };
    }
    const out: Record<string, unknown> = {};
    if (this.dynamic !== 'true') out.dynamic = this.dynamic;
    if (this.meta) out._meta = this.meta;
    if (this.fields.size) out.properties = properties;
    return out;
  }

  /**
   * The values a document gives each field, and the dynamic mappings its new fields need (not added:
   * see {@link addFields}). Throws when a value does not fit its field's type.
   */
  extract(source: Record<string, unknown>, id: string): { values: DocValues; added: ReadonlyMap<string, FieldMapping> } {
    // A method rather than a closure per call: the server's TypeScript loader names every closure it
    // makes (esbuild's keepNames), which cost a third of the time here under `_bulk`. Keys are
    // walked with for-in (a parsed source has no inherited enumerable keys), with no entry arrays.
    const doc: Extraction = { id, values: [], added: undefined, addedObjects: undefined };
    for (const key in source) {
      checkDocumentKey(key);
      this.#visit(doc, key, source[key], 1);
    }
    return { values: doc.values, added: doc.added ?? NONE_ADDED };
  }

  #visit(doc: Extraction, path: string, value: unknown, depth: number): void {
    if (value === null || value === undefined) return;
    if (depth > MAX_DEPTH) throw documentParsing(`Limit of mapping depth [${MAX_DEPTH}] has been exceeded due to object field [${path}]`);
    if (Array.isArray(value)) {
      for (const item of value) this.#visit(doc, path, item, depth + 1);
      return;
    }
    const field = this.fields.get(path) ?? doc.added?.get(path);
    if (isObject(value)) {
      if (field) throw documentParsing(`failed to parse field [${path}] of type [${field.type}] in document with id '${doc.id}'. Preview of field's value: '${preview(value)}'`);
      for (const key in value) {
        checkDocumentKey(key);
        this.#visit(doc, path ? `${path}.${key}` : key, value[key], depth + 1);
      }
      return;
    }
    if (this.#objects.has(path) || doc.addedObjects?.has(path)) {
      throw documentParsing(`object mapping for [${path}] tried to parse field [${path}] as object, but found a concrete value`);
    }
    let mapping = field;
    if (!mapping) {
      this.#checkParents(path, (p) => this.fields.get(p) ?? doc.added?.get(p), documentParsing);
      mapping = this.#dynamicField(path, value, (doc.added ??= new Map()));
      if (mapping) for (const parent of parents(path)) (doc.addedObjects ??= new Set()).add(parent);
    }
    if (!mapping) return;
    this.#addValue(doc.values, path, mapping, value, doc.id);
  }

  /** Adds fields that {@link extract} found (dynamic mappings). */
  addFields(added: ReadonlyMap<string, FieldMapping>): void {
    for (const [path, field] of added) this.#define(path, field);
  }

  /** An independent copy (to plan dynamic mappings on before they are durable). */
  clone(): Mappings {
    return Mappings.parse(this.toJSON(), false);
  }

  /** A field under `path` needs every parent to be an object, not a leaf (a leaf's own subfields aside). */
  #checkParents(path: string, leafAt: (path: string) => FieldMapping | undefined, error: (reason: string) => EsError): void {
    for (const parent of parents(path)) {
      const leaf = leafAt(parent);
      if (leaf && leaf.fields?.[path.slice(parent.length + 1)] === undefined) {
        throw error(`Could not dynamically add mapping for field [${path}]. Existing mapping for [${parent}] must be of type object but found [${leaf.type}].`);
      }
    }
  }

  #addValue(values: DocValues, path: string, field: FieldMapping, value: unknown, id: string): void {
    const parsed = parseValue(field, value);
    if (parsed === undefined) {
      throw documentParsing(`failed to parse field [${path}] of type [${field.type}] in document with id '${id}'. Preview of field's value: '${preview(value)}'`);
    }
    if (parsed !== null) values.push(path, parsed);
    if (field.fields === undefined) return;
    // A field this document adds has no entry yet.
    for (const [subPath, sub] of this.#subfields.get(path) ?? subfieldsOf(path, field)) {
      const subValue = parseValue(sub, value);
      if (subValue !== undefined && subValue !== null) values.push(subPath, subValue);
    }
  }

  #dynamicField(path: string, value: unknown, added: Map<string, FieldMapping>): FieldMapping | undefined {
    if (this.dynamic === 'false') return undefined;
    if (this.dynamic === 'strict') {
      const dot = path.lastIndexOf('.');
      const within = dot < 0 ? '_doc' : path.slice(0, dot);
      throw new EsError(400, 'strict_dynamic_mapping_exception', `[1:2] mapping set to strict, dynamic introduction of [${path.slice(dot + 1)}] within [${within}] is not allowed`);
    }
    const field = dynamicMapping(value);
    added.set(path, field);
    return field;
  }

  #addProperties(prefix: string, properties: unknown, strict: boolean): void {
    if (!isObject(properties)) throw mapperParsing(`Failed to parse mapping: [properties] must be an object`);
    for (const [name, spec] of Object.entries(properties)) {
      const path = prefix + (strict ? mappedName(name) : name);
      if (!isObject(spec)) throw mapperParsing(`Failed to parse mapping: Expected map for property [fields] on field [${name}] but got a class java.lang.String`);
      if (spec.type === 'object' || (spec.type === undefined && spec.properties !== undefined)) {
        if (strict) this.#checkObject(path, spec);
        if (spec.properties === undefined) this.#defineObject(path);
        else this.#addProperties(`${path}.`, spec.properties, strict);
        continue;
      }
      this.#define(path, parseField(path, spec, strict));
    }
  }

  /** An object's own parameters: those that would change what deeppage indexes are refused. */
  #checkObject(path: string, spec: Record<string, unknown>): void {
    const { type: _type, properties: _properties, dynamic, enabled, subobjects, ...rest } = spec;
    const unknown = Object.entries(rest);
    if (unknown.length > 0) {
      throw mapperParsing(`Failed to parse mapping: Mapping definition for [${path.slice(path.lastIndexOf('.') + 1)}] has unsupported parameters: ${unknown.map(([k, v]) => ` [${k} : ${javaString(v)}]`).join('')}`);
    }
    // An object's `dynamic` applies below it; the same as the whole mapping's, it changes nothing.
    if (dynamic !== undefined && parseDynamic(dynamic) !== this.dynamic) throw illegalArgument(`[dynamic] on object field [${path}] other than the mappings' own is not supported by deeppage yet`);
    if (enabled !== undefined && nodeBooleanOf(enabled) !== true) throw illegalArgument(`[enabled] false on object field [${path}] is not supported by deeppage yet`);
    if (subobjects !== undefined && nodeBooleanOf(subobjects) !== true) throw illegalArgument(`[subobjects] false on object field [${path}] is not supported by deeppage yet`);
  }

  /** An object mapped with no fields (yet): a concrete value there is an error, and it shows in the mappings. */
  #defineObject(path: string): void {
    const leaf = this.fields.get(path);
    if (leaf) throw mapperParsing(`Failed to parse mapping: field [${path}] is defined both as an object and as a field`);
    this.#checkParents(path, (p) => this.fields.get(p), mapperParsing);
    for (const parent of parents(path)) this.#objects.add(parent);
    this.#objects.add(path);
  }

  #define(path: string, field: FieldMapping): void {
    if (this.#objects.has(path)) throw mapperParsing(`Failed to parse mapping: field [${path}] is defined both as an object and as a field`);
    this.#checkParents(path, (p) => this.fields.get(p), mapperParsing);
    for (const parent of parents(path)) this.#objects.add(parent);
    this.fields.set(path, field);
    if (field.fields === undefined) return;
    const subfields = subfieldsOf(path, field);
    this.#subfields.set(path, subfields);
    for (const [subPath, sub] of subfields) this.fields.set(subPath, sub);
  }
}

type Subfield = readonly [path: string, mapping: FieldMapping];

function subfieldsOf(path: string, field: FieldMapping): Subfield[] {
  return Object.entries(field.fields ?? {}).map(([name, sub]) => [`${path}.${name}`, sub] as const);
}

/** ES's dynamic rules: booleans, whole numbers as long, other numbers as float, date-like strings as date, other strings as text with a keyword subfield. */
function dynamicMapping(value: unknown): FieldMapping {
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'long' : 'float' };
  if (typeof value === 'string' && DATE_LIKE.test(value) && !Number.isNaN(Date.parse(value))) return { type: 'date' };
  return { type: 'text', fields: { keyword: { type: 'keyword', ignoreAbove: 256 } } };
}

function parseField(path: string, spec: Record<string, unknown>, strict = true): FieldMapping {
  const type = spec.type;
  const name = path.slice(path.lastIndexOf('.') + 1);
  if (typeof type !== 'string') throw mapperParsing(`Failed to parse mapping: No type specified for field [${path}]`);
  if (!(FIELD_TYPES as readonly string[]).includes(type)) throw mapperParsing(`Failed to parse mapping: No handler for type [${type}] declared on field [${path}]`);
  if (strict) {
    // Its values would have to be scaled by `scaling_factor`, in queries too.
    if (type === 'scaled_float') throw illegalArgument(`[scaled_float] field [${path}] is not supported by deeppage yet`);
    checkFieldParams(name, type as FieldType, spec);
  }
  const field: FieldMapping = { type: type as FieldType };
  if (type === 'keyword' && spec.ignore_above !== undefined) field.ignoreAbove = ignoreAbove(name, spec.ignore_above, strict);
  if (spec.fields !== undefined) {
    if (!isObject(spec.fields)) throw mapperParsing(`Failed to parse mapping: [fields] of field [${path}] must be an object`);
    field.fields = {};
    for (const [sub, subSpec] of Object.entries(spec.fields)) {
      if (strict && sub.includes('.')) throw mapperParsing(`Failed to parse mapping: Field name [${sub}] which is a multi field of [${name}] cannot contain '.'`);
      if (!isObject(subSpec)) throw mapperParsing(`Failed to parse mapping: illegal field [${sub}], only fields can be specified inside fields`);
      field.fields[sub] = parseField(`${path}.${sub}`, subSpec, strict);
    }
  }
  return field;
}

/** `ignore_above`: a whole number of characters, at least 0. */
function ignoreAbove(name: string, value: unknown, strict: boolean): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!strict) return n;
  if (!Number.isInteger(n)) throw mapperParsing(`Failed to parse mapping: Failed to parse [ignore_above] on mapper [${name}] of type [keyword]: ${JSON.stringify(value)}`);
  if (n < 0) throw mapperParsing(`Failed to parse mapping: [ignore_above] must be positive, got [${n}]`);
  return n;
}

/** `_source` is taken only where it changes nothing: every document keeps its whole source. */
function checkRootParams(body: Record<string, unknown>): void {
  const source = body._source;
  if (source !== undefined && !(isObject(source) && Object.entries(source).every(([key, value]) => key === 'enabled' && nodeBooleanOf(value) === true))) {
    throw illegalArgument('[_source] other than {"enabled": true} is not supported by deeppage yet: every document keeps its whole source');
  }
}

/**
 * A property's path as ES maps it: dots make objects (`a.b` is `b` inside `a`), so no part may be
 * empty; Java's split drops trailing empty parts, so `a.` is `a`.
 */
function mappedName(name: string): string {
  const invalid = (reason: string) => badRequest('mapper_parsing_exception', `Failed to parse mapping: ${reason}`, undefined, illegalArgument(reason));
  if (name === '') throw invalid('field name cannot be an empty string');
  if (name.trim() === '') throw invalid('field name cannot contain only whitespaces');
  const parts = name.split('.');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0) throw invalid('field name cannot contain only dots');
  for (const part of parts) {
    if (part === '') throw invalid('field name cannot be an empty string');
    if (part.trim() === '') throw invalid('field name cannot contain only whitespaces');
  }
  return parts.join('.');
}

/** A document's field name, as ES's dot-expanding parser checks it (its messages, word for word). */
function checkDocumentKey(key: string): void {
  if (key !== '' && !key.includes('.')) return;
  const invalid = (reason: string) => badRequest('document_parsing_exception', `failed to parse: ${reason}`, undefined, illegalArgument(reason));
  if (key === '') throw invalid('field name cannot be an empty string');
  const parts = key.split('.');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0) throw invalid('field name cannot contain only dots');
  for (const part of parts) {
    if (part === '') throw invalid(`object field cannot contain only whitespace: ['${key}']`);
    if (part.trim() === '') throw invalid(`object field starting or ending with a [.] makes object resolution ambiguous: [${key}]`);
  }
}

/** The simple name of the Java class a JSON value parses to. */
function javaClass(value: unknown): string {
  if (Array.isArray(value)) return 'ArrayList';
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Double';
  return 'Object';
}

/** Java's `toString` of a JSON value, as ES prints a mapping's leftover parameters. */
function javaString(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(javaString).join(', ')}]`;
  if (isObject(value)) return `{${Object.entries(value).map(([k, v]) => `${k}=${javaString(v)}`).join(', ')}}`;
  return String(value);
}

/**
 * A value as the field indexes it: a number (numbers, dates as epoch millis, booleans as 1/0), a
 * keyword term, or text to analyze (strings, numbers and booleans as their text). `null` means "not
 * indexed" (a keyword over ignore_above); `undefined` means the value does not fit the type.
 */
export function parseValue(field: FieldMapping, value: unknown): number | string | null | undefined {
  switch (field.type) {
    case 'text':
      return typeof value === 'object' ? undefined : String(value);
    case 'keyword': {
      if (typeof value === 'object') return undefined;
      const term = String(value);
      return field.ignoreAbove !== undefined && term.length > field.ignoreAbove ? null : term;
    }
    case 'boolean': {
      const flag = documentBoolean(value);
      return flag === undefined ? undefined : Number(flag);
    }
    case 'date':
      return parseDate(value);
    default:
      return parseNumber(field.type, value);
  }
}

export function parseDate(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^-?\d+$/.test(value)) return Number(value);
  if (!DATE_LIKE.test(value)) return undefined;
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : /[Zz]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`;
  const millis = Date.parse(iso.replace(' ', 'T'));
  return Number.isNaN(millis) ? undefined : millis;
}

function parseNumber(type: FieldType, value: unknown): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) n = Number(value);
  else return undefined;
  if (!Number.isFinite(n)) return undefined;
  if (WHOLE_TYPES.has(type)) n = Math.trunc(n);
  const range = INTEGER_RANGES[type];
  if (range && (n < range[0] || n > range[1])) return undefined;
  if (type === 'float' || type === 'half_float') n = Math.fround(n);
  return n;
}

function renderField(field: FieldMapping): Record<string, unknown> {
  const out: Record<string, unknown> = { type: field.type };
  if (field.ignoreAbove !== undefined) out.ignore_above = field.ignoreAbove;
  if (field.fields) out.fields = Object.fromEntries(Object.entries(field.fields).map(([k, v]) => [k, renderField(v)]));
  return out;
}

function isSubfield(fields: Map<string, FieldMapping>, path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot < 0) return false;
  const parent = fields.get(path.slice(0, dot));
  return parent?.fields?.[path.slice(dot + 1)] !== undefined;
}

/** `strict`, or a flag read as ES's ObjectMapper reads it (`nodeBooleanValue`, booleans.ts). */
function parseDynamic(value: unknown): Dynamic {
  if (value === 'strict') return value;
  const dynamic = nodeBooleanOf(value);
  if (dynamic === undefined) throw mapperParsing(`Failed to parse mapping: Could not convert [dynamic] to boolean`);
  return dynamic ? 'true' : 'false';
}

/** The proper parents of a dotted path: `a.b.c` → `a`, `a.b`. */
function parents(path: string): string[] {
  const out: string[] = [];
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) out.push(path.slice(0, dot));
  return out;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 20 ? `${text.slice(0, 20)}...` : text;
}

const mapperParsing = (reason: string) => badRequest('mapper_parsing_exception', reason);
/** ES 8.8+ reports a document whose values do not fit the mappings as `document_parsing_exception`. */
const documentParsing = (reason: string) => badRequest('document_parsing_exception', reason);

