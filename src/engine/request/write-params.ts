/** Parameters shared by the write endpoints: `refresh`, `routing`, `op_type`, and the rest of ES's. */
import type { RefreshPolicy } from '../engine.ts';
import { badRequest, illegalArgument } from '../errors.ts';
import { timeValueMs } from '../time-value.ts';
import { booleanParam } from '../booleans.ts';
import { notSupported } from './request-values.ts';

/** ES: `?refresh` and `?refresh=true` refresh at once, `wait_for` waits for the next refresh. */
export function refreshPolicy(value: string | undefined): RefreshPolicy {
  if (value === undefined || value === 'false') return 'false';
  if (value === '' || value === 'true') return 'true';
  if (value === 'wait_for') return 'wait_for';
  throw illegalArgument(`Unknown value for refresh: [${value}].`);
}

export function opType(value: string | undefined): 'index' | 'create' {
  if (value === undefined || value === 'index') return 'index';
  if (value === 'create') return 'create';
  throw illegalArgument(`opType must be 'create' or 'index', found: [${value}]`);
}

/** `_create` takes an `op_type` only if it says `create` (ES's RestIndexAction.CreateHandler). */
export function checkCreateOpType(value: string | undefined): void {
  if (value !== undefined && value.toLowerCase() !== 'create') throw illegalArgument(`opType must be 'create', found: [${value}]`);
}

/**
 * The URI parameters ES's write APIs (index, create, delete, `_bulk`) take, checked as ES checks
 * them. `timeout` is how long a write waits for its primary, which one node always has;
 * `wait_for_active_shards` up to 1 is always met by that primary. What would need more than deeppage
 * has (more active copies, ingest pipelines, aliases, data streams, optimistic concurrency) is
 * refused rather than ignored.
 */
const EVERY_WRITE_PARAMS = ['refresh', 'routing', 'timeout', 'wait_for_active_shards'];
/** What writes that carry a document take besides (index, create, `_bulk`). */
const DOCUMENT_WRITE_PARAMS = ['pipeline', 'require_alias', 'require_data_stream', 'include_source_on_error', 'list_executed_pipelines'];
/** Optimistic concurrency control, which a single document's write takes (`_bulk` only per item). */
const CONCURRENCY_PARAMS = ['version', 'version_type', 'if_seq_no', 'if_primary_term'];

/** Index and create. */
export const WRITE_PARAMS = [...EVERY_WRITE_PARAMS, ...DOCUMENT_WRITE_PARAMS, ...CONCURRENCY_PARAMS];
export const BULK_WRITE_PARAMS = [...EVERY_WRITE_PARAMS, ...DOCUMENT_WRITE_PARAMS];
export const DELETE_PARAMS = [...EVERY_WRITE_PARAMS, ...CONCURRENCY_PARAMS];

export function checkWriteParams(query: Record<string, string | undefined>): void {
  for (const name of CONCURRENCY_PARAMS) {
    if (query[name] !== undefined) throw notSupported(`[${name}] (optimistic concurrency control)`);
  }
  if (query.timeout !== undefined) timeValueMs('timeout', query.timeout);
  if (query.wait_for_active_shards !== undefined) activeShardCount(query.wait_for_active_shards);
  if (query.pipeline !== undefined && query.pipeline !== '_none') throw notSupported('[pipeline] (ingest pipelines)');
  for (const name of ['require_alias', 'require_data_stream', 'list_executed_pipelines']) {
    if (booleanParam(query[name], false)) throw notSupported(`[${name}=true]`);
  }
  if (!booleanParam(query.include_source_on_error, true)) throw notSupported('[include_source_on_error=false]');
}

/** ES's `ActiveShardCount.parseString`: `all` (Infinity here) or a count. */
export function parseActiveShardCount(value: string): number {
  if (value !== 'all' && !/^[+-]?\d+$/.test(value)) {
    throw badRequest('illegal_argument_exception', `cannot parse ActiveShardCount[${value}]`, undefined, badRequest('number_format_exception', `For input string: "${value}"`));
  }
  const count = value === 'all' ? Infinity : Number(value);
  if (count < 0) throw illegalArgument('shard count cannot be a negative value');
  return count;
}

/**
 * A write's or an index creation's `wait_for_active_shards`. One node holds one copy of each shard,
 * so a count above 1 (or `all`, with replicas asked for) could only time out: it is refused.
 */
export function activeShardCount(value: string): number {
  const count = parseActiveShardCount(value);
  if (count > 1) throw notSupported(`[wait_for_active_shards=${value}] (one node holds one copy of each shard)`);
  return count;
}
