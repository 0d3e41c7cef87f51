/**
 * Index settings deeppage honours, parsed from any of ES's spellings: flat (`index.number_of_shards`),
 * nested (`{index: {number_of_shards}}`) or bare (`number_of_shards`), values as numbers or strings.
 * Every key is applied, recorded (what changes nothing on one node: `codec`), or refused in ES's
 * words: unknown, or not changeable on an open index.
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
  /** `index.number_of_routing_shards`, when set: what routing hashes are taken modulo (routing.ts). */
  numberOfRoutingShards?: number;
  /** `index.auto_expand_replicas` as given (`0-1`, `0-all`); on one node the replicas are its lower bound. */
  autoExpandReplicas?: string;
  /** `index.max_docvalue_fields_search`; {@link MAX_DOCVALUE_FIELDS} when not set. */
  maxDocvalueFields?: number;
  /** `index.codec`, recorded: deeppage stores every index in one format. */
  codec?: string;
  /** `index.max_inner_result_window`, recorded: there are no inner hits here to limit. */
  maxInnerResultWindow?: number;
}

export const DEFAULT_SETTINGS: IndexSettings = { numberOfShards: 1, numberOfReplicas: 1, maxResultWindow: 10_000, refreshIntervalMs: 1000 };

/** ES's default `index.max_docvalue_fields_search`. */
export const MAX_DOCVALUE_FIELDS = 100;

/** The codecs ES 8 takes by name (only the first two are in its error message). */
const CODECS = ['default', 'best_compression', 'lucene_default', 'legacy_default', 'legacy_best_compression'];

/**
 * Every index setting deeppage knows, by name without `index.`: whether an open index may change it
 * (ES's dynamic settings), and how its value applies (`null` puts the default back).
 */
const SETTINGS: Record<string, { dynamic: boolean; apply: (settings: IndexSettings, value: unknown, key: string) => void }> = {
  number_of_shards: { dynamic: false, apply: (s, v, k) => (s.numberOfShards = v === null ? DEFAULT_SETTINGS.numberOfShards : intSetting(k, v, 1, 1024)) },
  number_of_routing_shards: { dynamic: false, apply: (s, v, k) => (s.numberOfRoutingShards = v === null ? undefined : intSetting(k, v, 1, 2 ** 31 - 1)) },
  number_of_replicas: { dynamic: true, apply: (s, v, k) => (s.numberOfReplicas = v === null ? DEFAULT_SETTINGS.numberOfReplicas : intSetting(k, v, 0, 1024)) },
  auto_expand_replicas: { dynamic: true, apply: (s, v, k) => (s.autoExpandReplicas = v === null ? undefined : autoExpandReplicas(k, String(v))) },
  max_result_window: { dynamic: true, apply: (s, v, k) => (s.maxResultWindow = v === null ? DEFAULT_SETTINGS.maxResultWindow : intSetting(k, v, 1, 2 ** 31 - 1)) },
  refresh_interval: { dynamic: true, apply: (s, v, k) => (s.refreshIntervalMs = v === null ? DEFAULT_SETTINGS.refreshIntervalMs : parseInterval(k, v)) },
  max_docvalue_fields_search: { dynamic: true, apply: (s, v, k) => (s.maxDocvalueFields = v === null ? undefined : intSetting(k, v, 0, 2 ** 31 - 1)) },
  max_inner_result_window: { dynamic: true, apply: (s, v, k) => (s.maxInnerResultWindow = v === null ? undefined : intSetting(k, v, 1, 2 ** 31 - 1)) },
  codec: { dynamic: false, apply: (s, v) => (s.codec = v === null ? undefined : codec(String(v))) },
};

/** `index.sort.*` (final) and `index.analysis.*` (static): known to ES, set only at creation. */
const SORT_KEYS = ['field', 'order', 'mode', 'missing'];
const isSortKey = (name: string) => name.startsWith('sort.') && SORT_KEYS.includes(name.slice(5));
const isAnalysisKey = (name: string) => name === 'analysis' || name.startsWith('analysis.');

/** Flattens any spelling of settings to `index.`-prefixed keys. */
export function flattenSettings(body: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObject(body)) return out;
  for (const [key, value] of Object.entries(body)) {
    const path = prefix + key;
    if (isObject(value)) for (const [k, v] of flattenSettings(value, `${path}.`)) out.set(k, v);
    else out.set(path.startsWith('index.') ? path : `index.${path}`, value);
  }
  return out;
}

/** ES checks every key before anything applies: an unknown one is refused first. */
function checkKnown(key: string): void {
  const name = key.slice('index.'.length);
  if (SETTINGS[name] || isSortKey(name) || isAnalysisKey(name)) return;
  throw illegalArgument(`unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
}

/**
 * Refuses an update of open indices that touches a setting only a closed index (or index creation)
 * may change, as ES does, naming every such key and every index.
 */
export function checkUpdatable(body: unknown, targets: readonly { name: string; uuid: string }[]): void {
  const keys = [...flattenSettings(body).keys()];
  keys.forEach(checkKnown);
  const fixed = keys.filter((key) => !SETTINGS[key.slice('index.'.length)]?.dynamic);
  if (fixed.length > 0 && targets.length > 0) {
    const indices = targets.map((t) => `[${t.name}/${t.uuid}]`).join(', ');
    throw illegalArgument(`Can't update non dynamic settings [[${fixed.join(', ')}]] for open indices [${indices}]`);
  }
}

/**
 * Settings for a new index, or (`base` given) the dynamic settings an update changes; every key is
 * applied or refused, none is dropped.
 */
export function parseSettings(body: unknown, base: IndexSettings = DEFAULT_SETTINGS): IndexSettings {
  const settings = { ...base };
  const sort: Partial<Record<keyof IndexSort, string[]>> = {};
  for (const [key, value] of flattenSettings(body)) {
    checkKnown(key);
    const name = key.slice('index.'.length);
    if (isAnalysisKey(name)) throw illegalArgument('[index.analysis] is not supported by deeppage yet: every text field uses the standard analyzer');
    if (isSortKey(name)) {
      // A list, or a string of comma-separated values (ES's list settings take both).
      if (value !== null) sort[name.slice(5) as keyof IndexSort] = (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((v) => v.trim());
      continue;
    }
    SETTINGS[name].apply(settings, value, key);
  }
  if (settings.numberOfRoutingShards !== undefined) checkRoutingShards(settings.numberOfShards, settings.numberOfRoutingShards);
  // One node: however many replicas the range allows, the node count less one is 0, so the lower bound.
  if (settings.autoExpandReplicas !== undefined && settings.autoExpandReplicas !== 'false') settings.numberOfReplicas = Number(settings.autoExpandReplicas.split('-')[0]);
  if (Object.keys(sort).length > 0) settings.sort = parseIndexSort(sort);
  return settings;
}

/** ES's checks of `index.number_of_routing_shards` against the shard count (IndexMetadata). */
function checkRoutingShards(shards: number, routingShards: number): void {
  if (routingShards < shards) throw illegalArgument(`index.number_of_routing_shards [${routingShards}] must be >= index.number_of_shards [${shards}]`);
  if (routingShards !== shards && (routingShards % shards !== 0 || routingShards / shards <= 1)) {
    throw illegalArgument(`the number of source shards [${shards}] must be a factor of [${routingShards}]`);
  }
}

/** `false`, or `min-max` with `all` for no upper bound (ES's AutoExpandReplicas). */
function autoExpandReplicas(key: string, value: string): string {
  if (value === 'false') return value;
  const dash = value.indexOf('-');
  const bad = () => illegalArgument(`failed to parse [${key}] from value: [${value}] at index ${dash}`);
  if (dash < 0) throw bad();
  const [min, max] = [value.slice(0, dash), value.slice(dash + 1)];
  if (!/^[+-]?\d+$/.test(min) || (max !== 'all' && !/^[+-]?\d+$/.test(max))) throw bad();
  if (max !== 'all' && Number(min) > Number(max)) throw illegalArgument(`[${key}] minReplicas must be =< maxReplicas but wasn't ${Number(min)} > ${Number(max)}`);
  return value;
}

function codec(value: string): string {
  if (!CODECS.includes(value)) throw illegalArgument(`unknown value for [index.codec] must be one of [default, best_compression] but was: ${value}`);
  return value;
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
    ...(settings.numberOfRoutingShards !== undefined && { number_of_routing_shards: String(settings.numberOfRoutingShards) }),
    ...(settings.autoExpandReplicas !== undefined && { auto_expand_replicas: settings.autoExpandReplicas }),
    ...(settings.maxDocvalueFields !== undefined && { max_docvalue_fields_search: String(settings.maxDocvalueFields) }),
    ...(settings.maxInnerResultWindow !== undefined && { max_inner_result_window: String(settings.maxInnerResultWindow) }),
    ...(settings.codec !== undefined && { codec: settings.codec }),
    ...(settings.sort && { sort: { ...settings.sort } }),
  };
}

/** Nested settings as ES's `flat_settings=true` prints them: one dotted key per value, keys sorted. */
export function flatSettings(nested: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  const walk = (node: Record<string, unknown>, path: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (isObject(value)) walk(value, `${path}${key}.`);
      else entries.push([`${path}${key}`, value]);
    }
  };
  walk(nested, prefix);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
