/**
 * Security on the real server process: credentials made with the credentials tool (hashes only on
 * disk), the official client connecting with `auth: { apiKey }` (both forms) and
 * `auth: { username, password }`, ES's 401 with one `WWW-Authenticate` line per scheme, and the
 * refusal to listen beyond loopback without credentials.
 */
import { Client, errors } from '@elastic/elasticsearch';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { NODE_FLAGS, SERVER_ENTRY } from './server-process.ts';

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all([...children].map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
  cleanups.forEach((f) => f());
});

function temp(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

/** Runs the credentials tool as `npm run credentials` does, compiled into dist/ with the server; resolves with its exit code and output. */
async function credentialsTool(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['dist/credentials-cli.js', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(stdin ?? '');
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

/** `npm start`'s server with this environment and arguments: its URL once listening, or its exit code and log if it stops first. */
function server(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_ENTRY, ...args], {
    env: { ...process.env, PORT: '0', DEEPPAGE_SEED: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let log = '';
  const outcome = new Promise<{ url: string } | { code: number | null; log: string }>((resolve) => {
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) resolve({ url: match[1] });
    });
    child.once('exit', (code) => resolve({ code, log }));
  });
  return { child, outcome };
}

async function listening(env: Record<string, string>, args: string[] = []): Promise<string> {
  const outcome = await server(env, args).outcome;
  if (!('url' in outcome)) throw new Error(`server exited early (${outcome.code}): ${outcome.log}`);
  return outcome.url;
}

/** A raw GET, to see header lines as sent (fetch and the client join repeated headers). */
function rawGet(url: string): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body }));
    }).on('error', reject).end();
  });
}

describe('a server with credentials from the credentials tool', () => {
  const PASSWORD = 'alice-password-1';
  let file: string;
  let key: { id: string; name: string; api_key: string; encoded: string };
  let url: string;

  beforeAll(async () => {
    file = join(temp(), 'credentials');
    const alice = await credentialsTool(['useradd', 'alice', '-p', PASSWORD, '--file', file]);
    expect(alice.code, alice.stderr).toBe(0);
    const bob = await credentialsTool(['useradd', 'bob', '--file', file], 'bob-password-2\n');
    expect(bob.code, bob.stderr).toBe(0);
    const created = await credentialsTool(['create-api-key', 'ingest', '--file', file]);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout);
    url = await listening({ DEEPPAGE_DATA: temp() }, ['-E', `xpack.security.authc.file.path=${file}`]);
  });

  it('keeps only hashes in the file, readable by its owner only', async () => {
    const text = readFileSync(file, 'utf8');
    for (const secret of [PASSWORD, 'bob-password-2', key.api_key, key.encoded]) expect(text).not.toContain(secret);
    expect(text).toMatch(/^user alice scrypt:ln=15,r=8,p=1:\S+$/m);
    expect(text).toMatch(/^user bob scrypt:\S+$/m);
    expect(text).toContain(`api_key ${key.id} ingest scrypt:`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(key.encoded).toBe(Buffer.from(`${key.id}:${key.api_key}`).toString('base64'));
    expect((await credentialsTool(['list', '--file', file])).stdout).toBe(`user alice\nuser bob\napi_key ${key.id} ingest\n`);
  });

  it('refuses a duplicate user and a short password, leaving the file as it was', async () => {
    const before = readFileSync(file, 'utf8');
    const again = await credentialsTool(['useradd', 'alice', '-p', 'another-password', '--file', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('user [alice] already exists');
    const short = await credentialsTool(['useradd', 'dave', '-p', 'abc', '--file', file]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('passwords must be at least [6] characters long');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('lets the official client in with an encoded API key, an {id, api_key} key, and a username and password', async () => {
    const clients = [
      new Client({ node: url, auth: { apiKey: key.encoded } }),
      new Client({ node: url, auth: { apiKey: { id: key.id, api_key: key.api_key } } }),
      new Client({ node: url, auth: { username: 'alice', password: PASSWORD } }),
      new Client({ node: url, auth: { username: 'bob', password: 'bob-password-2' } }),
    ];
    try {
      for (const [i, client] of clients.entries()) {
        await client.index({ index: 'notes', id: String(i), document: { by: i, text: `note ${i}` }, refresh: true });
        const found = await client.search({ index: 'notes', query: { term: { by: i } } });
        expect(found.hits.hits.map((h) => h._id)).toEqual([String(i)]);
      }
      expect(await clients[2].count({ index: 'notes' })).toMatchObject({ count: 4 });
      expect(await clients[0].security.authenticate()).toMatchObject({ username: 'ingest', authentication_type: 'api_key', api_key: { id: key.id, name: 'ingest' } });
      expect(await clients[2].security.authenticate()).toMatchObject({ username: 'alice', authentication_type: 'realm' });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('gives a client without credentials, or with wrong ones, a 401 ResponseError', async () => {
    const cases: [Client, RegExp][] = [
      [new Client({ node: url }), /missing authentication credentials for REST request \[\/notes\/_search\]/],
      [new Client({ node: url, auth: { username: 'alice', password: 'wrong-password' } }), /unable to authenticate user \[alice\]/],
      [new Client({ node: url, auth: { apiKey: { id: key.id, api_key: 'wrong' } } }), /unable to authenticate with provided credentials/],
    ];
    for (const [client, reason] of cases) {
      try {
        const error = await client.search({ index: 'notes' }).then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(errors.ResponseError);
        const response = error as InstanceType<typeof errors.ResponseError>;
        expect(response.statusCode).toBe(401);
        expect(response.body.error.type).toBe('security_exception');
        expect(response.body.error.reason).toMatch(reason);
      } finally {
        await client.close();
      }
    }
  });

  it('sends one WWW-Authenticate line per scheme, and the error body with them', async () => {
    const res = await rawGet(`${url}/?pretty`);
    expect(res.status).toBe(401);
    // rawHeaders alternates names and values, one pair per line received.
    const values = res.rawHeaders.flatMap((name, i) => (i % 2 === 0 && name.toLowerCase() === 'www-authenticate' ? [res.rawHeaders[i + 1]] : []));
    expect(values).toEqual(['Basic realm="security", charset="UTF-8"', 'ApiKey']);
    expect(JSON.parse(res.body).error).toMatchObject({ reason: 'missing authentication credentials for REST request [/?pretty]', header: { 'WWW-Authenticate': values } });
  });
});

describe('starting beyond loopback', () => {
  it('refuses HOST=0.0.0.0 without credentials with one line and exit code 1, touching no data', async () => {
    const data = join(temp(), 'data');
    const outcome = await server({ HOST: '0.0.0.0', DEEPPAGE_DATA: data }).outcome;
    expect('url' in outcome, 'the server listened on 0.0.0.0').toBe(false);
    const { code, log } = outcome as { code: number; log: string };
    expect(code).toBe(1);
    expect(log.trim().split('\n')).toHaveLength(1);
    expect(log).toMatch(/^deeppage: refusing to listen on 0\.0\.0\.0 without authentication: add a user or an API key .* or turn security off explicitly with -E xpack\.security\.enabled=false\n$/);
    expect(() => readdirSync(data)).toThrow();
  });

  it('refuses xpack.security.enabled=true without credentials, and an unreadable credentials file', async () => {
    const enabled = (await server({ DEEPPAGE_DATA: temp() }, ['-E', 'xpack.security.enabled=true']).outcome) as { code: number; log: string };
    expect(enabled.code).toBe(1);
    expect(enabled.log).toMatch(/^deeppage: xpack\.security\.enabled is true but no credentials are configured/);
    const broken = join(temp(), 'credentials');
    writeFileSync(broken, 'user alice plaintext\n');
    const bad = (await server({ DEEPPAGE_DATA: temp(), DEEPPAGE_CREDENTIALS_FILE: broken }).outcome) as { code: number; log: string };
    expect(bad.code).toBe(1);
    expect(bad.log).toBe(`deeppage: credentials: ${broken}:1: expected a hash written as scrypt:ln=<n>,r=<n>,p=<n>:<salt>:<hash>, got [plaintext]\n`);
  });

  it('takes credentials from DEEPPAGE_CREDENTIALS, and is then on even on loopback', async () => {
    const file = join(temp(), 'credentials');
    expect((await credentialsTool(['useradd', 'erin', '-p', 'erin-password', '--file', file])).code).toBe(0);
    const url = await listening({ DEEPPAGE_DATA: temp(), DEEPPAGE_CREDENTIALS: readFileSync(file, 'utf8') });
    expect((await fetch(`${url}/`)).status).toBe(401);
    const res = await fetch(`${url}/`, { headers: { authorization: `Basic ${Buffer.from('erin:erin-password').toString('base64')}` } });
    expect(res.status).toBe(200);
  });
});
