/** Index management: create, read, delete, mappings, settings, refresh. */
import { Hono, type Context } from 'hono';
import { shownAlias } from '../../engine/aliases/alias.ts';
import type { Engine } from '../../engine/engine.ts';
import { isObject } from '../../engine/patterns.ts';
import { parseCreateAliases } from '../../engine/request/alias-body.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import { STRICT_EXPAND_OPEN } from '../../engine/index-names.ts';
import { flatSettings, renderSettings } from '../../engine/settings.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions } from '../../engine/request/indices-options.ts';
import { jsonBody } from '../request-body.ts';
import { illegalArgument, validationFailed } from '../../engine/errors.ts';
import { booleanParam } from '../../engine/booleans.ts';
import { intParam, notSupported } from '../../engine/request/request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { activeShardCount } from '../../engine/request/write-params.ts';
import { VERSION } from '../version.ts';
import { queryOf, pathOf } from '../request-uri.ts';

type Params = Record<string, string | undefined>;

/**
 * `master_timeout`, `timeout` and `local` say how long to wait for, or whether to ask, the elected
 * master and the other nodes: this node is the whole cluster and answers at once, so they are only
 * checked (the README lists them).
 */
const MASTER_PARAMS = ['master_timeout', 'timeout', 'local'];
const BROADCAST_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS]);
const FLUSH_PARAMS = new Set([...BROADCAST_PARAMS, 'force', 'wait_if_ongoing']);
const FORCE_MERGE_PARAMS = new Set([...BROADCAST_PARAMS, 'max_num_segments', 'only_expunge_deletes', 'flush', 'wait_for_completion']);
/** The task action of a force merge run in the background. */
export const FORCE_MERGE_ACTION = 'indices:admin/forcemerge';
/** Which caches `_cache/clear` drops; `fields` would name the fields whose caches go. */
const CACHE_PARAMS = new Set([...BROADCAST_PARAMS, 'fielddata', 'query', 'request', 'fields', 'index']);
const READ_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, ...MASTER_PARAMS, 'flat_settings', 'include_defaults', 'features']);
const MAPPING_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, ...MASTER_PARAMS]);
const PUT_SETTINGS_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, ...MASTER_PARAMS, 'flat_settings', 'preserve_existing', 'reopen']);
const CREATE_PARAMS = new Set([...RESPONSE_PARAMS, ...MASTER_PARAMS, 'wait_for_active_shards']);
const DELETE_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, ...MASTER_PARAMS]);

/** Checks a request's parameter names, and the values of those every index API reads the same way. */
function checkParams(c: Context, known: ReadonlySet<string>): Params {
  const query = queryOf(c);
  checkParamNames(query, pathOf(c), known);
  for (const name of ['master_timeout', 'timeout']) if (query[name] !== undefined) timeValueMs(name, query[name]);
  for (const name of ['local', 'flat_settings']) booleanParam(query[name], false);
  if (booleanParam(query.include_defaults, false)) throw notSupported('[include_defaults=true]');
  if (query.features !== undefined) throw notSupported('[features]');
  return query;
}

/** `flat_settings=true`: `"index.number_of_shards": "1"` rather than nested objects. */
const settingsShown = (query: Params, index: SearchIndex) => {
  const settings = settingsOf(index);
  return booleanParam(query.flat_settings, false) ? flatSettings(settings) : settings;
};

export function indexRoutes(engine: Engine): Hono {
  const app = new Hono();

  /** The `_shards` of a broadcast to every primary (replicas are counted but do not exist). */
  const broadcast = (indices: SearchIndex[]) => {
    const primaries = indices.reduce((n, i) => n + i.shards.length, 0);
    const copies = indices.reduce((n, i) => n + i.shards.length * (1 + i.settings.numberOfReplicas), 0);
    return { _shards: { total: copies, successful: primaries, failed: 0 } };
  };
  const refresh = async (c: Context) => send(c, 200, broadcast(await engine.refreshInPasses(c.req.param('index'), indicesOptions(checkParams(c, BROADCAST_PARAMS)))));
  app.on(['GET', 'POST'], '/_refresh', refresh);
  app.on(['GET', 'POST'], '/:index/_refresh', refresh);
  /** `force` (ES's default false): flush shards without writes since their last commit point too; `wait_if_ongoing` (default true): else skip shards being flushed. */
  const flush = async (c: Context, expression?: string) => {
    const query = checkParams(c, FLUSH_PARAMS);
    const force = booleanParam(query.force, false);
    const waitIfOngoing = booleanParam(query.wait_if_ongoing, true);
    return send(c, 200, broadcast(await engine.flush(expression, { force, waitIfOngoing }, indicesOptions(query))));
  };
  app.on(['GET', 'POST'], '/_flush', (c) => flush(c));
  app.on(['GET', 'POST'], '/:index/_flush', (c) => flush(c, c.req.param('index')));
  /**
   * `max_num_segments` (ES's default -1: merge only if the merge policy wants to), or
   * `only_expunge_deletes`, not both; `flush` (default true) afterwards; `wait_for_completion=false`
   * runs it as a task and answers its id.
   */
  const forceMerge = async (c: Context) => {
    const query = checkParams(c, FORCE_MERGE_PARAMS);
    const maxSegments = query.max_num_segments === undefined ? -1 : intParam('max_num_segments', query.max_num_segments);
    const expungeDeletes = booleanParam(query.only_expunge_deletes, false);
    if (expungeDeletes && maxSegments !== -1) throw validationFailed(['cannot set only_expunge_deletes and max_num_segments at the same time, those two parameters are mutually exclusive']);
    if (maxSegments !== -1 && maxSegments < 1) throw illegalArgument(`maxNumSegments must be >= 1; got ${maxSegments}`);
    const flushAfter = booleanParam(query.flush, true);
    const wait = booleanParam(query.wait_for_completion, true);
    // Unknown indices fail the request here, before anything runs, as they do in ES.
    const targets = engine.resolve(c.req.param('index'), indicesOptions(query));
    const goal = { ...(maxSegments !== -1 && { maxSegments }), ...(expungeDeletes && { expungeDeletes }) };
    const description = `Force-merge indices [${targets.map((index) => index.name).join(', ')}], maxSegments[${maxSegments}], onlyExpungeDeletes[${expungeDeletes}], flush[${flushAfter}]`;
    const task = engine.tasks.start(FORCE_MERGE_ACTION, description, async () => broadcast(await engine.forceMerge(targets, goal, flushAfter)), { store: !wait });
    if (!wait) {
      task.done.catch(() => {});
      await task.recorded;
      return send(c, 200, { task: task.taskId });
    }
    return send(c, 200, await task.done);
  };
  app.post('/_forcemerge', forceMerge);
  app.post('/:index/_forcemerge', forceMerge);
  /**
   * Without flags every cache goes; with them, only those named. deeppage's caches (sorted runs,
   * global ordinals) are ES's fielddata; it has no query or request cache, so those have nothing to drop.
   */
  const clearCache = (c: Context) => {
    const query = checkParams(c, CACHE_PARAMS);
    if (query.fields !== undefined) throw notSupported('[fields] on _cache/clear');
    const expression = c.req.param('index') ?? query.index;
    const flags = ['fielddata', 'query', 'request'].filter((name) => booleanParam(query[name], false));
    const options = indicesOptions(query);
    const targets = flags.length === 0 || flags.includes('fielddata') ? engine.clearCaches(expression, options) : engine.resolve(expression, options);
    return send(c, 200, broadcast(targets));
  };
  app.post('/_cache/clear', clearCache);
  app.post('/:index/_cache/clear', clearCache);

  app.get('/:index/_mapping', (c) => {
    const indices = engine.resolve(c.req.param('index'), indicesOptions(checkParams(c, MAPPING_PARAMS)));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { mappings: i.mappings.toJSON() }])));
  });

  app.get('/:index/_settings', (c) => {
    const query = checkParams(c, READ_PARAMS);
    const indices = engine.resolve(c.req.param('index'), indicesOptions(query));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { settings: settingsShown(query, i) }])));
  });
  app.put('/:index/_settings', async (c) => {
    const query = checkParams(c, PUT_SETTINGS_PARAMS);
    for (const name of ['preserve_existing', 'reopen']) if (booleanParam(query[name], false)) throw notSupported(`[${name}=true]`);
    // ES resolves the targets of a settings update without allowing an empty match.
    await engine.updateSettings(c.req.param('index'), await jsonBody(c), indicesOptions(query, { ...STRICT_EXPAND_OPEN, allowNoIndices: false }));
    return send(c, 200, { acknowledged: true });
  });

  app.put('/:index', async (c) => {
    const query = checkParams(c, CREATE_PARAMS);
    if (query.wait_for_active_shards !== undefined) activeShardCount(query.wait_for_active_shards);
    const body = (await jsonBody(c)) ?? {};
    // Alias filters are query DSL: parsed here, where the DSL is read.
    const { aliases, ...rest } = isObject(body) ? body : { aliases: undefined };
    const index = await engine.createIndex(c.req.param('index'), isObject(body) ? rest : body, parseCreateAliases(aliases));
    return send(c, 200, { acknowledged: true, shards_acknowledged: true, index: index.name });
  });
  app.get('/:index', (c) => {
    const query = checkParams(c, READ_PARAMS);
    const indices = engine.resolve(c.req.param('index'), indicesOptions(query));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { aliases: aliasesShown(i), mappings: i.mappings.toJSON(), settings: settingsShown(query, i) }])));
  });
  app.delete('/:index', async (c) => {
    await engine.deleteIndices(c.req.param('index'), indicesOptions(checkParams(c, DELETE_PARAMS)));
    return send(c, 200, { acknowledged: true });
  });
  return app;
}

/** An index's aliases as `GET /{index}` shows them, by name. */
function aliasesShown(index: SearchIndex): Record<string, unknown> {
  return Object.fromEntries([...index.aliases].sort(([a], [b]) => (a < b ? -1 : 1)).map(([alias, props]) => [alias, shownAlias(props)]));
}

function settingsOf(index: SearchIndex) {
  return {
    index: {
      ...renderSettings(index.settings),
      uuid: index.uuid,
      creation_date: String(index.createdAt),
      provided_name: index.name,
      version: { created: VERSION },
    },
  };
}
