/**
 * The `Authorization` header as Elasticsearch reads it: `Basic base64(user:password)` and
 * `ApiKey base64(id:api_key)`, schemes case-insensitive. Anything else (no header, `Bearer`, an
 * unknown scheme) presents no credentials ES can use here, and is answered as missing ones.
 */

export type Presented =
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'api_key'; id: string; key: string };

/** Why presented credentials were not accepted; security-exception.ts words each as ES does. */
export type Refusal =
  | { kind: 'missing' }
  /** A Basic header ES cannot read (`invalid basic authentication header value` / `encoding`). */
  | { kind: 'basic_header'; problem: 'value' | 'encoding' }
  /** A user that does not exist or gave the wrong password: ES words both alike. */
  | { kind: 'user'; username: string }
  /** An API key ES could not use, with its reason (`unable to find apikey with id …`). */
  | { kind: 'api_key'; reason: string };

export function presentedCredentials(header: string | undefined): Presented | Refusal {
  if (header === undefined) return { kind: 'missing' };
  if (hasScheme(header, 'basic ')) {
    const value = header.slice(6).trim();
    if (value === '') return { kind: 'basic_header', problem: 'value' };
    const decoded = strictBase64(value);
    if (decoded === undefined) return { kind: 'basic_header', problem: 'encoding' };
    const colon = decoded.indexOf(':');
    if (colon < 0) return { kind: 'basic_header', problem: 'value' };
    return { scheme: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  // ES takes nothing after `ApiKey ` as no credentials at all.
  if (hasScheme(header, 'apikey ') && header.length > 7) {
    const decoded = strictBase64(header.slice(7));
    const colon = decoded?.indexOf(':') ?? -1;
    if (decoded === undefined || colon < 1) return { kind: 'api_key', reason: 'invalid ApiKey value' };
    return { scheme: 'api_key', id: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
  }
  return { kind: 'missing' };
}

export const isRefusal = <T extends object>(x: T | Refusal): x is Refusal => 'kind' in x;

const hasScheme = (header: string, scheme: string) => header.length >= scheme.length && header.slice(0, scheme.length).toLowerCase() === scheme;

/**
 * Base64 as Java's decoder takes it (the alphabet, padding optional but only at the end), decoded
 * as UTF-8; undefined where Java would throw. Node's own decoder skips bad characters silently.
 */
function strictBase64(text: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1 || (unpadded.length !== text.length && text.length % 4 !== 0)) return undefined;
  return Buffer.from(text, 'base64').toString('utf8');
}
