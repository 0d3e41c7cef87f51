/**
 * Adds users and creates API keys in a credentials file (src/http/auth/credentials.ts), as
 * `bin/elasticsearch-users` and the create-API-key call do for Elasticsearch. Only hashes are
 * written; an API key's secret is printed once, with its `encoded` form. The server reads the
 * file when it starts.
 *
 * @example
 * npm run -s credentials -- useradd alice            # prompts for the password
 * npm run -s credentials -- create-api-key ingest    # {"id":…,"name":"ingest","api_key":…,"encoded":…}
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newApiKey } from './http/auth/api-key.ts';
import { apiKeyLine, checkApiKeyName, checkUsername, parseCredentialLine, parseCredentials, userLine, type CredentialLine } from './http/auth/credentials.ts';
import { hashSecret } from './http/auth/secret-hash.ts';

const USAGE = `usage: npm run -s credentials -- <command> [--file <path>]

  useradd <username> [-p <password>]   add a user (the password is prompted for, or read from stdin, without -p)
  passwd <username> [-p <password>]    change a user's password
  userdel <username>                   remove a user
  create-api-key <name>                create an API key; prints {id, name, api_key, encoded} once
  delete-api-key <id>                  remove an API key
  list                                 users and API keys (names and ids only)

  --file, -f <path>   the credentials file (default: $DEEPPAGE_CREDENTIALS_FILE); the server reads it
                      with -E xpack.security.authc.file.path=<path> when it starts`;

const HEADER = '# deeppage credentials: users and API keys, secrets stored as scrypt hashes only.\n';

/** ES's minimum (`elasticsearch-users`: "passwords must be at least [6] characters long"). */
const MIN_PASSWORD = 6;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { file: { type: 'string', short: 'f' }, password: { type: 'string', short: 'p' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, name, ...rest] = positionals;
  if (values.help || command === undefined) return void console.log(USAGE);
  if (rest.length > 0) throw new Error(`unexpected argument [${rest[0]}]`);
  const file = values.file ?? process.env.DEEPPAGE_CREDENTIALS_FILE;
  if (!file) throw new Error('give the credentials file with --file <path> (or DEEPPAGE_CREDENTIALS_FILE)');
  const lines = readLines(file);
  const isUser = (l: Line) => l.kind === 'user' && l.username === name;
  const isKey = (l: Line) => l.kind === 'api_key' && l.id === name;
  const need = (what: string) => {
    if (name === undefined) throw new Error(`${command} needs a ${what}`);
    return name;
  };

  switch (command) {
    case 'useradd': {
      checkUsername(need('username'));
      if (lines.some(isUser)) throw new Error(`user [${name}] already exists in ${file}`);
      lines.push(line(userLine(name, await hashSecret(await password(values.password)))));
      write(file, lines);
      return void console.error(`user [${name}] added to ${file}; restart the server to use it`);
    }
    case 'passwd': {
      need('username');
      const at = lines.findIndex(isUser);
      if (at < 0) throw new Error(`user [${name}] does not exist in ${file}`);
      lines[at] = line(userLine(name, await hashSecret(await password(values.password))));
      write(file, lines);
      return void console.error(`password of [${name}] changed in ${file}; restart the server to use it`);
    }
    case 'userdel':
    case 'delete-api-key': {
      const what = command === 'userdel' ? 'user' : 'API key';
      need(command === 'userdel' ? 'username' : 'API key id');
      const kept = lines.filter((l) => !(command === 'userdel' ? isUser : isKey)(l));
      if (kept.length === lines.length) throw new Error(`${what} [${name}] does not exist in ${file}`);
      write(file, kept);
      return void console.error(`${what} [${name}] removed from ${file}; restart the server to refuse it`);
    }
    case 'create-api-key': {
      checkApiKeyName(need('name'));
      const key = newApiKey(name);
      lines.push(line(apiKeyLine(key.id, key.name, await hashSecret(key.api_key))));
      write(file, lines);
      console.log(JSON.stringify(key));
      return void console.error(`API key [${key.id}] added to ${file}; its secret is not stored, keep it now; restart the server to use it`);
    }
    case 'list':
      for (const l of lines) {
        if (l.kind === 'user') console.log(`user ${l.username}`);
        else if (l.kind === 'api_key') console.log(`api_key ${l.id} ${l.name}`);
      }
      return;
    default:
      throw new Error(`unknown command [${command}]\n${USAGE}`);
  }
}

/** A line of the file, parsed, with its text as it is written (comments are kept as they are). */
type Line = CredentialLine & { text: string };

const line = (text: string): Line => ({ ...parseCredentialLine(text), text });

/** The file's lines; a file that does not parse is not edited. */
function readLines(file: string): Line[] {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  parseCredentials([{ origin: file, text }]);
  return text.replace(/\n$/, '').split('\n').map(line);
}

/** Written whole to a file beside it, then renamed over it: a reader never sees half a file. Readable by its owner only. */
function write(file: string, lines: Line[]): void {
  const text = lines.map((l) => l.text).join('\n') + '\n';
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}

async function password(given: string | undefined): Promise<string> {
  const secret = given ?? (process.stdin.isTTY ? await promptTwice() : (await readStdin()).replace(/\r?\n$/, ''));
  if (secret.length < MIN_PASSWORD) throw new Error(`passwords must be at least [${MIN_PASSWORD}] characters long`);
  return secret;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function promptTwice(): Promise<string> {
  const first = await hidden('Enter new password: ');
  if ((await hidden('Retype new password: ')) !== first) throw new Error('passwords do not match');
  return first;
}

/** A line typed without echo (the terminal in raw mode). */
function hidden(question: string): Promise<string> {
  const { stdin } = process;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish(), resolve(value);
        if (ch === '\u0003' || ch === '\u0004') return finish(), reject(new Error('interrupted'));
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`deeppage credentials: ${error.message}`);
  process.exit(1);
});
