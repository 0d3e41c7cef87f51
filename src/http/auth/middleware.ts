/**
 * Authentication for every request, `GET /` included (as ES requires): the credentials of the
 * `Authorization` header, or ES's 401. The principal is kept for the request (`principalOf`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { incomingOf } from '../request-body.ts';
import { sendError } from '../respond.ts';
import { isRefusal } from './authorization.ts';
import type { Authenticator, Principal } from './authenticator.ts';
import { securityException } from './security-exception.ts';

const PRINCIPAL = 'principal';

export function authentication(authenticator: Authenticator): MiddlewareHandler {
  return (c, next) => {
    // Read from Node's request where there is one: the web Request's headers are built on first use.
    const incoming = incomingOf(c);
    const header = incoming ? incoming.headers.authorization : c.req.header('authorization');
    const known = authenticator.cached(header);
    if (known) {
      c.set(PRINCIPAL as never, known as never);
      return next();
    }
    return authenticator.authenticate(header).then<Response | void>((outcome) => {
      if (isRefusal(outcome)) return sendError(c, securityException(outcome, requestUri(c)));
      c.set(PRINCIPAL as never, outcome as never);
      return next();
    });
  };
}

/** Who the request was authenticated as; undefined when security is off. */
export function principalOf(c: Context): Principal | undefined {
  return c.get(PRINCIPAL as never) as Principal | undefined;
}

/** The path and query string, as ES names the request in a 401. */
function requestUri(c: Context): string {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}
