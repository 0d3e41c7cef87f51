/** Index management: create, read, delete, mappings, settings, refresh. */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import { renderSettings } from '../../engine/settings.ts';
import { jsonBody } from '../request-body.ts';
import { booleanParam } from '../request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../search-params.ts';
import { VERSION } from '../version.ts';
import { queryOf, pathOf } from '../request-uri.ts';

/** `ignore_unavailable`, `allow_no_indices` and `expand_wildcards` are taken without effect, as in searches (README). */
const FLUSH_PARAMS = new Set([...RESPONSE_PARAMS, 'force', 'wait_if_ongoing', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards']);

export function indexRoutes(engine: Engine): Hono {
  const app = new Hono();

  /** The `_shards` of a broadcast to every primary (replicas are counted but do not exist). */
  const broadcast = (indices: SearchIndex[]) => {
    const primaries = indices.reduce((n, i) => n + i.shards.length, 0);
    const copies = indices.reduce((n, i) => n + i.shards.length * (1 + i.settings.numberOfReplicas), 0);
    return { _shards: { total: copies, successful: primaries, failed: 0 } };
  };
  app.on(['GET', 'POST'], '/_refresh', (c) => send(c, 200, broadcast(engine.refresh())));
  app.on(['GET', 'POST'], '/:index/_refresh', (c) => send(c, 200, broadcast(engine.refresh(c.req.param('index')))));
  /** `force` (ES's default false): flush shards without writes since their last commit point too; `wait_if_ongoing` (default true): else skip shards being flushed. */
  const flush = async (c: Context, expression?: string) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), FLUSH_PARAMS);
    const force = query.force !== undefined && booleanParam(query.force);
    const waitIfOngoing = query.wait_if_ongoing === undefined || booleanParam(query.wait_if_ongoing);
    return send(c, 200, broadcast(await engine.flush(expression, { force, waitIfOngoing })));
  };
  app.on(['GET', 'POST'], '/_flush', (c) => flush(c));
  app.on(['GET', 'POST'], '/:index/_flush', (c) => flush(c, c.req.param('index')));
  app.post('/_cache/clear', (c) => send(c, 200, broadcast(engine.clearCaches())));
  app.post('/:index/_cache/clear', (c) => send(c, 200, broadcast(engine.clearCaches(c.req.param('index')))));

  app.get('/:index/_mapping', (c) => {
    const indices = engine.resolve(c.req.param('index'));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { mappings: i.mappings.toJSON() }])));
  });

  app.get('/:index/_settings', (c) => {
    const indices = engine.resolve(c.req.param('index'));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { settings: settingsOf(i) }])));
  });
  app.put('/:index/_settings', async (c) => {
    await engine.updateSettings(c.req.param('index'), await jsonBody(c));
    return send(c, 200, { acknowledged: true });
  });

  app.put('/:index', async (c) => {
    const index = await engine.createIndex(c.req.param('index'), (await jsonBody(c)) ?? {});
    return send(c, 200, { acknowledged: true, shards_acknowledged: true, index: index.name });
  });
  app.get('/:index', (c) => {
    const indices = engine.resolve(c.req.param('index'));
    return send(c, 200, Object.fromEntries(indices.map((i) => [i.name, { aliases: {}, mappings: i.mappings.toJSON(), settings: settingsOf(i) }])));
  });
  app.delete('/:index', async (c) => {
    await engine.deleteIndices(c.req.param('index'));
    return send(c, 200, { acknowledged: true });
  });
  return app;
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
