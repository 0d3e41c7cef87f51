/**
 * `_mget`: documents by index and id, each read as `GET /{index}/_doc/{id}` reads it
 * (document-get.ts), answered in request order. The body is read as ES's MultiGetRequest reads it;
 * a malformed or incomplete request fails whole, a missing document or index only its own item
 * (`{"_index", "_id", "error"}`, as ES's TransportMultiGetAction answers an index it cannot resolve).
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { badRequest, EsError, illegalArgument, parsingError, toEsError, validationFailed } from '../../engine/errors.ts';
import { isObject } from '../../engine/patterns.ts';
import { RawJson } from '../../engine/raw-json.ts';
import type { SourceFilter } from '../../engine/search/request.ts';
import { GET_PARAMS, getDocument, getFields, getOptions, refuseVersionCheck, type GetFields, type GetOptions } from '../../engine/request/document-get.ts';
import { sourceFromMgetDoc } from '../../engine/request/search-source.ts';
import { errorBody } from '../error-response.ts';
import { BODY_SOURCE_PARAMS, jsonBodyOrSource } from '../request-body.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { tokenName } from '../../engine/request/request-values.ts';
import { send } from '../respond.ts';
import { checkParamNames, RESPONSE_PARAMS } from '../../engine/request/search-params.ts';
import { TURNS, type Turns } from '../turns.ts';

/** A read's parameters apply to every item; `fields` is known only to be refused. */
const MGET_PARAMS = new Set([...RESPONSE_PARAMS, ...GET_PARAMS, 'fields', ...BODY_SOURCE_PARAMS]);

/** Documents read per turn of the event loop. */
const READS_PER_TURN = 256;

/** One document to read, as the body gave it: index and id may be missing (the request is then refused). */
interface Item {
  index?: string;
  id?: string;
  routing?: string;
  fields: GetFields;
}

export function mgetRoutes(engine: Engine): Hono {
  const app = new Hono();
  const mget = async (c: Context) => {
    const query = queryOf(c);
    checkParamNames(query, pathOf(c), MGET_PARAMS);
    if (query.fields !== undefined) {
      throw illegalArgument('The parameter [fields] is no longer supported, please use [stored_fields] to retrieve stored fields or _source filtering if the field is not stored');
    }
    const options = getOptions(query);
    const defaults: Item = { index: c.req.param('index'), routing: query.routing, fields: getFields(query) };
    const items = parseMget(await jsonBodyOrSource(c), defaults);
    const docs: string[] = [];
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % READS_PER_TURN === 0) await (c.get(TURNS) as Turns | undefined)?.take();
      docs.push(readItem(engine, items[i], options));
    }
    return send(c, 200, { docs: new RawJson(`[${docs.join(',')}]`) });
  };
  app.on(['GET', 'POST'], '/_mget', mget);
  app.on(['GET', 'POST'], '/:index/_mget', mget);
  return app;
}

/** The item's answer as JSON text: the document as GET gives it, or the error that kept it from being read. */
function readItem(engine: Engine, item: Item, options: GetOptions): string {
  try {
    return answerJson(getDocument(engine, { ...item, index: item.index!, id: item.id! }, options).body);
  } catch (e) {
    const error = toEsError(e);
    if (!(e instanceof EsError)) console.error(e);
    return JSON.stringify({ _index: item.index, _id: item.id, error: errorBody(error).error });
  }
}

/** The items of `{"docs": […]}` and `{"ids": […]}` (either or both, in body order), checked as ES validates them. */
function parseMget(body: unknown, defaults: Item): Item[] {
  if (body === undefined) throw badRequest('parse_exception', 'request body or source parameter is required');
  if (!isObject(body)) throw parsingError(`unexpected token [${tokenName(body)}], expected [START_OBJECT]`);
  const items: Item[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!Array.isArray(value)) throw parsingError(`unexpected token [${tokenName(value)}], expected [FIELD_NAME] or [START_ARRAY]`);
    if (key === 'docs') for (const doc of value) items.push(docItem(doc, defaults));
    else if (key === 'ids') for (const id of value) items.push({ ...defaults, id: idOf(id) });
    else throw parsingError(`unknown key [${key}] for a START_ARRAY, expected [docs] or [ids]`);
  }
  if (items.length === 0) throw validationFailed(['no documents to get']);
  const problems = items.flatMap((item, i) => [
    ...(item.index === undefined ? [`index is missing for doc ${i}`] : []),
    ...(item.id === undefined ? [`id is missing for doc ${i}`] : []),
  ]);
  if (problems.length > 0) throw validationFailed(problems);
  return items;
}

function idOf(value: unknown): string {
  if (value === null || typeof value === 'object') throw illegalArgument('ids array element should only contain ids');
  return String(value);
}

/**
 * One `docs` entry. Its `_source` and `stored_fields` replace the URI's, its `_index` and `routing`
 * the path's and the URI's. A known key's null is passed over, as ES's parser passes over a null token.
 */
function docItem(doc: unknown, defaults: Item): Item {
  if (!isObject(doc)) throw illegalArgument('docs array element should include an object');
  const item: Item = { ...defaults };
  let source: SourceFilter | undefined;
  let storedFields: string[] | undefined;
  for (const [key, value] of Object.entries(doc)) {
    if (value === null && DOC_KEYS.has(key)) continue;
    switch (key) {
      case '_index':
        item.index = scalar(key, value);
        break;
      case '_id':
        item.id = scalar(key, value);
        break;
      case 'routing':
        item.routing = scalar(key, value);
        break;
      case 'stored_fields':
        storedFields = Array.isArray(value) ? value.map((name) => scalar(key, name)) : [scalar(key, value)];
        break;
      case '_source':
        source = sourceFromMgetDoc(value);
        break;
      case 'fields':
        throw parsingError('Unsupported field [fields] used, expected [stored_fields] instead');
      case 'version':
      case 'version_type':
        refuseVersionCheck({ [key]: value });
        break;
      default:
        throw parseError(`failed to parse multi get request. unknown field [${key}]`);
    }
  }
  item.fields = { source: source ?? defaults.fields.source, storedFields: storedFields ?? defaults.fields.storedFields };
  return item;
}

const DOC_KEYS = new Set(['_index', '_id', 'routing', 'stored_fields', '_source', 'fields', 'version', 'version_type']);

/** ES's ElasticsearchParseException. */
const parseError = (reason: string) => badRequest('parse_exception', reason);

/**
 * A value ES reads as text (a number or boolean as its JSON). ES's parser skips into an object or
 * array given here and reads on from inside it; deeppage refuses one instead.
 */
function scalar(key: string, value: unknown): string {
  if (value !== null && typeof value === 'object') throw parseError(`failed to parse multi get request. [${key}] must be a value but was [${tokenName(value)}]`);
  return String(value);
}

/**
 * An answer's JSON text with a stored `_source` (its last field) spliced in as it was stored, as
 * respond.ts writes a single GET's answer: for answers that go out inside a list (`_mget`'s `docs`).
 */
function answerJson(body: Record<string, unknown>): string {
  const { _source: source, ...head } = body;
  if (!(source instanceof RawJson)) return JSON.stringify(body);
  return `${JSON.stringify(head).slice(0, -1)},"_source":${source.text}}`;
}
