/**
 * Index settings deeppage honours, parsed from any of ES's spellings: flat (`index.number_of_shards`),
 * nested (`{index: {number_of_shards}}`) or bare (`number_of_shards`), values as numbers or strings.
 */
import { EsError, illegalArgument } from './errors.ts';
import { isObject } from './patterns.ts';
import { timeValueMs } from './time-value.ts';

/** ES's index sorting (`index.sort.*`, final): here, the sort whose runs every new segment gets at once. */
export interface IndexSort {
  field: string[];
  order: ('asc' | 'desc')[];
  mode: ('min' | 'max')[];
  missing: ('_last' | '_first')[];
}

export interface IndexSettings {
  numberOfShards: number;
  numberOfReplicas: number;
  /** `from + size` may not exceed this (ES's `index.max_result_window`). */
  maxResultWindow: number;
  /** -1: no periodic refresh. */
  refreshIntervalMs: number;
  sort?: IndexSort;
}

export const DEFAULT_SETTINGS: IndexSettings = { numberOfShards: 1, numberOfReplicas: 1, maxResultWindow: 10_000, refreshIntervalMs: 1000 };

/** Settings accepted for compatibility that change nothing here (there is one node and no analysis). */
const IGNORED = new Set(['number_of_routing_shards', 'codec', 'analysis', 'max_inner_result_window', 'auto_expand_replicas']);

/** Flattens any spelling of settings to `index.`-prefixed keys. */
export function flattenSettings(body: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObject(body)) return out;
  for (const [key, value] of Object.entries(body)) {
    const path = prefix + key;
    if (isObject(value) && !path.endsWith('analysis')) for (const [k, v] of flattenSettings(value, `${path}.`)) out.set(k, v);
    else out.set(path.startsWith('index.') ? path : `index.${path}`, value);
  }
  return out;
}

/**
 * Settings for a new index; with `open` (the index being updated), only the keys ES lets an open
 * index change.
 */
export function parseSettings(body: unknown, base: IndexSettings = DEFAULT_SETTINGS, open?: { name: string; uuid: string }): IndexSettings {
  const updatable = open !== undefined;
  const settings = { ...base };
  const sort: Partial<Record<keyof IndexSort, string[]>> = {};
  for (const [key, value] of flattenSettings(body)) {
    const name = key.slice('index.'.length);
    if (IGNORED.has(name.split('.')[0])) continue;
    if (name.startsWith('sort.') && ['field', 'order', 'mode', 'missing'].includes(name.slice(5))) {
      if (open) throw illegalArgument(`Can't update non dynamic settings [[${key}]] for open indices [[${open.name}/${open.uuid}]]`);
      // A list, or a string of comma-separated values (ES's list settings take both).
      sort[name.slice(5) as keyof IndexSort] = (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((v) => v.trim());
      continue;
    }
    switch (name) {
      case 'number_of_shards':
        if (updatable) throw illegalArgument(`final index setting [index.number_of_shards], not updateable`);
        settings.numberOfShards = intSetting(key, value, 1, 1024);
        break;
      case 'number_of_replicas':
        settings.numberOfReplicas = intSetting(key, value, 0, 1024);
        break;
      case 'max_result_window':
        settings.maxResultWindow = intSetting(key, value, 1, 2 ** 31 - 1);
        break;
      case 'refresh_interval':
        settings.refreshIntervalMs = parseInterval(key, value);
        break;
      default:
        throw illegalArgument(`unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
    }
  }
  if (Object.keys(sort).length > 0) settings.sort = parseIndexSort(sort);
  return settings;
}

/** `index.sort.*` in ES's words (IndexSortConfig): lists as long as the fields, defaults per field. */
function parseIndexSort(given: Partial<Record<keyof IndexSort, string[]>>): IndexSort {
  const field = given.field ?? [];
  if (field.length === 0) {
    const named = (['order', 'mode', 'missing'] as const).find((name) => given[name] !== undefined);
    throw illegalArgument(`setting [index.sort.${named}] requires [index.sort.field] to be configured`);
  }
  // Values are checked before lengths, and each list prints as ES prints its values.
  const order = (given.order ?? []).map((v) => {
    const order = v.toLowerCase();
    if (order !== 'asc' && order !== 'desc') throw illegalArgument(`Illegal sort order:${v}`);
    return order;
  });
  const mode = (given.mode ?? []).map((v) => {
    const mode = v.toLowerCase();
    if (mode !== 'min' && mode !== 'max') throw illegalArgument(`Illegal index sort mode:[${v.toUpperCase()}], must be one of [MAX, MIN]`);
    return mode;
  });
  const missing = (given.missing ?? []).map((v) => {
    if (v !== '_last' && v !== '_first') throw illegalArgument(`Illegal missing value:[${v}], must be one of [_last, _first]`);
    return v;
  });
  const sized = <T>(name: keyof IndexSort, values: T[], shown: string[], fallback: (i: number) => T): T[] => {
    if (given[name] === undefined) return field.map((_, i) => fallback(i));
    if (values.length !== field.length) throw illegalArgument(`index.sort.field:[${field.join(', ')}] index.sort.${name}:[${shown.join(', ')}], size mismatch`);
    return values;
  };
  const orders = sized('order', order, order, () => 'asc' as const);
  return {
    field,
    order: orders,
    mode: sized('mode', mode, mode.map((m) => m.toUpperCase()), (i) => (orders[i] === 'asc' ? 'min' : 'max')),
    missing: sized('missing', missing, missing, () => '_last'),
  };
}

/** The settings as ES renders them under `settings.index` (all values strings). */
export function renderSettings(settings: IndexSettings): Record<string, unknown> {
  return {
    number_of_shards: String(settings.numberOfShards),
    number_of_replicas: String(settings.numberOfReplicas),
    max_result_window: String(settings.maxResultWindow),
    refresh_interval: settings.refreshIntervalMs < 0 ? '-1' : `${settings.refreshIntervalMs}ms`,
    ...(settings.sort && { sort: { ...settings.sort } }),
  };
}

function intSetting(key: string, value: unknown, min: number, max: number): number {
  const text = String(value);
  if (!/^-?\d+$/.test(text)) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}]`);
  const n = Number(text);
  if (n < min) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}] must be >= ${min}`);
  if (n > max) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}] must be <= ${max}`);
  return n;
}

/** Index settings wrap a bad time value in an illegal argument, as ES's setting validation does. */
function parseInterval(key: string, value: unknown): number {
  try {
    return timeValueMs(key, String(value));
  } catch (e) {
    if (e instanceof EsError) throw illegalArgument(e.reason);
    throw e;
  }
}
