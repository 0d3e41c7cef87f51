/** Single-document APIs: index, create, get, delete. */
import { Hono, type Context } from 'hono';
import type { Engine, WriteItem, WriteOp } from '../../engine/engine.ts';
import { badRequest, EsError } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import { GET_PARAMS, getDocument, getFields, getOptions, refuseVersionCheck } from '../../engine/request/document-get.ts';
import { jsonBodyAndText } from '../request-body.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { checkCreateOpType, checkWriteParams, DELETE_PARAMS, opType, refreshPolicy, WRITE_PARAMS } from '../../engine/request/write-params.ts';
import { queryOf, pathOf } from '../request-uri.ts';

const INDEX_PARAMS = new Set([...RESPONSE_PARAMS, ...WRITE_PARAMS, 'op_type']);
const DELETE_DOC_PARAMS = new Set([...RESPONSE_PARAMS, ...DELETE_PARAMS]);
const GET_DOC_PARAMS = new Set([...RESPONSE_PARAMS, ...GET_PARAMS, 'version', 'version_type']);

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
    return { source: value, sent: text };
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
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), GET_DOC_PARAMS);
    refuseVersionCheck(query);
    const target = { index: c.req.param('index'), id: c.req.param('id'), routing: query.routing, fields: getFields(query) };
    const answer = getDocument(engine, target, getOptions(query));
    return send(c, answer.found ? 200 : 404, answer.body);
  });

  app.delete('/:index/_doc/:id', (c) => {
    checkWrite(c, DELETE_DOC_PARAMS);
    engine.resolveOne(c.req.param('index'));
    return write(c, { action: 'delete', index: c.req.param('index'), id: c.req.param('id'), routing: queryOf(c).routing });
  });
  return app;
}
