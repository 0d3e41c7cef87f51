/** Index management: create, read, delete, mappings, settings, refresh. */
import { Hono } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import type { SearchIndex } from '../../engine/search-index.ts';
import { renderSettings } from '../../engine/settings.ts';
import { jsonBody } from '../request-body.ts';
import { send } from '../respond.ts';
import { VERSION } from '../version.ts';

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
  app.on(['GET', 'POST'], '/_flush', async (c) => send(c, 200, broadcast(await engine.flush())));
  app.on(['GET', 'POST'], '/:index/_flush', async (c) => send(c, 200, broadcast(await engine.flush(c.req.param('index')))));
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
