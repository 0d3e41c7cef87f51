/**
 * `_bulk`: NDJSON pairs of action and source lines. Items fail one by one (the response's `errors`
 * flag says whether any did); a malformed request fails as a whole, before anything is written.
 */
import { Hono, type Context } from 'hono';
import type { Engine, WriteOp } from '../../engine/engine.ts';
import { badRequest, EsError, illegalArgument, validationFailed } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import type { Slab } from '../json-bytes.ts';
import type { NdjsonLine } from '../body.ts';
import { ndjsonBody } from '../request-body.ts';
import { sendWithList } from '../respond.ts';
import { WriteItemJson } from '../write-item-json.ts';
import { notSupported, tokenName } from '../../engine/request/request-values.ts';
import { BULK_WRITE_PARAMS, checkWriteParams, refreshPolicy } from '../../engine/request/write-params.ts';
import { SOURCE_PARAMS } from '../../engine/request/search-source.ts';
import { queryOf, pathOf } from '../request-uri.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';

/** ES's `_bulk` parameters: those of its writes (write-params.ts), and `_source` for update results, which is refused below. */
const BULK_PARAMS = new Set([...RESPONSE_PARAMS, ...BULK_WRITE_PARAMS, ...SOURCE_PARAMS]);

/** About a bulk item's answer in bytes, for sizing the answer's buffer (a short id and index name). */
const ITEM_BYTES = 200;

const ACTIONS = ['create', 'delete', 'index', 'update'] as const;
type Action = (typeof ACTIONS)[number];

export function bulkRoutes(engine: Engine, slab: Slab): Hono {
  const app = new Hono();
  const bulk = async (c: Context) => {
    const started = performance.now();
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), BULK_PARAMS);
    checkWriteParams(query);
    const source = SOURCE_PARAMS.find((name) => query[name] !== undefined);
    if (source) throw notSupported(`[${source}] on _bulk (the updated source in update results)`);
    const { actions, indices, ids, written } = startBulk(engine, await ndjsonBody(c), c);
    const results = await written;
    const head = { errors: results.some((result) => result instanceof EsError), took: Math.round(performance.now() - started) };
    const itemJson = new WriteItemJson();
    const item = (i: number) => ({ [actions[i]]: results[i] instanceof EsError ? failedItem(indices[i], ids[i], results[i]) : results[i] });
    return sendWithList(c, 200, head, 'items', {
      count: results.length,
      bytesEach: ITEM_BYTES,
      value: item,
      write: (i, out) => {
        const result = results[i];
        if (result instanceof EsError) out.text(JSON.stringify(item(i)));
        else itemJson.write(out, actions[i], result);
      },
    }, slab);
  };
  app.on(['POST', 'PUT'], '/_bulk', bulk);
  app.on(['POST', 'PUT'], '/:index/_bulk', bulk);
  return app;
}

/**
 * Parses the request's lines and starts writing them, keeping apart what the answer needs of each
 * write. The writes themselves are held by no frame that waits for them to be durable (a suspended
 * async function keeps its locals, used again or not): the engine lets go of them once planned, so
 * the parsed sources die young instead of being copied by a young collection, then promoted.
 */
function startBulk(engine: Engine, lines: NdjsonLine[], c: Context) {
  const ops = parseBulk(lines, c.req.param('index'), queryOf(c).routing);
  return {
    actions: ops.map((op) => op.action),
    indices: ops.map((op) => op.index),
    ids: ops.map((op) => op.id),
    written: engine.write(ops, refreshPolicy(queryOf(c).refresh)),
  };
}

function failedItem(index: string, id: string | undefined, error: EsError) {
  return { _index: index, _id: id ?? null, status: error.status, error: error.describe() };
}

export function parseBulk(lines: NdjsonLine[], defaultIndex?: string, defaultRouting?: string): WriteOp[] {
  const ops: WriteOp[] = [];
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const { action, meta } = actionLine(lines[i].value, i + 1);
    const index = typeof meta._index === 'string' ? meta._index : defaultIndex;
    const id = meta._id === undefined || meta._id === null ? undefined : String(meta._id);
    const routing = typeof meta.routing === 'string' ? meta.routing : defaultRouting;
    if (index === undefined) problems.push('index is missing');
    if (action === 'delete') {
      if (id === undefined) problems.push('id is missing');
      ops.push({ action, index: index ?? '', id: id ?? '', routing });
      continue;
    }
    if (i + 1 >= lines.length) throw illegalArgument(`Malformed action/metadata line [${i + 1}], expected a source line after it`);
    const { value: source, bytes } = lines[++i];
    if (!isObject(source)) throw badRequest('mapper_parsing_exception', `failed to parse, document is empty or not an object (line [${i + 1}])`);
    if (action === 'update') {
      if (id === undefined) problems.push('id is missing');
      const { doc, upsert, doc_as_upsert: docAsUpsert, detect_noop: detectNoop, ...rest } = source;
      const unknown = Object.keys(rest);
      if (unknown.length) throw illegalArgument(`[update] deeppage supports [doc], [upsert], [doc_as_upsert] and [detect_noop], not [${unknown[0]}]`);
      // An update that changes nothing is always a noop here (ES's default).
      if (detectNoop === false) throw notSupported('[detect_noop=false] in a bulk update');
      if (doc !== undefined && !isObject(doc)) throw badRequest('parsing_exception', '[doc] must be an object');
      if (upsert !== undefined && !isObject(upsert)) throw badRequest('parsing_exception', '[upsert] must be an object');
      if (doc === undefined) problems.push('script or doc is missing');
      ops.push({ action, index: index ?? '', id: id ?? '', doc: doc as Record<string, unknown> | undefined, upsert: upsert as Record<string, unknown> | undefined, docAsUpsert: docAsUpsert === true, routing });
    } else {
      // The source is stored as the line the client sent, byte for byte.
      ops.push({ action: action as 'index' | 'create', index: index ?? '', id, source, sent: bytes, routing });
    }
  }
  if (problems.length) {
    throw validationFailed(problems);
  }
  if (ops.length === 0) throw validationFailed(['no requests added']);
  return ops;
}

/** Metadata keys ES takes that deeppage does not act on yet: refused rather than ignored. */
const UNSUPPORTED_META = ['version', 'version_type', 'if_seq_no', 'if_primary_term', 'pipeline', 'require_alias', 'require_data_stream', 'retry_on_conflict', 'dynamic_templates', 'list_executed_pipelines', '_source', 'op_type'];

/** An action line `{action: {metadata}}`, refused with the reasons of ES's bulk parser. */
function actionLine(line: unknown, number: number): { action: Action; meta: Record<string, unknown> } {
  if (!isObject(line)) throw malformed(number, `expected START_OBJECT but found [${tokenName(line)}]`);
  // The first key and whether there are more, without a list of keys per line.
  let first: string | undefined, more = false;
  for (const key in line) {
    if (first === undefined) first = key;
    else {
      more = true;
      break;
    }
  }
  if (first === undefined) throw malformed(number, 'expected FIELD_NAME but found [END_OBJECT]');
  const action = first as Action;
  if (!ACTIONS.includes(action)) throw malformed(number, `expected field [create], [delete], [index] or [update] but found [${first}]`);
  const meta = line[action];
  if (!isObject(meta)) throw malformed(number, `expected START_OBJECT or END_OBJECT but found [${tokenName(meta)}]`);
  if (more) throw malformed(number, 'expected END_OBJECT but found [FIELD_NAME]');
  for (const key in meta) {
    if (key === '_index' || key === '_id' || key === 'routing') continue;
    if (UNSUPPORTED_META.includes(key)) throw notSupported(`[${key}] in a bulk action`);
    throw illegalArgument(`Action/metadata line [${number}] contains an unknown parameter [${key}]`);
  }
  return { action, meta };
}

/** ES's error for an action line it cannot read (a function, not a closure per line: see mapping.ts `extract`). */
function malformed(number: number, what: string) {
  return illegalArgument(`Malformed action/metadata line [${number}], ${what}`);
}
