/**
 * Errors in Elasticsearch's vocabulary. The engine throws them; the HTTP layer renders them as
 * `{"error":{"root_cause":[…],"type":…,"reason":…},"status":N}`. Every error a client can cause is
 * one of these, with a 4xx status; anything else is a bug and renders as a 500.
 */
import { NODE_ID } from './node.ts';

/** Extra fields ES prints beside `type` and `reason` (e.g. `index`, `resource.id`, `phase`). */
export type ErrorFields = Record<string, unknown>;

/** One error as ES prints it; `caused_by` nests the same shape (src/http/error-response.ts adds `root_cause`). */
export type ErrorCause = { type: string; reason: string; caused_by?: ErrorCause } & Record<string, unknown>;

export class EsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly reason: string,
    readonly fields: ErrorFields = {},
    readonly causedBy?: EsError,
  ) {
    super(reason);
  }

  /** The error as ES prints it: type, reason, its own fields, and (`withCause`) the `caused_by` chain. */
  describe(withCause = true): ErrorCause {
    const cause: ErrorCause = { type: this.type, reason: this.reason, ...this.fields };
    if (withCause && this.causedBy) cause.caused_by = this.causedBy.describe(true);
    return cause;
  }

  /** The error {@link describe} printed, made again (its `caused_by` chain too); `status` is the top's. */
  static described(cause: ErrorCause, status: number): EsError {
    const { type, reason, caused_by, ...fields } = cause;
    return new EsError(status, type, reason, fields, caused_by === undefined ? undefined : EsError.described(caused_by, status));
  }

  /**
   * The causes ES lists in `root_cause`: the shard failure behind a search phase failure, else this
   * error itself (a `caused_by` such as a JSON parser's error is detail, not a root cause, in ES).
   */
  rootCauses(): EsError[] {
    if (this.type === 'search_phase_execution_exception' && this.causedBy) return this.causedBy.rootCauses();
    // A query's parse error inside a clause (`[bool] failed to parse field [must]`) wraps the
    // query's own error, which ES reports as the root cause; a JSON syntax error stays detail.
    if (this.type === 'x_content_parse_exception' && this.causedBy && this.causedBy.type !== 'json_parse_exception') return this.causedBy.rootCauses();
    return [this];
  }
}

/** Any failure as an EsError: an EsError as it is, anything else (a bug) as ES answers one, a 500 `exception`. */
export function toEsError(e: unknown): EsError {
  if (e instanceof EsError) return e;
  return new EsError(500, 'exception', e instanceof Error ? e.message : String(e));
}

export const badRequest = (type: string, reason: string, fields?: ErrorFields, causedBy?: EsError) =>
  new EsError(400, type, reason, fields, causedBy);

export const illegalArgument = (reason: string) => badRequest('illegal_argument_exception', reason);

/** ES's `ActionRequestValidationException`: every problem found, numbered, in one 400. */
export function validationFailed(problems: readonly string[]): EsError {
  return badRequest('action_request_validation_exception', `Validation Failed: ${problems.map((p, i) => `${i + 1}: ${p};`).join('')}`);
}

/** What deeppage does not do yet, refused as Elasticsearch refuses what it cannot parse. */
export function notSupported(what: string): EsError {
  return illegalArgument(`${what} is not supported by deeppage yet`);
}

export const parsingError = (reason: string, fields?: ErrorFields) => badRequest('parsing_exception', reason, fields);

export function indexNotFound(index: string, resourceType = 'index_or_alias'): EsError {
  return new EsError(404, 'index_not_found_exception', `no such index [${index}]`, {
    'resource.type': resourceType,
    'resource.id': index,
    index_uuid: '_na_',
    index,
  });
}

/**
 * A failure every shard of the search hit (e.g. the result window check, which ES runs per shard):
 * ES answers `search_phase_execution_exception` "all shards failed", listing each failing index's
 * failure once (identical shard failures are grouped), with the first as the cause. With
 * `allow_partial_search_results=false`, some failing shards fail the search the same way, as
 * "Partial shards failure".
 */
export function allShardsFailed(failures: readonly { index: string; error: EsError }[], reason = 'all shards failed'): EsError {
  const [first] = failures;
  return new EsError(
    first.error.status,
    'search_phase_execution_exception',
    reason,
    { phase: 'query', grouped: true, failed_shards: failures.map(({ index, error }) => shardFailure(index, error)) },
    first.error,
  );
}

/** One entry of `failed_shards` / `_shards.failures`: ES names the first shard of a group. */
export function shardFailure(index: string, error: EsError, shard = 0) {
  return { shard, index, node: NODE_ID, reason: error.describe() };
}


/** A point in time or scroll that expired, was closed, or never existed: ES fails every shard of it with a 404. */
export function searchContextMissing(id: number): EsError {
  const cause = new EsError(404, 'search_context_missing_exception', `No search context found for id [${id}]`);
  return new EsError(404, 'search_phase_execution_exception', 'all shards failed', {
    phase: 'query',
    grouped: true,
    failed_shards: [{ shard: -1, index: null, reason: { type: cause.type, reason: cause.reason } }],
  }, cause);
}
