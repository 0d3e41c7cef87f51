/** Single-document APIs: index, create, get, delete. */
import { Hono, type Context } from 'hono';
import type { Engine, WriteItem, WriteOp } from '../../engine/engine.ts';
import { badRequest, EsError } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import { RawJson } from '../../engine/raw-json.ts';
import { filterSource } from '../../engine/search/source-filter.ts';
import { sourceFromParams } from '../search-source.ts';
import { jsonBodyAndText } from '../request-body.ts';
import { booleanParam, commaList, notSupported } from '../request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../search-params.ts';
import { checkCreateOpType, checkWriteParams, opType, refreshPolicy, WRITE_PARAMS } from '../write-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';

const INDEX_PARAMS = new Set([...RESPONSE_PARAMS, ...WRITE_PARAMS, 'op_type']);
const DELETE_PARAMS = new Set([...RESPONSE_PARAMS, 'refresh', 'routing', 'timeout', 'wait_for_active_shards', 'version', 'version_type', 'if_seq_no', 'if_primary_term']);
/** `preference` picks among copies of the shard, and one node holds one copy: it changes nothing here. */
const GET_PARAMS = new Set([
  ...RESPONSE_PARAMS, 'realtime', 'refresh', 'routing', 'preference', '_source', '_source_includes', '_source_excludes', 'stored_fields',
  'version', 'version_type', 'force_synthetic_source',
]);

export function documentRoutes(engine: Engine): Hono {
  const app = new Hono();

  /** The URI is checked before anything is read or written, as ES does. */
  const checkWrite = (c: Context, params: ReadonlySet<string>) => {
    checkParamNames(queryOf(c), pathOf(c), params);
    checkWriteParams(queryOf(c));
  };
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
  const indexDoc = async (c: Context, id: string | undefined, action: 'index' | 'create') => {
    checkWrite(c, INDEX_PARAMS);
    return write(c, { action, index: c.req.param('index')!, id, ...(await source(c)), routing: queryOf(c).routing });
  };

  app.post('/:index/_doc', (c) => {
    // An id made here is new: either `op_type` creates, but it must be one of them.
    opType(queryOf(c).op_type);
    return indexDoc(c, undefined, 'create');
  });
  app.on(['PUT', 'POST'], '/:index/_doc/:id', (c) => indexDoc(c, c.req.param('id'), opType(queryOf(c).op_type)));
  app.on(['PUT', 'POST'], '/:index/_create/:id', (c) => {
    checkCreateOpType(queryOf(c).op_type);
    return indexDoc(c, c.req.param('id'), 'create');
  });

  app.get('/:index/_doc/:id', (c) => {
    const name = c.req.param('index'), id = c.req.param('id');
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), GET_PARAMS);
    for (const param of ['version', 'version_type']) if (query[param] !== undefined) throw notSupported(`[${param}] (optimistic concurrency control)`);
    if (query.force_synthetic_source !== undefined && booleanParam(query.force_synthetic_source)) throw notSupported('[force_synthetic_source=true]');
    const realtime = query.realtime === undefined || booleanParam(query.realtime);
    const refresh = query.refresh !== undefined && booleanParam(query.refresh);
    const found = engine.get(name, id, query.routing, { realtime, refresh });
    if (!found) return send(c, 404, { _index: engine.resolveOne(name).name, _id: id, found: false });
    // Stored fields asked for, `_source` comes only if asked for too; none is stored apart from it.
    const storedFields = query.stored_fields === undefined ? undefined : commaList(query.stored_fields);
    const sourceAsked = sourceFromParams(query);
    const source = sourceAsked ?? (storedFields && !storedFields.includes('_source') ? false : { includes: [], excludes: [] });
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
    checkWrite(c, DELETE_PARAMS);
    engine.resolveOne(c.req.param('index'));
    return write(c, { action: 'delete', index: c.req.param('index'), id: c.req.param('id'), routing: queryOf(c).routing });
  });
  return app;
}
