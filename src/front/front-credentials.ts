/**
 * The front's own credentials, for its housekeeping on the cluster (`GET /`, closing its points in
 * time): `front.username` with `front.password`, or `front.api_key`. They are secure settings, as
 * Elasticsearch's keystore holds its own: never from `-E`, where `ps` and shell histories show
 * them, but from the environment or from a file the environment names:
 *
 * | secure setting   | environment               | credentials file line   |
 * |------------------|---------------------------|-------------------------|
 * | `front.username` | `DEEPPAGE_FRONT_USERNAME` | `front.username=<name>` |
 * | `front.password` | `DEEPPAGE_FRONT_PASSWORD` | `front.password=<text>` |
 * | `front.api_key`  | `DEEPPAGE_FRONT_API_KEY`  | `front.api_key=<key>`   |
 *
 * The file is named by `DEEPPAGE_FRONT_CREDENTIALS_FILE`: UTF-8, one `name=value` a line, `#`
 * comments and blank lines allowed; the value is everything after the first `=`, as it is. Its
 * owner alone may have access to it (mode 600 or 400, as ssh asks of a private key): a file that
 * its group or others may read or write is refused. A setting given both in the file and in the
 * environment is refused, not silently one of them.
 *
 * What the rest of the front gets is {@link FrontCredentials}: the `Authorization` header value,
 * which no `JSON.stringify`, `util.inspect`, template string or error message shows. No message
 * here quotes a value.
 */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { illegalArgument } from '../engine/errors.ts';

/** The front's secure settings, by name, with the environment variable each is read from. */
export const FRONT_SECURE_SETTINGS = {
  'front.username': 'DEEPPAGE_FRONT_USERNAME',
  'front.password': 'DEEPPAGE_FRONT_PASSWORD',
  'front.api_key': 'DEEPPAGE_FRONT_API_KEY',
} as const;
export type FrontSecureSetting = keyof typeof FRONT_SECURE_SETTINGS;

/** The environment variable naming the credentials file. */
export const FRONT_CREDENTIALS_FILE_ENV = 'DEEPPAGE_FRONT_CREDENTIALS_FILE';

/** The environment as the front reads it (`process.env`'s shape). */
export type Environment = Readonly<Record<string, string | undefined>>;

export function isFrontSecureSetting(name: string): name is FrontSecureSetting {
  return Object.hasOwn(FRONT_SECURE_SETTINGS, name);
}

/**
 * The `Authorization` header value the front sends with its own requests, hidden from every way an
 * object is printed: the value lives in a private field behind a getter, and JSON, `util.inspect`
 * and `String()` show only its scheme.
 */
export class FrontCredentials {
  readonly #authorization: string;

  constructor(authorization: string) {
    this.#authorization = authorization;
  }

  /** `Basic base64(username:password)` or `ApiKey <encoded key>`. */
  get authorization(): string {
    return this.#authorization;
  }

  /** `Basic` or `ApiKey`: what may be said of the credentials. */
  get scheme(): string {
    return this.#authorization.slice(0, this.#authorization.indexOf(' '));
  }

  toJSON(): string {
    return `${this.scheme} <hidden>`;
  }

  toString(): string {
    return `${this.scheme} <hidden>`;
  }

  [inspect.custom](): string {
    return `FrontCredentials { ${this.scheme} <hidden> }`;
  }
}

/**
 * The front's secure settings, from the environment and the file it names, checked and made into
 * the header value; `undefined` when none is given. `commandLine` is the names given with `-E`: any
 * secure setting among them is refused, as Elasticsearch refuses one found in elasticsearch.yml.
 */
export function readFrontCredentials(commandLine: Iterable<string>, env: Environment): FrontCredentials | undefined {
  for (const name of commandLine) {
    if (isFrontSecureSetting(name)) {
      throw illegalArgument(`Setting [${name}] is a secure setting and must be read from the environment (${FRONT_SECURE_SETTINGS[name]}) or from the file named by ${FRONT_CREDENTIALS_FILE_ENV}, but was found on the command line`);
    }
  }
  const secure = new Map<FrontSecureSetting, string>();
  const file = env[FRONT_CREDENTIALS_FILE_ENV];
  if (file !== undefined && file !== '') for (const [name, value] of readCredentialsFile(file)) secure.set(name, value);
  for (const [name, variable] of Object.entries(FRONT_SECURE_SETTINGS) as [FrontSecureSetting, string][]) {
    const value = env[variable];
    if (value === undefined) continue;
    if (secure.has(name)) throw illegalArgument(`[${name}] is given twice: in the environment (${variable}) and in the file [${file}]`);
    secure.set(name, value);
  }
  return credentialsOf(secure);
}

function credentialsOf(secure: ReadonlyMap<FrontSecureSetting, string>): FrontCredentials | undefined {
  for (const [name, value] of secure) {
    if (value === '') throw illegalArgument(`[${name}] must not be empty`);
    // A header value: no control characters (RFC 9110 §5.5), which would also break the line it goes on.
    if (/[\0-\x1f\x7f]/.test(value)) throw illegalArgument(`[${name}] must not contain control characters`);
  }
  const username = secure.get('front.username'), password = secure.get('front.password'), apiKey = secure.get('front.api_key');
  if (apiKey !== undefined && (username !== undefined || password !== undefined)) {
    throw illegalArgument('[front.api_key] and [front.username]/[front.password] cannot both be set: the front uses one kind of credentials');
  }
  if (apiKey !== undefined) return new FrontCredentials(`ApiKey ${encodedApiKey(apiKey)}`);
  if (username === undefined && password === undefined) return undefined;
  if (password === undefined) throw illegalArgument('[front.username] is set but [front.password] is not');
  if (username === undefined) throw illegalArgument('[front.password] is set but [front.username] is not');
  // RFC 7617 §2: the user-id of Basic may not hold a colon, the password may.
  if (username.includes(':')) throw illegalArgument('[front.username] must not contain [:]');
  return new FrontCredentials(`Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`);
}

/**
 * `front.api_key` as the `ApiKey` scheme carries it: the `encoded` value Elasticsearch's create API
 * key answer gives (base64 of `id:api_key`) as it is, or `id:api_key` encoded here, as the clients
 * do for `{ id, api_key }`.
 */
function encodedApiKey(key: string): string {
  const colon = key.indexOf(':');
  if (colon > 0 && colon < key.length - 1) return Buffer.from(key, 'utf8').toString('base64');
  // RFC 9110 §11.2's token68.
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(key)) throw illegalArgument("[front.api_key] must be an encoded API key (base64 of id:api_key) or id:api_key");
  return key;
}

/** The `name=value` lines of the credentials file, after checking who may read it. */
function readCredentialsFile(path: string): Map<FrontSecureSetting, string> {
  let text: string;
  try {
    if (process.platform !== 'win32') {
      const mode = statSync(path).mode & 0o777;
      if (mode & 0o077) {
        throw illegalArgument(`the front's credentials file [${path}] (${FRONT_CREDENTIALS_FILE_ENV}) must be readable by its owner only, but its mode is [${mode.toString(8).padStart(4, '0')}]: chmod 600 it`);
      }
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!(error as NodeJS.ErrnoException).code) throw error;
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : (error as NodeJS.ErrnoException).code;
    throw illegalArgument(`cannot read the front's credentials file [${path}] (${FRONT_CREDENTIALS_FILE_ENV}) because ${why}`);
  }
  const settings = new Map<FrontSecureSetting, string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const at = line.indexOf('=');
    // The line is not quoted: it may be a secret written without its name.
    if (at < 0) throw illegalArgument(`the front's credentials file [${path}]: line ${i + 1} is not name=value`);
    const name = line.slice(0, at).trim();
    if (!isFrontSecureSetting(name)) {
      // Named only when it looks like a setting's name: a misplaced `=` could put a secret before it.
      const shown = /^front\.[a-z0-9_.]+$/.test(name) ? ` [${name}]` : '';
      throw illegalArgument(`the front's credentials file [${path}]: line ${i + 1}: unknown secure setting${shown}, expected one of [${Object.keys(FRONT_SECURE_SETTINGS).join(', ')}]`);
    }
    if (settings.has(name)) throw illegalArgument(`the front's credentials file [${path}]: [${name}] is set twice`);
    settings.set(name, line.slice(at + 1));
  });
  return settings;
}
