/**
 * The 401 Elasticsearch answers when a request is not authenticated: `security_exception` with
 * the challenges in the error's `header` block, which respond.ts also sends as `WWW-Authenticate`
 * headers, one per scheme (Basic and ApiKey: there is no token service, so no Bearer).
 *
 * @example
 * securityException({ kind: 'missing' }, '/_cluster/health?pretty')
 * // 401 "missing authentication credentials for REST request [/_cluster/health?pretty]"
 */
import { EsError } from '../../engine/errors.ts';
import type { Refusal } from './authorization.ts';

export const CHALLENGES: readonly string[] = Object.freeze(['Basic realm="security", charset="UTF-8"', 'ApiKey']);

/** `uri` is the request's path and query string, as ES prints it. */
export function securityException(refusal: Refusal, uri: string): EsError {
  switch (refusal.kind) {
    case 'missing':
      return unauthorized(`missing authentication credentials for REST request [${uri}]`);
    case 'basic_header':
      return unauthorized(`invalid basic authentication header ${refusal.problem}`);
    case 'user':
      return unauthorized(`unable to authenticate user [${refusal.username}] for REST request [${uri}]`);
    case 'api_key':
      return unauthorized('unable to authenticate with provided credentials and anonymous access is not allowed for this request', {
        additional_unsuccessful_credentials: `API key: ${refusal.reason}`,
      });
  }
}

function unauthorized(reason: string, fields: Record<string, unknown> = {}): EsError {
  return new EsError(401, 'security_exception', reason, { ...fields, header: { 'WWW-Authenticate': [...CHALLENGES] } });
}
