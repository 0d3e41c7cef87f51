/**
 * Alias definitions and `POST /_aliases` actions as Elasticsearch reads them
 * (`AliasActions.PARSER`, `Alias.fromXContent`): the fields, their types, and the errors for the
 * rest. Filters are query DSL, parsed here so that the engine gets a query it can run.
 */
import type { AliasAction, AliasProps } from '../aliases/alias.ts';
import { bodyBoolean } from '../booleans.ts';
import { badRequest, EsError, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { parseQueryDsl } from './query-dsl.ts';
import { tokenName } from './request-values.ts';

const PROPS = ['filter', 'routing', 'index_routing', 'search_routing', 'is_write_index', 'is_hidden'];

/** The body of `PUT /{index}/_alias/{name}` or one entry of a create-index body's `aliases`. */
export function parseAliasProps(body: unknown, where = 'alias'): AliasProps {
  if (body === undefined || body === null) return {};
  if (!isObject(body)) throw badRequest('parsing_exception', `[${where}] expected an object but found [${tokenName(body)}]`);
  for (const key of Object.keys(body)) if (!PROPS.includes(key)) throw badRequest('x_content_parse_exception', `[${where}] unknown field [${key}]`);
  return propsOf(body, where);
}

function propsOf(body: Record<string, unknown>, where: string): AliasProps {
  const props: AliasProps = {};
  if (body.filter !== undefined && body.filter !== null) {
    if (!isObject(body.filter)) throw badRequest('parsing_exception', `[${where}] filter must be an object but found [${tokenName(body.filter)}]`);
    props.filter = { raw: body.filter, query: parseQueryDsl(body.filter) };
  }
  const routing = stringField(body, 'routing', where);
  const indexRouting = stringField(body, 'index_routing', where) ?? routing;
  const searchRouting = stringField(body, 'search_routing', where) ?? routing;
  if (indexRouting !== undefined) {
    if (indexRouting.includes(',')) throw badRequest('illegal_argument_exception', `alias [${where}] has several index routing values associated with it`);
    props.indexRouting = indexRouting;
  }
  if (searchRouting !== undefined) props.searchRouting = searchRouting;
  const isWriteIndex = booleanField(body, 'is_write_index', where);
  if (isWriteIndex !== undefined) props.isWriteIndex = isWriteIndex;
  const isHidden = booleanField(body, 'is_hidden', where);
  if (isHidden !== undefined) props.isHidden = isHidden;
  return props;
}

/** A create-index body's `aliases`: name → definition. */
export function parseCreateAliases(value: unknown): Map<string, AliasProps> {
  const aliases = new Map<string, AliasProps>();
  if (value === undefined || value === null) return aliases;
  if (!isObject(value)) throw badRequest('parsing_exception', `Failed to parse aliases: expected an object but found [${tokenName(value)}]`);
  for (const [name, definition] of Object.entries(value)) aliases.set(name, parseAliasProps(definition, name));
  return aliases;
}

/** `POST /_aliases`: `{"actions": [{"add": {...}}, {"remove": {...}}, {"remove_index": {...}}]}`. */
export function parseAliasActions(body: unknown): AliasAction[] {
  if (!isObject(body)) throw badRequest('parsing_exception', 'request body is required');
  for (const key of Object.keys(body)) if (key !== 'actions') throw badRequest('x_content_parse_exception', `[aliases] unknown field [${key}]`);
  if (!Array.isArray(body.actions)) throw badRequest('x_content_parse_exception', `[aliases] actions doesn't support values of type: ${tokenName(body.actions)}`);
  if (body.actions.length === 0) throw validationFailed(['At least one action must be provided']);
  return body.actions.map((entry: unknown) => parseAction(entry));
}

function parseAction(entry: unknown): AliasAction {
  if (!isObject(entry) || Object.keys(entry).length !== 1) throw badRequest('x_content_parse_exception', '[alias_action] expected exactly one action (add, remove or remove_index)');
  const [type, fields] = Object.entries(entry)[0];
  if (type !== 'add' && type !== 'remove' && type !== 'remove_index') throw badRequest('x_content_parse_exception', `[alias_action] unknown field [${type}]`);
  if (!isObject(fields)) throw badRequest('x_content_parse_exception', `[${type}] expected an object but found [${tokenName(fields)}]`);
  const allowed = type === 'add' ? ['index', 'indices', 'alias', 'aliases', ...PROPS, 'must_exist'] : type === 'remove' ? ['index', 'indices', 'alias', 'aliases', 'must_exist'] : ['index', 'indices'];
  for (const key of Object.keys(fields)) if (!allowed.includes(key)) throw badRequest('x_content_parse_exception', `[${type}] unknown field [${key}]`);
  const indices = names(fields, 'index', 'indices', type);
  const problems: string[] = [];
  if (indices.length === 0) problems.push('One of [index] or [indices] is required');
  if (type === 'remove_index') {
    if (problems.length) throw validationFailed(problems);
    return { type, indices };
  }
  const aliases = names(fields, 'alias', 'aliases', type);
  if (aliases.length === 0) problems.push('One of [alias] or [aliases] is required');
  if (type === 'add' && fields.must_exist !== undefined) problems.push('[must_exist] is unsupported for [add]');
  if (problems.length) throw validationFailed(problems);
  if (type === 'add') return { type, indices, aliases, props: propsOf(fields, type) };
  const mustExist = booleanField(fields, 'must_exist', type);
  return { type, indices, aliases, ...(mustExist !== undefined && { mustExist }) };
}

/** `index` (one name) or `indices` (a list), never both. */
function names(fields: Record<string, unknown>, one: string, many: string, where: string): string[] {
  if (fields[one] !== undefined && fields[many] !== undefined) throw badRequest('illegal_argument_exception', `Only one of [${one}] and [${many}] may be specified`);
  if (fields[one] !== undefined) {
    if (typeof fields[one] !== 'string') throw badRequest('x_content_parse_exception', `[${where}] ${one} doesn't support values of type: ${tokenName(fields[one])}`);
    return [fields[one] as string];
  }
  const list = fields[many];
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((name) => typeof name !== 'string')) throw badRequest('x_content_parse_exception', `[${where}] ${many} must be a list of strings`);
  if (list.length === 0) throw badRequest('illegal_argument_exception', `[${many}] can't be empty`);
  return list as string[];
}

function stringField(fields: Record<string, unknown>, name: string, where: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw badRequest('x_content_parse_exception', `[${where}] ${name} doesn't support values of type: ${tokenName(value)}`);
}

/** A flag read with `parser.booleanValue()` (booleans.ts); its parser wraps what fails in one error naming the field. */
function booleanField(fields: Record<string, unknown>, name: string, where: string): boolean | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  const failed = (cause?: EsError) => badRequest('x_content_parse_exception', `[${where}] failed to parse field [${name}]`, undefined, cause);
  try {
    return bodyBoolean(value, () => failed());
  } catch (e) {
    throw e instanceof EsError && e.type === 'illegal_argument_exception' ? failed(e) : e;
  }
}
