/** Single-document APIs: index, create, get, delete. */
import { Hono, type Context } from 'hono';
import type { Engine, WriteItem, WriteOp } from '../../engine/engine.ts';
import { badRequest, EsError } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import { RawJson } from '../../engine/raw-json.ts';
import { filterSource } from '../../engine/search/source-filter.ts';
import { sourceFromParams } from '../search-source.ts';
import { jsonBodyAndText } from '../request-body.ts';
import { send } from '../respond.ts';
import { opType, refreshPolicy } from '../write-params.ts';
import { queryOf } from '../request-uri.ts';

export function documentRoutes(engine: Engine): Hono {
  const app = new Hono();

  const write = async (c: Context, op: WriteOp) => {
    const [item] = await engine.write([op], refreshPolicy(queryOf(c).refresh));
    if (item instanceof EsError) throw item;
    const { status, ...body } = item as WriteItem;
    return send(c, status, body);
  };
  /** The document, and its text, stored as the client sent it. */
  const source = async (c: Context) => {
    const { value, text } = await jsonBodyAndText(c);
    if (!isObject(value)) throw badRequest('parsing_exception', 'request body is required and must be a JSON object');
    return { source: value, text };
  };
  const indexDoc = async (c: Context, id: string | undefined, action: 'index' | 'create') =>
    write(c, { action, index: c.req.param('index')!, id, ...(await source(c)), routing: queryOf(c).routing });

  app.post('/:index/_doc', (c) => indexDoc(c, undefined, 'create'));
  app.on(['PUT', 'POST'], '/:index/_doc/:id', (c) => indexDoc(c, c.req.param('id'), opType(queryOf(c).op_type)));
  app.on(['PUT', 'POST'], '/:index/_create/:id', (c) => indexDoc(c, c.req.param('id'), 'create'));

  app.get('/:index/_doc/:id', (c) => {
    const name = c.req.param('index'), id = c.req.param('id');
    const found = engine.get(name, id, queryOf(c).routing);
    if (!found) return send(c, 404, { _index: engine.resolveOne(name).name, _id: id, found: false });
    const source = sourceFromParams(queryOf(c)) ?? { includes: [], excludes: [] };
    const { doc } = found;
    const head = {
      _index: found.index.name,
      _id: id,
      _version: doc.version,
      _seq_no: found.seq,
      _primary_term: 1,
      ...(doc.routing !== undefined && { _routing: doc.routing }),
      found: true,
    };
    if (source === false) return send(c, 200, head);
    // The whole `_source` goes back as it was sent; filtering needs its values.
    const whole = source.includes.length === 0 && source.excludes.length === 0;
    return send(c, 200, { ...head, _source: whole ? new RawJson(doc.source) : filterSource(JSON.parse(doc.source) as Record<string, unknown>, source) });
  });

  app.delete('/:index/_doc/:id', (c) => {
    engine.resolveOne(c.req.param('index'));
    return write(c, { action: 'delete', index: c.req.param('index'), id: c.req.param('id'), routing: queryOf(c).routing });
  });
  return app;
}
