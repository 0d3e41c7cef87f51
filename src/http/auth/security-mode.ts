/**
 * Whether requests must authenticate, from where the server listens, `xpack.security.enabled`
 * and the credentials configured:
 *
 * - `xpack.security.enabled=false` turns it off anywhere (with a warning off loopback);
 * - `xpack.security.enabled=true`, or any credentials configured, turns it on;
 * - otherwise it is off on loopback, and listening anywhere else is refused: a server reachable
 *   from other machines does not start open unless told to.
 */
import { isEmpty, type Credentials } from './credentials.ts';

export type SecurityMode = { on: true } | { on: false; warning?: string };

const ADD_CREDENTIALS = 'add a user or an API key with `npm run credentials` and pass the file with -E xpack.security.authc.file.path=<file> (or DEEPPAGE_CREDENTIALS_FILE)';

/** Throws an Error (one line, `deeppage: …`) when the server must not start. */
export function securityMode(host: string, enabled: boolean | undefined, credentials: Credentials): SecurityMode {
  const none = isEmpty(credentials);
  if (enabled === false) {
    return isLoopback(host) ? { on: false } : { on: false, warning: `deeppage: warning: security is disabled (xpack.security.enabled=false) while listening on ${host}: anyone who can reach it can read, write and delete every index` };
  }
  if (enabled === true && none) throw new Error(`deeppage: xpack.security.enabled is true but no credentials are configured: ${ADD_CREDENTIALS}`);
  if (!none) return { on: true };
  if (isLoopback(host)) return { on: false };
  throw new Error(`deeppage: refusing to listen on ${host} without authentication: ${ADD_CREDENTIALS}, or turn security off explicitly with -E xpack.security.enabled=false`);
}

/** 127.0.0.0/8, ::1 (bare or bracketed, or IPv4-mapped) and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
