/**
 * OpenSearch's point-in-time API: `POST /{index}/_search/point_in_time`, `DELETE
 * /_search/point_in_time` (by id, or `/_all`) and `GET /_search/point_in_time/_all`, with
 * OpenSearch's parameters, shapes and errors. They are another way to say what Elasticsearch's
 * `_pit` says (point-in-time.ts): the same points in time, kept by the engine's contexts, searched
 * with the same `pit` in a search body (whose answer carries `pit_id` in both dialects).
 *
 * @example
 * const { pit_id } = createPit(engine, 'books', { keep_alive: '1m' });
 * const page = search(engine, undefined, {}, { pit: { id: pit_id }, sort: [{ price: 'asc' }] });
 * getAllPits(engine, {}); // { pits: [{ pit_id, creation_time, keep_alive: 60000 }] }
 * deletePits(engine, {}, { pit_id: [pit_id] }); // { pits: [{ successful: true, pit_id }] }
 */
import { booleanParam } from '../booleans.ts';
import type { Engine } from '../engine.ts';
import { illegalArgument, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { timeValueMs } from '../time-value.ts';
import { INDICES_OPTIONS_PARAMS, searchScope } from './indices-options.ts';
import { checkParamNames, requestPath, RESPONSE_PARAMS } from './search-params.ts';

type Params = Record<string, string | undefined>;

const CREATE_PIT_PARAMS = new Set([...RESPONSE_PARAMS, 'keep_alive', 'allow_partial_pit_creation', 'routing', 'preference', ...INDICES_OPTIONS_PARAMS]);
const PIT_LIST_PARAMS = new Set(RESPONSE_PARAMS);

export interface CreatePitResponse {
  pit_id: string;
  _shards: { total: number; successful: number; skipped: number; failed: number };
  /** ms since the epoch. */
  creation_time: number;
}

/** Each id asked for once, in the order asked; `successful` also when it named no open point in time, as in OpenSearch. */
export interface DeletePitResponse {
  pits: { successful: boolean; pit_id: string }[];
}

export interface GetAllPitsResponse {
  /** `keep_alive` in ms; `creation_time` in ms since the epoch. */
  pits: { pit_id: string; creation_time: number; keep_alive: number }[];
}

/**
 * Opens a point in time. `allow_partial_pit_creation` is read and changes nothing: a deeppage node
 * holds every shard, so none can fail.
 *
 * @param path names the request in errors, as the client sent it.
 */
export function createPit(engine: Engine, index: string | undefined, params: Params, body?: unknown, path = requestPath(index, '_search/point_in_time')): CreatePitResponse {
  checkParamNames(params, path, CREATE_PIT_PARAMS);
  refuseBody('POST', path, body);
  if (index === undefined) throw validationFailed(['index is missing']);
  if (params.keep_alive === undefined) throw validationFailed(['keep alive not specified']);
  booleanParam(params.allow_partial_pit_creation, true);
  const { id, _shards } = engine.openPointInTime(index, timeValueMs('keep_alive', params.keep_alive), params.routing, true, searchScope(params));
  const opened = engine.cursors.pits().find((pit) => pit.id === id)!;
  return { pit_id: id, _shards, creation_time: opened.openedAt };
}

/** Closes the points in time the body's `pit_id` names (one id or a list): every id is checked first, as the contexts close them (contexts/cursors.ts). */
export function deletePits(engine: Engine, params: Params, body?: unknown, path = '/_search/point_in_time'): DeletePitResponse {
  checkParamNames(params, path, PIT_LIST_PARAMS);
  const ids = [...new Set(pitIds(body))];
  if (ids.length === 0) throw validationFailed(['no pit ids specified']);
  engine.cursors.closePits(ids);
  return { pits: ids.map((id) => ({ successful: true, pit_id: id })) };
}

/** Closes every open point in time users opened (not the node's own readers). */
export function deleteAllPits(engine: Engine, params: Params, body?: unknown, path = '/_search/point_in_time/_all'): DeletePitResponse {
  checkParamNames(params, path, PIT_LIST_PARAMS);
  refuseBody('DELETE', path, body);
  const ids = engine.cursors.pits().map((pit) => pit.id);
  engine.cursors.closePits(ids);
  return { pits: ids.map((id) => ({ successful: true, pit_id: id })) };
}

export function getAllPits(engine: Engine, params: Params, body?: unknown, path = '/_search/point_in_time/_all'): GetAllPitsResponse {
  checkParamNames(params, path, PIT_LIST_PARAMS);
  refuseBody('GET', path, body);
  return { pits: engine.cursors.pits().map((pit) => ({ pit_id: pit.id, creation_time: pit.openedAt, keep_alive: pit.keepAliveMs })) };
}

/** OpenSearch refuses a body a request does not read. */
function refuseBody(method: string, path: string, body: unknown): void {
  if (body !== undefined) throw illegalArgument(`request [${method} ${path}] does not support having a body`);
}

/** The body's `pit_id`: a list of ids or one id (OpenSearch's `DeletePitRequest.fromXContent`). */
function pitIds(body: unknown): string[] {
  if (body === undefined) return [];
  if (!isObject(body)) throw illegalArgument('Malformed content, must start with an object');
  const ids: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'pit_id') throw illegalArgument(`Unknown parameter [${key}] in request body or parameter is of the wrong type[${tokenOf(value)}] `);
    if (Array.isArray(value)) {
      for (const id of value) {
        if (!isScalar(id)) throw illegalArgument('pit_id array element should only contain pit_id');
        ids.push(String(id));
      }
    } else if (isScalar(value)) ids.push(String(value));
    else throw illegalArgument('pit_id element should only contain pit_id');
  }
  return ids;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The name Jackson's parser gives a JSON value's first token, as OpenSearch's errors quote it. */
function tokenOf(value: unknown): string {
  if (Array.isArray(value)) return 'START_ARRAY';
  if (value === null) return 'VALUE_NULL';
  if (typeof value === 'object') return 'START_OBJECT';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  return 'VALUE_BOOLEAN';
}
