/**
 * The `_cat` APIs monitoring tools poll: `GET /_cat` (the list), `/_cat/indices[/{index}]`,
 * `/_cat/count[/{index}]`, `/_cat/health`, `/_cat/shards[/{index}]` and `/_cat/aliases[/{alias}]`. Each route reads its own
 * parameters as ES's handler does, then the names are checked, then it gathers its rows from the
 * engine; the table machinery (`h`, `s`, `v`, `help`, `format`, `bytes`) is in ../cat/.
 *
 * @example
 * // GET /_cat/indices?v&h=health,index,pri,rep,docs.count&s=index
 * // health index pri rep docs.count
 * // yellow books   1   1       1000
 * // green  logs    1   0         12
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { STRICT_EXPAND_HIDDEN, type IndicesOptions } from '../../engine/index-names.ts';
import { globPattern } from '../../engine/patterns.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { sendTable, sendText } from '../cat/answer.ts';
import { clusterHealth, indexHealth, parseHealth, shardCounts } from '../health.ts';
import { ALIASES_COLUMNS } from '../cat/aliases-columns.ts';
import { COUNT_COLUMNS } from '../cat/count-columns.ts';
import { countQuery } from '../cat/count-query.ts';
import { HEALTH_COLUMNS } from '../cat/health-columns.ts';
import { INDICES_COLUMNS } from '../cat/indices-columns.ts';
import { checkCatParamNames, helpAsked, type CatParamNames } from '../cat/params.ts';
import { indexRow, shardRows } from '../cat/records.ts';
import { SHARDS_COLUMNS } from '../cat/shards-columns.ts';
import { tableOf } from '../cat/table.ts';
import { helpText } from '../cat/text-table.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions } from '../../engine/request/indices-options.ts';
import { booleanParam } from '../../engine/booleans.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';

/**
 * `master_timeout` and `include_unloaded_segments` are checked and change nothing: this node is the
 * master, and every segment is in memory. `local` and `health` are response parameters to ES,
 * known even under `help`.
 */
const INDICES_PARAMS: CatParamNames = { own: [...INDICES_OPTIONS_PARAMS, 'master_timeout', 'include_unloaded_segments'], response: ['health', 'local'] };
const SHARDS_PARAMS: CatParamNames = { own: ['master_timeout'] };
const ALIASES_PARAMS: CatParamNames = { own: ['local', 'master_timeout', 'expand_wildcards'] };

/** What `GET /_cat` prints: ES's cat, then each endpoint served here, in ES's order of registration. */
const CAT_LIST = ['=^.^=', '/_cat/shards', '/_cat/shards/{index}', '/_cat/indices', '/_cat/indices/{index}', '/_cat/count', '/_cat/count/{index}', '/_cat/health', '/_cat/aliases', '/_cat/aliases/{alias}', ''].join('\n');

/** @param clusterName as `_cluster/health` names it (app.ts's default unless told). */
export function catRoutes(engine: Engine, clusterName = 'deeppage'): Hono {
  const app = new Hono();

  app.get('/_cat', (c) => {
    checkParamNames(queryOf(c), pathOf(c), new Set([...RESPONSE_PARAMS, 'format']));
    return sendText(CAT_LIST);
  });

  const indices = (c: Context) => {
    const query = queryOf(c);
    const help = helpAsked(c);
    let options: IndicesOptions | undefined, health: ReturnType<typeof parseHealth> | undefined;
    if (!help) {
      // ES's default here is `strictExpand`: closed indices too, of which deeppage has none.
      options = indicesOptions(query);
      if (query.master_timeout !== undefined) timeValueMs('master_timeout', query.master_timeout);
      booleanParam(query.include_unloaded_segments, false);
      if (query.health !== undefined) health = parseHealth(query.health);
    }
    checkCatParamNames(c, help, INDICES_PARAMS);
    if (help) return sendText(helpText(INDICES_COLUMNS));
    const listed = engine.resolve(c.req.param('index'), options).filter((index) => health === undefined || indexHealth(index) === health);
    return sendTable(c, tableOf(INDICES_COLUMNS, listed.map((index) => indexRow(engine, index))));
  };
  app.get('/_cat/indices', indices);
  app.get('/_cat/indices/:index', indices);

  const count = async (c: Context) => {
    const help = helpAsked(c);
    const read = help ? undefined : await countQuery(c);
    checkCatParamNames(c, help, { own: read?.params });
    if (!read) return sendText(helpText(COUNT_COLUMNS));
    const { count } = engine.count(c.req.param('index'), read.query);
    return sendTable(c, tableOf(COUNT_COLUMNS, [{ at: Date.now(), count }]));
  };
  app.get('/_cat/count', count);
  app.get('/_cat/count/:index', count);

  app.get('/_cat/health', (c) => {
    const help = helpAsked(c);
    checkCatParamNames(c, help, {});
    if (help) return sendText(helpText(HEALTH_COLUMNS));
    const indices = engine.indices();
    return sendTable(c, tableOf(HEALTH_COLUMNS, [{ at: Date.now(), cluster: clusterName, status: clusterHealth(indices), shards: shardCounts(indices) }]));
  });

  const shards = (c: Context) => {
    const query = queryOf(c);
    const help = helpAsked(c);
    if (!help && query.master_timeout !== undefined) timeValueMs('master_timeout', query.master_timeout);
    checkCatParamNames(c, help, SHARDS_PARAMS);
    if (help) return sendText(helpText(SHARDS_COLUMNS));
    return sendTable(c, tableOf(SHARDS_COLUMNS, engine.resolve(c.req.param('index'), STRICT_EXPAND_HIDDEN).flatMap(shardRows)));
  };
  app.get('/_cat/shards', shards);
  app.get('/_cat/shards/:index', shards);

  const aliases = (c: Context) => {
    const query = queryOf(c);
    const help = helpAsked(c);
    let options: IndicesOptions | undefined;
    if (!help) {
      booleanParam(query.local, false);
      if (query.master_timeout !== undefined) timeValueMs('master_timeout', query.master_timeout);
      // ES lists the aliases of hidden indices too, unless `expand_wildcards` says otherwise.
      options = indicesOptions(query, STRICT_EXPAND_HIDDEN);
    }
    checkCatParamNames(c, help, ALIASES_PARAMS);
    if (help) return sendText(helpText(ALIASES_COLUMNS));
    const names = c.req.param('alias');
    const patterns = names === undefined || names === '_all' ? undefined : commaList(names).map((name) => globPattern(name));
    const rows = engine.resolve(undefined, options).flatMap((index) =>
      [...index.aliases].filter(([alias]) => !patterns || patterns.some((p) => p.test(alias))).map(([alias, props]) => ({ alias, index: index.name, props })),
    );
    return sendTable(c, tableOf(ALIASES_COLUMNS, rows));
  };
  app.get('/_cat/aliases', aliases);
  app.get('/_cat/aliases/:alias', aliases);
  return app;
}
