/**
 * Which product the fronted cluster is, from its `GET /`: OpenSearch names itself in
 * `version.distribution` (`"opensearch"`); Elasticsearch sends no distribution (es-semantics.md,
 * "GET / root info"). The front picks its point-in-time dialect by it. The request goes with the
 * front's own credentials, if it has any; the transport is the caller's, so this reads answers only.
 *
 * @example
 * const kind = await readClusterKind((path, headers) => send('GET', path, headers), front.credentials?.authorization);
 * // { distribution: 'opensearch', version: '2.11.0' }
 */

export interface ClusterKind {
  distribution: 'elasticsearch' | 'opensearch';
  /** `version.number` as the cluster gives it, e.g. `8.15.0` or `2.11.0`. */
  version: string;
}

/** One GET on the cluster: the path, the headers to send, and what came back. */
export type ClusterGet = (path: string, headers: Record<string, string>) => Promise<{ status: number; body: string }>;

/** How much of an unexpected answer an error quotes. */
const QUOTED_CHARS = 300;

/**
 * The cluster's kind from its `GET /`. Throws, saying what the cluster answered, on a status other
 * than 2xx, a body that is not JSON, or one without `version.number`; the error never holds the
 * credentials, even when the answer echoes them.
 */
export async function readClusterKind(get: ClusterGet, authorization?: string): Promise<ClusterKind> {
  const { status, body } = await get('/', authorization === undefined ? {} : { Authorization: authorization });
  const quoted = () => quote(body, authorization);
  if (status < 200 || status > 299) throw new Error(`the cluster answered GET / with status [${status}]: ${quote(errorOf(body) ?? body, authorization)}`);
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch {
    throw new Error(`the cluster's answer to GET / is not JSON: ${quoted()}`);
  }
  const version = isObject(root) && isObject(root.version) ? root.version : undefined;
  if (!version || typeof version.number !== 'string' || version.number === '') throw new Error(`the cluster's answer to GET / has no version.number: ${quoted()}`);
  const distribution = version.distribution;
  if (distribution === undefined || distribution === 'elasticsearch') return { distribution: 'elasticsearch', version: version.number };
  if (distribution === 'opensearch') return { distribution: 'opensearch', version: version.number };
  throw new Error(`the cluster's answer to GET / names the distribution [${String(distribution)}], which the front does not know: it fronts elasticsearch and opensearch`);
}

/** An Elasticsearch error body's `type: reason` (`{"error":{"type":…,"reason":…},"status":…}`), if the body is one. */
function errorOf(body: string): string | undefined {
  try {
    const { error } = JSON.parse(body) as { error?: unknown };
    if (isObject(error) && typeof error.type === 'string') return typeof error.reason === 'string' ? `${error.type}: ${error.reason}` : error.type;
  } catch {
    // Not JSON: quoted as it is.
  }
  return undefined;
}

/** The start of a body on one line, with anything of the credentials it echoes hidden. */
function quote(body: string, authorization: string | undefined): string {
  let text = body;
  for (const secret of secretsOf(authorization)) text = text.split(secret).join('<hidden>');
  text = text.replace(/\s+/g, ' ').trim();
  if (text.length > QUOTED_CHARS) text = `${text.slice(0, QUOTED_CHARS)}…`;
  return text === '' ? '(an empty body)' : `[${text}]`;
}

/** What of an `Authorization` value must not be shown: the encoded token, and the password or key inside it. */
function secretsOf(authorization: string | undefined): string[] {
  if (authorization === undefined) return [];
  const token = authorization.slice(authorization.indexOf(' ') + 1);
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const inside = decoded.slice(decoded.indexOf(':') + 1);
  // A short password would hide every word that holds its letters; the token alone is then hidden.
  return inside.length >= 6 && decoded.includes(':') ? [token, inside] : [token];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
