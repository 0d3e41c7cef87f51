/**
 * The users and API keys the server accepts, one per line, secrets only as hashes (secret-hash.ts):
 *
 * ```
 * # comments and blank lines are kept as they are
 * user alice scrypt:ln=15,r=8,p=1:<salt>:<hash>
 * api_key VuaCfGcBCdbkQm-e5aOx ingest scrypt:ln=15,r=8,p=1:<salt>:<hash>
 * ```
 *
 * The hash is always the last field, so a username or key name may hold spaces. The lines come
 * from a file (`xpack.security.authc.file.path`) and/or an environment variable
 * (`DEEPPAGE_CREDENTIALS`); src/credentials-cli.ts writes them.
 */
import { readFileSync } from 'node:fs';
import { parseSecretHash, type SecretHash } from './secret-hash.ts';

export interface ApiKeyEntry {
  name: string;
  hash: SecretHash;
}

export interface Credentials {
  /** By username. */
  users: ReadonlyMap<string, SecretHash>;
  /** By API key id. */
  apiKeys: ReadonlyMap<string, ApiKeyEntry>;
}

export type CredentialLine =
  | { kind: 'user'; username: string; hash: string }
  | { kind: 'api_key'; id: string; name: string; hash: string }
  | { kind: 'comment' };

/** Where lines came from, for error messages: a file's path or an environment variable's name. */
export interface CredentialSource {
  origin: string;
  text: string;
}

export const NO_CREDENTIALS: Credentials = { users: new Map(), apiKeys: new Map() };

export const isEmpty = (credentials: Credentials) => credentials.users.size === 0 && credentials.apiKeys.size === 0;

/**
 * The credentials of the file (`xpack.security.authc.file.path`) and of the environment's lines
 * (`DEEPPAGE_CREDENTIALS`), either or both; a problem throws a one-line Error starting `deeppage:`.
 */
export function loadCredentials(file: string | undefined, lines: string | undefined): Credentials {
  const sources: CredentialSource[] = [];
  try {
    if (file !== undefined) sources.push({ origin: file, text: readFileSync(file, 'utf8') });
    if (lines !== undefined) sources.push({ origin: 'DEEPPAGE_CREDENTIALS', text: lines });
    return parseCredentials(sources);
  } catch (error) {
    throw new Error(`deeppage: credentials: ${(error as Error).message}`);
  }
}

/** Every source's lines as one set; a name defined twice, or a line that does not parse, throws an Error naming its origin and line. */
export function parseCredentials(sources: readonly CredentialSource[]): Credentials {
  const users = new Map<string, SecretHash>();
  const apiKeys = new Map<string, ApiKeyEntry>();
  for (const { origin, text } of sources) {
    text.split('\n').forEach((raw, i) => {
      const at = `${origin}:${i + 1}`;
      let line: CredentialLine, hash: SecretHash | undefined;
      try {
        line = parseCredentialLine(raw);
        if (line.kind !== 'comment') hash = parseSecretHash(line.hash);
      } catch (error) {
        throw new Error(`${at}: ${(error as Error).message}`);
      }
      if (line.kind === 'user') {
        if (users.has(line.username)) throw new Error(`${at}: user [${line.username}] is defined twice`);
        users.set(line.username, hash!);
      } else if (line.kind === 'api_key') {
        if (apiKeys.has(line.id)) throw new Error(`${at}: API key [${line.id}] is defined twice`);
        apiKeys.set(line.id, { name: line.name, hash: hash! });
      }
    });
  }
  return { users, apiKeys };
}

/** One line of the format above; the hash is checked by {@link parseCredentials}, not here. */
export function parseCredentialLine(raw: string): CredentialLine {
  const line = raw.trim();
  if (line === '' || line.startsWith('#')) return { kind: 'comment' };
  const user = /^user\s+(.+)\s+(\S+)$/.exec(line);
  if (user) {
    checkUsername(user[1]);
    return { kind: 'user', username: user[1], hash: user[2] };
  }
  const key = /^api_key\s+(\S+)\s+(.+)\s+(\S+)$/.exec(line);
  if (key) {
    checkApiKeyId(key[1]);
    checkApiKeyName(key[2]);
    return { kind: 'api_key', id: key[1], name: key[2], hash: key[3] };
  }
  throw new Error('expected [user <username> <hash>] or [api_key <id> <name> <hash>]');
}

export const userLine = (username: string, hash: string) => `user ${username} ${hash}`;
export const apiKeyLine = (id: string, name: string, hash: string) => `api_key ${id} ${name} ${hash}`;

/**
 * ES's rule for usernames (1 to 507 printable ASCII characters, no leading or trailing space), and
 * no `:`, which Basic authentication cannot carry in a username.
 */
export function checkUsername(username: string): void {
  if (username.length < 1 || username.length > 507 || !/^[\x20-\x7e]+$/.test(username) || username.trim() !== username) {
    throw new Error(`invalid username [${username}]: usernames must be at least 1 and no more than 507 characters, printable ASCII, without leading or trailing whitespace`);
  }
  if (username.includes(':')) throw new Error(`invalid username [${username}]: a username must not contain ':'`);
}

/** Ids are what src/credentials-cli.ts makes them: base64url, as ES's own API key ids are. */
export function checkApiKeyId(id: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error(`invalid API key id [${id}]: expected 1 to 64 characters of [A-Za-z0-9_-]`);
}

export function checkApiKeyName(name: string): void {
  if (name.length < 1 || name.length > 1024 || /[\x00-\x1f\x7f]/.test(name) || name.trim() !== name) {
    throw new Error(`invalid API key name [${name}]: names must be 1 to 1024 characters, without control characters or leading or trailing whitespace`);
  }
}
