/**
 * Points in time: opening one (`POST /{index}/_pit`) and closing it (`DELETE /_pit`). A search over
 * one is a search whose body names it (`pit`, search-params.ts), with no index in its path.
 *
 * @example
 * const { id } = openPointInTime(engine, 'books', { keep_alive: '1m' });
 * const page = search(engine, undefined, {}, { pit: { id, keep_alive: '1m' }, sort: [{ price: 'asc' }] });
 * closePointInTime(engine, {}, { id }); // { succeeded: true, num_freed: 1 }
 */
import type { Engine } from '../engine.ts';
import { illegalArgument, validationFailed } from '../errors.ts';
import { isObject } from '../patterns.ts';
import { timeValueMs } from '../time-value.ts';
import { INDICES_OPTIONS_PARAMS, searchScope } from './indices-options.ts';
import { checkParamNames, requestPath, RESPONSE_PARAMS } from './search-params.ts';

type Params = Record<string, string | undefined>;

/** `preference` and the index options as a search reads them (indices-options.ts). */
const OPEN_PIT_PARAMS = new Set([...RESPONSE_PARAMS, 'keep_alive', 'routing', 'preference', ...INDICES_OPTIONS_PARAMS]);
const CLOSE_PIT_PARAMS = new Set(RESPONSE_PARAMS);

/** @param path names the request in errors, as the client sent it; `/{index}/_pit` by default. */
export function openPointInTime(engine: Engine, index: string | undefined, params: Params, body?: unknown, path = requestPath(index, '_pit')): ReturnType<Engine['openPointInTime']> {
  checkParamNames(params, path, OPEN_PIT_PARAMS);
  const problems: string[] = [];
  if (index === undefined) problems.push('[index] is not specified');
  if (params.keep_alive === undefined) problems.push('[keep_alive] is not specified');
  if (problems.length > 0) throw validationFailed(problems);
  if (isObject(body) && Object.keys(body).length > 0) {
    const [key] = Object.keys(body);
    throw illegalArgument(key === 'index_filter' ? '[index_filter] is not supported by deeppage yet' : `request [${path}] does not support [${key}]`);
  }
  return engine.openPointInTime(index!, timeValueMs('keep_alive', params.keep_alive!), params.routing, true, searchScope(params));
}

/** Closes the point in time the body's `id` names. */
export function closePointInTime(engine: Engine, params: Params, body?: unknown, path = '/_pit'): { succeeded: boolean; num_freed: number } {
  checkParamNames(params, path, CLOSE_PIT_PARAMS);
  const id = isObject(body) ? body.id : undefined;
  if (typeof id !== 'string' || id === '') throw validationFailed(['id is empty']);
  return engine.cursors.closePits([id]);
}
