/**
 * Request media types ES accepts for JSON and NDJSON bodies, including the vendored ones the
 * official clients send (`application/vnd.elasticsearch+json; compatible-with=8`).
 *
 * @example
 * bodyKind('application/vnd.elasticsearch+x-ndjson; compatible-with=9') // 'ndjson'
 * bodyKind('application/xml')                                            // undefined → unsupportedMediaType
 */
import { EsError } from '../engine/errors.ts';

export type BodyKind = 'json' | 'ndjson';

export const RESPONSE_CONTENT_TYPE = 'application/json; charset=UTF-8';

const KINDS: Record<string, BodyKind> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/vnd.elasticsearch+json': 'json',
  'application/vnd.elasticsearch+x-ndjson': 'ndjson',
  // `curl -d` and `fetch` with a string body send these; ES reads such bodies as JSON.
  'text/plain': 'json',
  'application/x-www-form-urlencoded': 'json',
};

/** REST API versions a `compatible-with` parameter may ask for: the 7.x compatibility layer, 8 and 9. */
const COMPATIBLE_VERSIONS = new Set(['7', '8', '9']);

/**
 * What a `Content-Type` header says the body is, or undefined when ES would refuse it (unknown type,
 * a vendored type without a supported `compatible-with`, or no header at all). Case-insensitive;
 * parameters other than `compatible-with` (such as `charset`) are ignored.
 */
export function bodyKind(contentType: string | undefined): BodyKind | undefined {
  if (contentType === undefined) return undefined;
  const [essence, ...params] = contentType.toLowerCase().split(';').map((part) => part.trim());
  const kind = Object.hasOwn(KINDS, essence) ? KINDS[essence] : undefined;
  if (kind === undefined) return undefined;
  const version = params.find((p) => p.startsWith('compatible-with='))?.slice('compatible-with='.length).trim();
  if (version !== undefined && !COMPATIBLE_VERSIONS.has(version)) return undefined;
  if (version === undefined && essence.includes('vnd.elasticsearch')) return undefined;
  return kind;
}

/**
 * ES's answer to a body whose media type it cannot read; the cause names the offending value. A
 * vendored type asking for a REST version ES does not speak is a bad request (400); any other type
 * is not acceptable (406).
 */
export function unsupportedMediaType(contentType: string | undefined): EsError {
  const detail = contentType === undefined ? 'Content-Type header is missing' : `Content-Type header [${contentType}] is not supported`;
  const status = contentType?.toLowerCase().includes('vnd.elasticsearch') ? 400 : 406;
  const cause = new EsError(status, 'illegal_argument_exception', detail);
  return new EsError(status, 'media_type_header_exception', 'Invalid media-type value on headers [Content-Type]', {}, cause);
}
