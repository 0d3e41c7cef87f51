/**
 * `GET /_security/_authenticate`: who the request's credentials name, in ES's shape (clients call
 * it to check credentials). Mounted only with security on: ES registers no security endpoint
 * when `xpack.security.enabled` is false.
 */
import { Hono } from 'hono';
import type { Principal } from '../auth/authenticator.ts';
import { principalOf } from '../auth/middleware.ts';
import { send } from '../respond.ts';

export function securityRoutes(): Hono {
  const app = new Hono();
  app.get('/_security/_authenticate', (c) => send(c, 200, authenticateResponse(principalOf(c)!)));
  return app;
}

/** Users come from the credentials file, as ES's `file` realm's do; an API key authenticates as itself (its name is the username). */
function authenticateResponse(principal: Principal) {
  const realm = principal.type === 'realm' ? { name: 'file', type: 'file' } : { name: '_es_api_key', type: '_es_api_key' };
  return {
    username: principal.type === 'realm' ? principal.username : principal.name,
    roles: [],
    full_name: null,
    email: null,
    metadata: {},
    enabled: true,
    authentication_realm: realm,
    lookup_realm: realm,
    authentication_type: principal.type,
    ...(principal.type === 'api_key' && { api_key: { id: principal.id, name: principal.name } }),
  };
}
