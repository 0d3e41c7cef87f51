/** The multi-item read APIs: `_mget` (documents by id) and `_msearch` (searches), one file each. */
import { Hono } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import type { Slab } from '../json-bytes.ts';
import { mgetRoutes } from './mget.ts';
import { msearchRoutes } from './msearch.ts';

export function multiRoutes(engine: Engine, slab: Slab): Hono {
  const app = new Hono();
  app.route('/', mgetRoutes(engine));
  app.route('/', msearchRoutes(engine, slab));
  return app;
}
