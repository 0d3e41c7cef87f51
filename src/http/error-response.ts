/**
 * The one place an error becomes ES's JSON: `{"error": {root_cause, type, reason, ...fields, caused_by?}, "status": N}`.
 * Clients build their messages from it (the JS client prints `type`, then the `caused_by` chain and
 * `root_cause`), so every field sits where ES puts it.
 *
 * @example
 * errorBody(illegalArgument('[from] parameter cannot be negative but was [-2]'))
 * // {"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"…"}],
 * //           "type":"illegal_argument_exception","reason":"…"},"status":400}
 */
import { toEsError, type EsError, type ErrorCause } from '../engine/errors.ts';

export type { ErrorCause } from '../engine/errors.ts';

export interface ErrorBody {
  error: ErrorCause & { root_cause: ErrorCause[] };
  status: number;
}

export function errorBody(err: EsError): ErrorBody {
  // ES renders root causes with their own fields but never with their causes.
  const root_cause = err.rootCauses().map((cause) => cause.describe(false));
  return { error: { root_cause, ...err.describe() }, status: err.status };
}

/** The body for a failure that was not an EsError, i.e. a bug: a 500 that still has ES's shape. */
export function internalErrorBody(e: unknown): ErrorBody {
  return errorBody(toEsError(e));
}
