/**
 * Authentication in the app: ES's 401s (body, `header` block, `WWW-Authenticate`) for missing,
 * wrong and unreadable credentials; Basic and ApiKey accepted as clients send them; verified
 * headers remembered; no checks with security off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { parseNodeSettings } from '../../src/engine/node-settings.ts';
import { createApp } from '../../src/http/app.ts';
import { encodedApiKey, newApiKey } from '../../src/http/auth/api-key.ts';
import { Authenticator } from '../../src/http/auth/authenticator.ts';
import { apiKeyLine, parseCredentials, userLine } from '../../src/http/auth/credentials.ts';
import { hashSecret, parseSecretHash, verifySecret } from '../../src/http/auth/secret-hash.ts';
import { CHALLENGES } from '../../src/http/auth/security-exception.ts';
import { isLoopback, securityMode } from '../../src/http/auth/security-mode.ts';
import { tempEngine } from '../engine/helpers.ts';
import { expectEsHeaders, type Json, type Reply } from './app-helpers.ts';

/** Cheaper than the default cost, so the suite stays quick; the cost is read from each hash. */
const TEST_COST = { ln: 12, r: 8, p: 1 };
const PASSWORD = 'correct horse battery';
const key = newApiKey('ingest');

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let engine: Engine;
let close: () => Promise<void>;
let authenticator: Authenticator;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ({ engine, close } = tempEngine());
  const text = [
    '# test credentials',
    userLine('alice', await hashSecret(PASSWORD, TEST_COST)),
    userLine('carol smith', await hashSecret('carol-password', TEST_COST)),
    apiKeyLine(key.id, key.name, await hashSecret(key.api_key, TEST_COST)),
  ].join('\n');
  authenticator = new Authenticator(parseCredentials([{ origin: 'test', text }]));
  app = createApp({ engine, authenticator });
});
afterAll(() => close());

async function call(method: string, path: string, authorization?: string, body?: unknown, appUnder = app): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const res = await appUnder.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Json), text };
}

/** ES's 401: the reason (and any extra fields) in the error and its one root cause, each with the challenges. */
function expect401(res: Reply, reason: string, fields: Record<string, unknown> = {}): void {
  const cause = { type: 'security_exception', reason, ...fields, header: { 'WWW-Authenticate': CHALLENGES } };
  expect(res.status, res.text).toBe(401);
  expect(res.body).toEqual({ error: { root_cause: [cause], ...cause }, status: 401 });
  expect(JSON.stringify(Object.keys(res.body.error))).toBe(JSON.stringify(['root_cause', 'type', 'reason', ...Object.keys(fields), 'header']));
  // Under app.request() the web Headers join the two challenges into one line; the socket gets two (test/e2e/auth.test.ts).
  for (const challenge of CHALLENGES) expect(res.headers.get('www-authenticate')).toContain(challenge);
  expectEsHeaders(res);
}

describe('requests without accepted credentials', () => {
  it('answers a request without credentials, GET / included, with ES 401 naming the path and query', async () => {
    expect401(await call('GET', '/'), 'missing authentication credentials for REST request [/]');
    expect401(await call('GET', '/_cluster/health?level=cluster&timeout=1s'), 'missing authentication credentials for REST request [/_cluster/health?level=cluster&timeout=1s]');
    expect401(await call('PUT', '/books/_doc/1', undefined, { a: 1 }), 'missing authentication credentials for REST request [/books/_doc/1]');
    expect(engine.has('books')).toBe(false);
  });

  it('answers before routing: unknown paths and wrong methods are 401s too', async () => {
    expect401(await call('GET', '/a/b/c/d/e'), 'missing authentication credentials for REST request [/a/b/c/d/e]');
    expect401(await call('DELETE', '/'), 'missing authentication credentials for REST request [/]');
  });

  it('answers HEAD with the status and challenges and no body', async () => {
    const res = await call('HEAD', '/');
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
    expect(res.headers.get('www-authenticate')).toContain('ApiKey');
  });

  it('takes a scheme ES has no use for here (Bearer, Digest, a bare token) as no credentials', async () => {
    for (const header of ['Bearer abc', 'Digest username="alice"', 'abc', '', 'ApiKey ', 'Basic']) {
      expect401(await call('GET', '/', header), 'missing authentication credentials for REST request [/]');
    }
  });

  it('names the user for a wrong password and for an unknown user alike', async () => {
    expect401(await call('GET', '/_cluster/health', basic('alice', 'wrong password')), 'unable to authenticate user [alice] for REST request [/_cluster/health]');
    expect401(await call('GET', '/idx/_doc/1?timeout=1m', basic('mallory', PASSWORD)), 'unable to authenticate user [mallory] for REST request [/idx/_doc/1?timeout=1m]');
    expect401(await call('GET', '/', basic('alice', '')), 'unable to authenticate user [alice] for REST request [/]');
  });

  it('says why an API key was not taken in additional_unsuccessful_credentials', async () => {
    const reason = 'unable to authenticate with provided credentials and anonymous access is not allowed for this request';
    expect401(await call('GET', '/', `ApiKey ${encodedApiKey('nope', key.api_key)}`), reason, { additional_unsuccessful_credentials: 'API key: unable to find apikey with id nope' });
    expect401(await call('GET', '/', `ApiKey ${encodedApiKey(key.id, 'not-the-secret')}`), reason, { additional_unsuccessful_credentials: `API key: invalid credentials for API key [${key.id}]` });
    for (const value of ['!!!', Buffer.from('no-colon').toString('base64'), Buffer.from(':secret').toString('base64')]) {
      expect401(await call('GET', '/', `ApiKey ${value}`), reason, { additional_unsuccessful_credentials: 'API key: invalid ApiKey value' });
    }
  });

  it('refuses a Basic header it cannot read, as ES words it', async () => {
    expect401(await call('GET', '/', 'Basic !!!'), 'invalid basic authentication header encoding');
    expect401(await call('GET', '/', `Basic ${Buffer.from('alice').toString('base64')}`), 'invalid basic authentication header value');
  });

  it('does not remember refusals', async () => {
    const header = basic('alice', 'still wrong');
    await call('GET', '/', header);
    expect(authenticator.cached(header)).toBeUndefined();
  });
});

describe('accepted credentials', () => {
  it('takes Basic credentials and serves the request', async () => {
    const alice = basic('alice', PASSWORD);
    expect((await call('PUT', '/books/_doc/1?refresh=true', alice, { title: 'Dune' })).status).toBe(201);
    const found = await call('GET', '/books/_search', alice);
    expect(found.status).toBe(200);
    expect(found.body.hits.total.value).toBe(1);
    expect((await call('GET', '/', basic('carol smith', 'carol-password'))).status).toBe(200);
  });

  it('takes an API key as `encoded`, as the client encodes {id, api_key} itself, and with any case of the scheme', async () => {
    const own = Buffer.from(`${key.id}:${key.api_key}`, 'utf8').toString('base64');
    for (const header of [`ApiKey ${key.encoded}`, `ApiKey ${own}`, `apikey ${key.encoded}`, `APIKEY ${own}`]) {
      const res = await call('GET', '/books/_count', header);
      expect(res.status, `${header}: ${res.text}`).toBe(200);
      expect(res.body.count).toBe(1);
    }
  });

  it('answers _security/_authenticate with the principal in ES shape', async () => {
    const user = await call('GET', '/_security/_authenticate', basic('alice', PASSWORD));
    expect(user.body).toEqual({
      username: 'alice', roles: [], full_name: null, email: null, metadata: {}, enabled: true,
      authentication_realm: { name: 'file', type: 'file' }, lookup_realm: { name: 'file', type: 'file' }, authentication_type: 'realm',
    });
    const apiKey = await call('GET', '/_security/_authenticate', `ApiKey ${key.encoded}`);
    expect(apiKey.body).toMatchObject({
      username: 'ingest', authentication_type: 'api_key', api_key: { id: key.id, name: 'ingest' },
      authentication_realm: { name: '_es_api_key', type: '_es_api_key' },
    });
    expect401(await call('GET', '/_security/_authenticate'), 'missing authentication credentials for REST request [/_security/_authenticate]');
  });
});

describe('the verification cache', () => {
  const credentials = async () => {
    const lines = await Promise.all(['u1', 'u2', 'u3'].map(async (u) => userLine(u, await hashSecret(`${u}-password`, TEST_COST))));
    return parseCredentials([{ origin: 'test', text: lines.join('\n') }]);
  };

  it('remembers a verified header, so the next request does no hashing', async () => {
    const header = basic('alice', PASSWORD);
    await call('GET', '/', header);
    expect(authenticator.cached(header)).toEqual({ type: 'realm', username: 'alice' });
  });

  it('shares one verification between concurrent first requests with one header', async () => {
    const a = new Authenticator(await credentials());
    const header = basic('u1', 'u1-password');
    const first = a.authenticate(header), second = a.authenticate(header);
    expect(second).toBe(first);
    expect(await first).toEqual({ type: 'realm', username: 'u1' });
    expect(a.cached(header)).toEqual({ type: 'realm', username: 'u1' });
  });

  it('keeps at most its size, forgetting the oldest', async () => {
    const a = new Authenticator(await credentials(), 2);
    const headers = ['u1', 'u2', 'u3'].map((u) => basic(u, `${u}-password`));
    for (const h of headers) expect(await a.authenticate(h)).toMatchObject({ type: 'realm' });
    expect(headers.map((h) => a.cached(h) !== undefined)).toEqual([false, true, true]);
  });
});

describe('security off', () => {
  it('checks nothing and has no security endpoint, as ES with xpack.security.enabled=false', async () => {
    const open = createApp({ engine });
    expect((await call('GET', '/', undefined, undefined, open)).status).toBe(200);
    expect((await call('GET', '/', basic('alice', 'wrong'), undefined, open)).status).toBe(200);
    const res = await call('GET', '/_security/_authenticate', undefined, undefined, open);
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('no handler found for uri [/_security/_authenticate] and method [GET]');
  });
});

describe('when security is on', () => {
  const some = parseCredentials([{ origin: 'test', text: 'user alice scrypt:ln=12,r=8,p=1:AAAAAAAAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }]);
  const none = parseCredentials([]);

  it('is off on loopback with no credentials, and on with any', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) {
      expect(securityMode(host, undefined, none)).toEqual({ on: false });
      expect(securityMode(host, undefined, some)).toEqual({ on: true });
    }
  });

  it('refuses to listen elsewhere without credentials, saying how to add them or turn security off', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      expect(() => securityMode(host, undefined, none)).toThrow(new RegExp(`^deeppage: refusing to listen on ${host.replace(/\./g, '\\.')} without authentication: .*credentials.*xpack\\.security\\.enabled=false$`));
      expect(securityMode(host, undefined, some)).toEqual({ on: true });
    }
  });

  it('follows an explicit xpack.security.enabled, warning when off beyond loopback', () => {
    expect(securityMode('0.0.0.0', false, some)).toEqual({ on: false, warning: expect.stringMatching(/^deeppage: warning: security is disabled .* 0\.0\.0\.0/) });
    expect(securityMode('127.0.0.1', false, some)).toEqual({ on: false });
    expect(() => securityMode('127.0.0.1', true, none)).toThrow(/^deeppage: xpack\.security\.enabled is true but no credentials are configured/);
    expect(securityMode('127.0.0.1', true, some)).toEqual({ on: true });
  });

  it('tells loopback hosts from others', () => {
    expect(['127.0.0.1', '127.255.0.9', '::1', '[::1]', 'LOCALHOST', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '1127.0.0.1', 'localhost.example.com'].some(isLoopback)).toBe(false);
  });

  it('takes xpack.security.enabled as ES takes booleans, and the credentials file path', () => {
    expect(parseNodeSettings({ 'xpack.security.enabled': 'false' }).securityEnabled).toBe(false);
    expect(parseNodeSettings({ 'xpack.security.enabled': 'true' }).securityEnabled).toBe(true);
    expect(parseNodeSettings({}).securityEnabled).toBeUndefined();
    expect(() => parseNodeSettings({ 'xpack.security.enabled': 'yes' })).toThrow('Failed to parse value [yes] as only [true] or [false] are allowed.');
    expect(parseNodeSettings({ 'xpack.security.authc.file.path': '/etc/deeppage/credentials' }).credentialsFile).toBe('/etc/deeppage/credentials');
  });
});

describe('credentials and hashes', () => {
  it('verifies a secret against its hash only, and never holds the secret in the hash', async () => {
    const hash = await hashSecret('s3cret-password', TEST_COST);
    expect(hash).toMatch(/^scrypt:ln=12,r=8,p=1:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain('s3cret');
    expect(await verifySecret('s3cret-password', parseSecretHash(hash))).toBe(true);
    expect(await verifySecret('s3cret-passwore', parseSecretHash(hash))).toBe(false);
    expect(await hashSecret('s3cret-password', TEST_COST)).not.toBe(hash);
  });

  it('refuses malformed lines, hashes and duplicates, naming where', () => {
    const parse = (text: string) => () => parseCredentials([{ origin: 'creds', text }]);
    const hash = 'scrypt:ln=12,r=8,p=1:AAAAAAAAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect(parse(`# ok\n\nuser alice plain-text-password`)).toThrow(/^creds:3: expected a hash written as scrypt/);
    expect(parse(`root:$2a$10$abc`)).toThrow(/^creds:1: expected \[user <username> <hash>\] or \[api_key <id> <name> <hash>\]$/);
    expect(parse(`user alice ${hash}\nuser alice ${hash}`)).toThrow('creds:2: user [alice] is defined twice');
    expect(parse(`user a:b ${hash}`)).toThrow(/a username must not contain ':'/);
    expect(parse(`api_key abc ${hash}`)).toThrow(/^creds:1: expected/);
    expect(parse(`user alice scrypt:ln=40,r=8,p=1:AAAAAAAAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)).toThrow(/scrypt cost out of range/);
    const two = parseCredentials([{ origin: 'a', text: `user alice ${hash}` }, { origin: 'b', text: `api_key k1 my key ${hash}\r\n` }]);
    expect([...two.users.keys()]).toEqual(['alice']);
    expect(two.apiKeys.get('k1')?.name).toBe('my key');
    expect(() => parseCredentials([{ origin: 'a', text: `user alice ${hash}` }, { origin: 'b', text: `user alice ${hash}` }])).toThrow('b:1: user [alice] is defined twice');
  });
});
