/**
 * Front mode's settings (src/front/front-settings.ts) and its secure settings, the front's own
 * credentials (src/front/front-credentials.ts): read from `-E`, the environment and a credentials
 * file; refused in Elasticsearch's words; the secret never shown. The last block starts real fronts.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import { parseNodeSettings } from '../../src/engine/node-settings.ts';
import { FrontCredentials } from '../../src/front/front-credentials.ts';
import { parseFrontSettings, type FrontSettings } from '../../src/front/front-settings.ts';
import { tempDir } from '../engine/helpers.ts';
import { killAll, refusal, start } from './processes.ts';

const HOSTS = { 'front.hosts': 'http://es1:9200' };
const SECRET = 'n0t-in-any-log-9f2c';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const removals: (() => void)[] = [];
afterAll(async () => {
  await killAll();
  removals.forEach((remove) => remove());
});

/** A credentials file with these lines, with this mode. */
function credentialsFile(lines: string[], mode = 0o600): string {
  const { dir, remove } = tempDir();
  removals.push(remove);
  const file = join(dir, 'front-credentials');
  writeFileSync(file, lines.join('\n'));
  chmodSync(file, mode);
  return file;
}

function front(given: Record<string, string>, env: Record<string, string> = {}): FrontSettings {
  return parseNodeSettings(given, env).front!;
}

/** What a refusal says: its message, which the start-up line prints. */
function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EsError);
    return (error as EsError).message;
  }
  throw new Error('not refused');
}

describe('front settings', () => {
  it('are parsed by the front, for the node settings, with their defaults', () => {
    expect(parseNodeSettings({}, {}).front).toBeUndefined();
    expect(parseFrontSettings({}, {})).toBeUndefined();
    expect(front({ ...HOSTS, 'front.headers.X-Opaque-Id': ' front ', 'search.paging': 'top_k' })).toEqual({
      hosts: [new URL('http://es1:9200')],
      headers: { 'X-Opaque-Id': 'front' },
      refreshIntervalMs: 60_000,
      maxOpenPits: 100,
    });
    expect(parseNodeSettings({ ...HOSTS, 'search.paging': 'top_k' }, {}).searchPaging).toBe('top_k');
  });

  it('read front.refresh_interval as an ES time value of at least 1ms', () => {
    expect(front({ ...HOSTS, 'front.refresh_interval': '30s' }).refreshIntervalMs).toBe(30_000);
    expect(front({ ...HOSTS, 'front.refresh_interval': '2h' }).refreshIntervalMs).toBe(7_200_000);
    expect(front({ ...HOSTS, 'front.refresh_interval': '250ms' }).refreshIntervalMs).toBe(250);
    expect(refused(() => front({ ...HOSTS, 'front.refresh_interval': '-1' }))).toBe('failed to parse value [-1] for setting [front.refresh_interval], must be >= [1ms]');
    expect(refused(() => front({ ...HOSTS, 'front.refresh_interval': '0' }))).toBe('failed to parse value [0] for setting [front.refresh_interval], must be >= [1ms]');
    expect(refused(() => front({ ...HOSTS, 'front.refresh_interval': '60' }))).toBe('failed to parse setting [front.refresh_interval] with value [60] as a time value: unit is missing or unrecognized');
  });

  it('read front.max_open_pits as an integer of at least 1', () => {
    expect(front({ ...HOSTS, 'front.max_open_pits': '7' }).maxOpenPits).toBe(7);
    expect(refused(() => front({ ...HOSTS, 'front.max_open_pits': '0' }))).toBe('Failed to parse value [0] for setting [front.max_open_pits] must be >= 1');
    expect(refused(() => front({ ...HOSTS, 'front.max_open_pits': 'many' }))).toBe('Failed to parse value [many] for setting [front.max_open_pits] must be >= 1');
    expect(refused(() => front({ ...HOSTS, 'front.max_open_pits': '2147483648' }))).toBe('Failed to parse value [2147483648] for setting [front.max_open_pits] must be <= 2147483647');
  });

  it('refuse what they refused before, and any front.* setting without front.hosts', () => {
    expect(refused(() => front({ 'front.max_open_pits': '5' }))).toBe('[front.hosts] must be set when any other front.* setting is');
    expect(refused(() => front({ 'front.hosts': 'ftp://es1:21' }))).toBe('Failed to parse value [ftp://es1:21] for setting [front.hosts]: [ftp://es1:21] must use http or https');
    expect(refused(() => front({ ...HOSTS, 'front.ssl.certificate_authorities': '/ca.pem' }))).toBe('[front.ssl.certificate_authorities] is set but no host in [front.hosts] uses https');
    expect(refused(() => front({ ...HOSTS, 'front.headers.Cookie': 'a=b' }))).toBe('[front.headers.Cookie]: the header [Cookie] cannot be set by the front');
    expect(refused(() => front({ ...HOSTS, 'front.nope': '1' }))).toMatch(/^unknown setting \[front\.nope\]/);
    expect(() => parseNodeSettings({ 'search.max_open_scroll_context': '-1' })).toThrow('Failed to parse value [-1] for setting [search.max_open_scroll_context] must be >= 0');
  });

  it('do not quote a host URL that carries a password', () => {
    const message = refused(() => front({ 'front.hosts': `http://u:${SECRET}@es1:9200` }));
    expect(message).toBe("Failed to parse value for setting [front.hosts]: [es1:9200] must not carry credentials: clients' own credentials are forwarded");
  });
});

describe("the front's own credentials", () => {
  it.each(['front.username', 'front.password', 'front.api_key'])('refuses %s on the command line, as ES refuses a secure setting outside its keystore, without its value', (name) => {
    const variable = { 'front.username': 'DEEPPAGE_FRONT_USERNAME', 'front.password': 'DEEPPAGE_FRONT_PASSWORD', 'front.api_key': 'DEEPPAGE_FRONT_API_KEY' }[name];
    const message = refused(() => parseNodeSettings({ ...HOSTS, 'front.max_open_pits': 'nonsense', [name]: SECRET }, {}));
    expect(message).toBe(`Setting [${name}] is a secure setting and must be read from the environment (${variable}) or from the file named by DEEPPAGE_FRONT_CREDENTIALS_FILE, but was found on the command line`);
    // Refused so even without front.hosts: the secret is the refusal to show first.
    expect(refused(() => parseNodeSettings({ [name]: SECRET }, {}))).toBe(message);
  });

  it('reads a username and password, or an API key, from the environment', () => {
    expect(front(HOSTS, {}).credentials).toBeUndefined();
    expect(front(HOSTS, { DEEPPAGE_FRONT_USERNAME: 'housekeeper', DEEPPAGE_FRONT_PASSWORD: `${SECRET}:é` }).credentials?.authorization).toBe(basic('housekeeper', `${SECRET}:é`));
    // The encoded key Elasticsearch's create API key answer gives, as it is; id:api_key encoded.
    expect(front(HOSTS, { DEEPPAGE_FRONT_API_KEY: 'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==' }).credentials?.authorization).toBe('ApiKey VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==');
    expect(front(HOSTS, { DEEPPAGE_FRONT_API_KEY: 'VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw' }).credentials?.authorization).toBe('ApiKey VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==');
  });

  it('reads them from the file DEEPPAGE_FRONT_CREDENTIALS_FILE names', () => {
    const file = credentialsFile(['# the front', '', 'front.username=housekeeper', `front.password= ${SECRET}=x`, '']);
    expect(front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: file }).credentials?.authorization).toBe(basic('housekeeper', ` ${SECRET}=x`));
    const keyFile = credentialsFile(['front.api_key=a2V5\r']);
    expect(front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: keyFile }).credentials?.authorization).toBe('ApiKey a2V5');
    // The file and the environment may share the work, but not a setting.
    const userOnly = credentialsFile(['front.username=housekeeper']);
    expect(front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: userOnly, DEEPPAGE_FRONT_PASSWORD: SECRET }).credentials?.authorization).toBe(basic('housekeeper', SECRET));
    expect(refused(() => front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: userOnly, DEEPPAGE_FRONT_USERNAME: 'other', DEEPPAGE_FRONT_PASSWORD: SECRET }))).toBe(`[front.username] is given twice: in the environment (DEEPPAGE_FRONT_USERNAME) and in the file [${userOnly}]`);
  });

  it('refuses a file its group or others may read, one it cannot read, and lines it does not know, quoting no value', () => {
    const open = credentialsFile([`front.password=${SECRET}`], 0o644);
    expect(refused(() => front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: open }))).toBe(`the front's credentials file [${open}] (DEEPPAGE_FRONT_CREDENTIALS_FILE) must be readable by its owner only, but its mode is [0644]: chmod 600 it`);
    expect(refused(() => front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: '/no/such/file' }))).toBe("cannot read the front's credentials file [/no/such/file] (DEEPPAGE_FRONT_CREDENTIALS_FILE) because the file does not exist");
    for (const [lines, message] of [
      [['front.username=a', SECRET], 'line 2 is not name=value'],
      [[`${SECRET}=x`], 'line 1: unknown secure setting, expected one of [front.username, front.password, front.api_key]'],
      [['front.pasword=x'], 'line 1: unknown secure setting [front.pasword], expected one of'],
      [['front.api_key=a', 'front.api_key=b'], '[front.api_key] is set twice'],
    ] as const) {
      const file = credentialsFile([...lines]);
      const text = refused(() => front(HOSTS, { DEEPPAGE_FRONT_CREDENTIALS_FILE: file }));
      expect(text).toContain(message);
      expect(text).not.toContain(SECRET);
    }
  });

  it('refuses both kinds together, half a pair, and values no header can carry, quoting no value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ DEEPPAGE_FRONT_USERNAME: 'u', DEEPPAGE_FRONT_PASSWORD: SECRET, DEEPPAGE_FRONT_API_KEY: SECRET }, '[front.api_key] and [front.username]/[front.password] cannot both be set: the front uses one kind of credentials'],
      [{ DEEPPAGE_FRONT_PASSWORD: SECRET, DEEPPAGE_FRONT_API_KEY: SECRET }, '[front.api_key] and [front.username]/[front.password] cannot both be set: the front uses one kind of credentials'],
      [{ DEEPPAGE_FRONT_USERNAME: 'u' }, '[front.username] is set but [front.password] is not'],
      [{ DEEPPAGE_FRONT_PASSWORD: SECRET }, '[front.password] is set but [front.username] is not'],
      [{ DEEPPAGE_FRONT_USERNAME: 'u', DEEPPAGE_FRONT_PASSWORD: '' }, '[front.password] must not be empty'],
      [{ DEEPPAGE_FRONT_USERNAME: 'u:v', DEEPPAGE_FRONT_PASSWORD: SECRET }, '[front.username] must not contain [:]'],
      [{ DEEPPAGE_FRONT_USERNAME: 'u', DEEPPAGE_FRONT_PASSWORD: `${SECRET}\n` }, '[front.password] must not contain control characters'],
      [{ DEEPPAGE_FRONT_API_KEY: `${SECRET} x` }, '[front.api_key] must be an encoded API key (base64 of id:api_key) or id:api_key'],
    ];
    for (const [env, message] of cases) expect(refused(() => front(HOSTS, env))).toBe(message);
  });

  it('reads the environment only in front mode', () => {
    expect(parseNodeSettings({}, { DEEPPAGE_FRONT_USERNAME: 'u' }).front).toBeUndefined();
  });

  it('never shows the secret: not in JSON, util.inspect, String() or a spread', () => {
    const settings = parseNodeSettings({ ...HOSTS }, { DEEPPAGE_FRONT_USERNAME: 'housekeeper', DEEPPAGE_FRONT_PASSWORD: SECRET });
    const { authorization } = settings.front!.credentials!;
    const token = authorization.slice('Basic '.length);
    const shown = [
      JSON.stringify(settings),
      JSON.stringify(settings.front),
      inspect(settings, { depth: Infinity }),
      inspect(settings, { depth: Infinity, showHidden: true, getters: true }),
      inspect(settings.front!.credentials, { customInspect: false, showHidden: true }),
      String(settings.front!.credentials),
      `${settings.front!.credentials}`,
      JSON.stringify({ ...settings.front!.credentials }),
    ];
    for (const text of shown) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(token);
    }
    expect(JSON.stringify(settings.front)).toContain('"credentials":"Basic <hidden>"');
    expect(inspect(settings.front)).toContain('FrontCredentials { Basic <hidden> }');
    expect(new FrontCredentials('ApiKey abc').scheme).toBe('ApiKey');
  });
});

describe('a front started with its credentials', () => {
  it('refuses -E front.password on one line that does not echo it', async () => {
    const { code, log } = await refusal(['-E', 'front.hosts=http://127.0.0.1:1', '-E', 'front.username=housekeeper', '-E', `front.password=${SECRET}`]);
    expect(code).toBe(1);
    expect(log.trim().split('\n')).toEqual(['deeppage: Setting [front.username] is a secure setting and must be read from the environment (DEEPPAGE_FRONT_USERNAME) or from the file named by DEEPPAGE_FRONT_CREDENTIALS_FILE, but was found on the command line']);
    const { log: alone } = await refusal(['-E', 'front.hosts=http://127.0.0.1:1', '-E', `front.password=${SECRET}`]);
    expect(alone).toContain('Setting [front.password] is a secure setting');
    expect(alone).not.toContain(SECRET);
  });

  it('starts with them from the environment or a file, and its start-up line does not show them', async () => {
    const fromEnv = await start(['-E', 'front.hosts=http://127.0.0.1:1'], { DEEPPAGE_FRONT_USERNAME: 'housekeeper', DEEPPAGE_FRONT_PASSWORD: SECRET });
    const file = credentialsFile(['front.username=housekeeper', `front.password=${SECRET}`]);
    const fromFile = await start(['-E', 'front.hosts=http://127.0.0.1:1'], { DEEPPAGE_FRONT_CREDENTIALS_FILE: file });
    for (const started of [fromEnv, fromFile]) {
      expect(started.log()).toMatch(/listening on http:\/\/\S+ \(in front of http:\/\/127\.0\.0\.1:1\/\)/);
      expect(started.log()).not.toContain(SECRET);
      expect(started.log()).not.toContain(basic('housekeeper', SECRET).slice(6));
    }
  });

  it('refuses a credentials file others may read', async () => {
    const file = credentialsFile(['front.username=housekeeper', `front.password=${SECRET}`], 0o640);
    await expect(start(['-E', 'front.hosts=http://127.0.0.1:1'], { DEEPPAGE_FRONT_CREDENTIALS_FILE: file })).rejects.toThrow(/server exited \(1\): deeppage: the front's credentials file \[.*\] \(DEEPPAGE_FRONT_CREDENTIALS_FILE\) must be readable by its owner only, but its mode is \[0640\]: chmod 600 it\n$/);
  });
});
