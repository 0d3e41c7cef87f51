/**
 * Index aliases: `POST /_aliases` (actions applied together), `PUT|POST /{index}/_alias(es)/{name}`,
 * `DELETE /{index}/_alias(es)/{name}`, and reading them with `GET|HEAD /_alias[/{name}]` and
 * `/{index}/_alias[/{name}]`. What aliases do to searches and writes is the engine's
 * (src/engine/aliases/).
 */
import { Hono, type Context } from 'hono';
import { STRICT_EXPAND_HIDDEN } from '../../engine/index-names.ts';
import type { AliasAction } from '../../engine/aliases/alias.ts';
import { shownAlias } from '../../engine/aliases/alias.ts';
import { aliasesMissing } from '../../engine/aliases/actions.ts';
import type { Engine } from '../../engine/engine.ts';
import { globPattern, type Glob } from '../../engine/patterns.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import { timeValueMs } from '../../engine/time-value.ts';
import { parseAliasActions, parseAliasProps } from '../../engine/request/alias-body.ts';
import { errorBody } from '../error-response.ts';
import { INDICES_OPTIONS_PARAMS, indicesOptions } from '../../engine/request/indices-options.ts';
import { jsonBody } from '../request-body.ts';
import { booleanParam } from '../../engine/booleans.ts';
import { commaList } from '../../engine/request/request-values.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';

/** This node is the elected master: `master_timeout` and `timeout` are checked and change nothing. */
const CHANGE_PARAMS = new Set([...RESPONSE_PARAMS, 'master_timeout', 'timeout']);
const READ_PARAMS = new Set([...RESPONSE_PARAMS, ...INDICES_OPTIONS_PARAMS, 'local', 'master_timeout']);

function checkParams(c: Context, known: ReadonlySet<string>): Record<string, string | undefined> {
  const query = queryOf(c);
  checkParamNames(query, pathOf(c), known);
  for (const name of ['master_timeout', 'timeout']) if (query[name] !== undefined) timeValueMs(name, query[name]!);
  booleanParam(query.local, false);
  return query;
}

export function aliasRoutes(engine: Engine): Hono {
  const app = new Hono();

  const update = async (c: Context, actions: AliasAction[]) => {
    const results = await engine.updateAliases(actions);
    const failed = results.some((result) => result.error);
    if (!failed) return send(c, 200, { acknowledged: true, errors: false });
    const shown = results.map(({ action, status, error }) => ({ action, status, error: error && errorBody(error).error }));
    return send(c, 200, { acknowledged: true, errors: true, action_results: shown });
  };

  app.post('/_aliases', async (c) => {
    checkParams(c, CHANGE_PARAMS);
    return update(c, parseAliasActions(await jsonBody(c)));
  });

  const put = async (c: Context) => {
    checkParams(c, CHANGE_PARAMS);
    const props = parseAliasProps(await jsonBody(c), c.req.param('name'));
    return update(c, [{ type: 'add', indices: commaList(c.req.param('index')!), aliases: commaList(c.req.param('name')!), props }]);
  };
  for (const path of ['/:index/_alias/:name', '/:index/_aliases/:name']) {
    app.put(path, put);
    app.post(path, put);
    app.delete(path, async (c) => {
      checkParams(c, CHANGE_PARAMS);
      // ES's delete-alias removes what it finds, and fails (404) only when it finds none.
      await engine.updateAliases([{ type: 'remove', indices: commaList(c.req.param('index')!), aliases: commaList(c.req.param('name')!) }]);
      return send(c, 200, { acknowledged: true, errors: false });
    });
  }

  const read = (c: Context) => {
    const query = checkParams(c, READ_PARAMS);
    const index = c.req.param('index');
    const names = c.req.param('name');
    // ES reads aliases of hidden indices too unless told otherwise (`strictExpandHidden`).
    const indices = engine.resolve(index, indicesOptions(query, STRICT_EXPAND_HIDDEN));
    return aliasesAnswer(c, indices, names === undefined ? undefined : commaList(names), index !== undefined);
  };
  for (const path of ['/_alias', '/_aliases', '/_alias/:name', '/:index/_alias', '/:index/_aliases', '/:index/_alias/:name']) {
    app.get(path, read);
    app.on('HEAD', path, read);
  }
  return app;
}

/**
 * `GET _alias`: per index, the aliases asked for that it carries. Indices named in the path are
 * listed even without one; with alias names, only indices that carry one. Names asked for that no
 * index carries make a 404 whose body is ES's own (`{"error": "alias [x] missing", "status": 404}`),
 * beside what was found.
 */
function aliasesAnswer(c: Context, indices: readonly SearchIndex[], names: readonly string[] | undefined, indexNamed: boolean): Response {
  const all = names === undefined || names.includes('_all') || names.includes('*');
  // As ES reads alias names: `-name` after a wildcard excludes what it matches.
  const includes: { name: string; pattern: Glob }[] = [];
  const excludes: Glob[] = [];
  let wildcard = false;
  for (const name of names ?? []) {
    if (name.startsWith('-') && wildcard) {
      excludes.push(globPattern(name.slice(1)));
      continue;
    }
    if (name === '_all' || name.includes('*')) wildcard = true;
    includes.push({ name, pattern: name === '_all' ? /^/ : globPattern(name) });
  }
  const seen = new Set<string>();
  const body: Record<string, unknown> = {};
  for (const index of indices) {
    const shown: Record<string, unknown> = {};
    for (const [alias, props] of [...index.aliases].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const matching = names === undefined ? [] : includes.filter(({ pattern }) => pattern.test(alias));
      if (names !== undefined && matching.length === 0) continue;
      if (excludes.some((pattern) => pattern.test(alias))) continue;
      for (const { name } of matching) seen.add(name);
      shown[alias] = shownAlias(props);
    }
    if (Object.keys(shown).length > 0 || (all && (indexNamed || names === undefined))) body[index.name] = { aliases: shown };
  }
  const missing = includes.map(({ name }) => name).filter((name) => name !== '_all' && !name.includes('*') && !seen.has(name));
  if (missing.length === 0) return send(c, 200, body);
  const error = aliasesMissing(missing);
  const reason = missing.length === 1 ? `alias [${missing[0]}] missing` : error.reason;
  return send(c, 404, { error: reason, status: 404, ...body });
}
