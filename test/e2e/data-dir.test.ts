/**
 * Start-up on the data directory users give, through the real server process: any writable directory
 * works; one the server may not use gets one line naming the path and the cause, exit code 1, and is
 * left exactly as it was.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { LOCK_FILE } from '../../src/store/dir-lock.ts';
import { MARKER_FILE } from '../../src/store/data-dir.ts';
import { tempDir } from '../engine/helpers.ts';
import { killedAfter, killServers, serverProcess } from './server-process.ts';

afterAll(killServers);

const json = async (url: string, method = 'GET', body?: unknown) => {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

/**
 * Starts the server on `dataDir` and expects a refusal: exit code 1, no stack, and one line
 * `deeppage: cannot use data directory [<path>]…: <cause>`. Returns the cause.
 */
async function refusal(dataDir: string): Promise<string> {
  const { child, exited } = serverProcess(dataDir);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const { code, stderr } = await exited.finally(() => clearTimeout(timer));
  expect(code, stderr).toBe(1);
  const lines = stderr.trimEnd().split('\n');
  expect(lines.filter((line) => /^\s+at /.test(line)), stderr).toEqual([]);
  const refused = lines.filter((line) => line.startsWith('deeppage: cannot use data directory '));
  expect(refused, stderr).toHaveLength(1);
  const prefix = `deeppage: cannot use data directory [${dataDir}]: `;
  expect(refused[0].startsWith(prefix), refused[0]).toBe(true);
  return refused[0].slice(prefix.length);
}

/** Every entry under `path`, the path itself included: its mode, size, mtime, and bytes or link target. */
function snapshot(path: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (at: string) => {
    const stat = lstatSync(at);
    let what = `${stat.mode.toString(8)} ${stat.size} ${stat.mtimeMs}`;
    if (stat.isFile()) what += ` ${createHash('sha256').update(readFileSync(at)).digest('hex')}`;
    if (stat.isSymbolicLink()) what += ` -> ${readlinkSync(at)}`;
    entries[relative(path, at) || '.'] = what;
    if (stat.isDirectory()) for (const name of readdirSync(at)) visit(join(at, name));
  };
  visit(path);
  return entries;
}

/** A server started on `dataDir`, with a document put, and stopped with SIGTERM (a clean shutdown). */
async function withDocument(dataDir: string, doc: Record<string, unknown>): Promise<void> {
  const { child, url, exited } = serverProcess(dataDir);
  try {
    expect((await json(`${await url}/kept/_doc/1`, 'PUT', doc)).status).toBe(201);
  } finally {
    child.kill('SIGTERM');
  }
  expect((await exited).code).toBe(0);
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));
const base = () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
};

describe('data directories the server refuses', () => {
  it('a file, a path below a file, and a symbolic link to nothing', async () => {
    const dir = base();
    writeFileSync(join(dir, 'a file.txt'), 'not a directory');
    symlinkSync(join(dir, 'missing'), join(dir, 'dangling'));
    const before = snapshot(dir);
    expect(await refusal(join(dir, 'a file.txt'))).toBe('not a directory');
    expect(await refusal(join(dir, 'a file.txt', 'data'))).toBe('a parent of it is not a directory');
    expect(await refusal(join(dir, 'dangling'))).toBe(`a symbolic link to ${join(dir, 'missing')}, which does not exist`);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a directory it cannot write, empty or holding a data directory', async (context) => {
    const dir = base();
    const empty = join(dir, 'empty.d');
    mkdirSync(empty);
    const used = join(dir, 'used.d');
    // Killed: its lock is left behind, so the refusal comes from taking over a stale lock.
    await killedAfter(used, async (url) => void (await json(`${url}/kept/_doc/1`, 'PUT', { n: 1 })));
    for (const target of [empty, used]) {
      const reason = makeUnwritable(target);
      if (reason !== undefined) context.skip(reason);
      cleanups.push(() => makeWritable(target));
    }
    const before = snapshot(dir);
    expect(await refusal(empty)).toMatch(/^not writable: (permission denied|operation not permitted)$/);
    expect(await refusal(used)).toMatch(/^not writable: (permission denied|operation not permitted)$/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("a directory holding another program's files", async () => {
    const dir = base();
    const layouts: Record<string, Record<string, string>> = {
      'documents.d': { 'notes.txt': 'mine', 'sub/deeper.txt': 'also mine' },
      'store and more.d': { 'data.mdb': '', 'lock.mdb': '', 'notes.txt': 'mine' },
      // Names as lmdb's, bytes not: lmdb would crash the process on this file.
      'other lmdb.d': { 'data.mdb': 'not an lmdb file'.repeat(500), 'lock.mdb': '' },
    };
    for (const [name, files] of Object.entries(layouts)) {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(dir, name, file, '..'), { recursive: true });
        writeFileSync(join(dir, name, file), text);
      }
    }
    const before = snapshot(dir);
    expect(await refusal(join(dir, 'documents.d'))).toBe(`not empty and not a deeppage data directory (it holds [notes.txt], [sub] and no ${MARKER_FILE} file)`);
    expect(await refusal(join(dir, 'store and more.d'))).toBe(`not empty and not a deeppage data directory (it holds [notes.txt] and no ${MARKER_FILE} file)`);
    expect(await refusal(join(dir, 'other lmdb.d'))).toBe('data.mdb is not an lmdb file');
    expect(snapshot(dir)).toEqual(before);
  });

  it('a directory another running server holds, by its name or through a link; the first keeps serving', async () => {
    const dir = base();
    const dataDir = join(dir, 'data.d');
    symlinkSync(dataDir, join(dir, 'link'));
    const first = serverProcess(dataDir);
    try {
      const url = await first.url;
      expect((await json(`${url}/kept/_doc/1`, 'PUT', { n: 1 })).status).toBe(201);
      const lock = readFileSync(join(dataDir, LOCK_FILE), 'utf8');
      for (const path of [dataDir, join(dir, 'link')]) {
        expect(await refusal(path)).toMatch(new RegExp(`^in use by another deeppage \\(pid ${first.child.pid}, since \\S+\\)$`));
      }
      expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(lock);
      expect((await json(`${url}/kept/_doc/1`)).body._source).toEqual({ n: 1 });
      // The same process cannot open it twice either.
      await expect(startServer({ dataDir, port: 0 })).rejects.toThrow(/^deeppage: cannot use data directory \[.*\]: in use by another deeppage/);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect((await first.exited).code).toBe(0);
    // A clean shutdown gives the directory up.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('a directory a server on another host holds, with the file to delete once that server is gone', async () => {
    const dataDir = join(base(), 'shared.d');
    await withDocument(dataDir, { n: 1 });
    writeFileSync(join(dataDir, LOCK_FILE), `${JSON.stringify({ pid: 1, host: 'elsewhere', since: '2025-01-02T03:04:05.000Z' })}\n`);
    const before = snapshot(dataDir);
    expect(await refusal(dataDir)).toBe(`in use by another deeppage (pid 1 on host elsewhere, since 2025-01-02T03:04:05.000Z); once it is gone, delete ${join(dataDir, LOCK_FILE)}`);
    expect(snapshot(dataDir)).toEqual(before);
  });
});

describe('data directories the server takes', () => {
  it('one whose server was killed with SIGKILL: its lock is stale', async () => {
    const dataDir = join(base(), 'data.d');
    await killedAfter(dataDir, async (url) => void (await json(`${url}/kept/_doc/1`, 'PUT', { n: 1 })));
    const stale = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
    const again = serverProcess(dataDir);
    try {
      expect((await json(`${await again.url}/kept/_doc/1`)).body._source).toEqual({ n: 1 });
      const lock = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
      expect(lock.pid).toBe(again.child.pid);
      expect(lock.pid).not.toBe(stale.pid);
    } finally {
      again.child.kill('SIGTERM');
    }
    expect((await again.exited).code).toBe(0);
  });

  it('a symbolic link to a directory, and a relative path whose parents do not exist yet', async () => {
    const dir = base();
    mkdirSync(join(dir, 'real.d'));
    symlinkSync(join(dir, 'real.d'), join(dir, 'link to data'));
    await withDocument(join(dir, 'link to data'), { via: 'link' });
    const nested = join(dir, 'not', 'yet', 'data.d');
    await withDocument(relative(process.cwd(), nested), { via: 'relative' });
    for (const [dataDir, via] of [[join(dir, 'real.d'), 'link'], [nested, 'relative']]) {
      const again = await startServer({ dataDir, port: 0 });
      try {
        expect((await json(`${again.url}/kept/_doc/1`)).body._source).toEqual({ via });
      } finally {
        await again.close();
      }
    }
  });

  it('one made before the marker file existed (data.mdb and lock.mdb only), which gets the marker', async () => {
    const dataDir = join(base(), 'old.d');
    await withDocument(dataDir, { n: 1 });
    rmSync(join(dataDir, MARKER_FILE));
    expect(readdirSync(dataDir).sort()).toEqual(['data.mdb', 'lock.mdb']);
    const again = serverProcess(dataDir);
    try {
      expect((await json(`${await again.url}/kept/_doc/1`)).body._source).toEqual({ n: 1 });
      expect(existsSync(join(dataDir, MARKER_FILE))).toBe(true);
    } finally {
      again.child.kill('SIGTERM');
    }
    expect((await again.exited).code).toBe(0);
  });

  it('one of its own with other files added later, and a fresh file system with lost+found', async () => {
    const dir = base();
    const own = join(dir, 'own.d');
    await withDocument(own, { n: 1 });
    writeFileSync(join(own, 'README.txt'), 'backed up nightly');
    const mount = join(dir, 'mount.d');
    mkdirSync(join(mount, 'lost+found'), { recursive: true });
    for (const dataDir of [own, mount]) {
      const server = await startServer({ dataDir, port: 0 });
      await server.close();
    }
  });
});

/** Makes `dir` unwritable for this process, or says why that cannot be done here. */
function makeUnwritable(dir: string): string | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o555);
    return undefined;
  }
  // Permission bits do not stop root; the immutable attribute does, where the file system has it.
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `running as root, and chattr +i failed here: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

function makeWritable(dir: string): void {
  if (process.getuid?.() === 0) execFileSync('chattr', ['-i', dir], { stdio: 'pipe' });
  else chmodSync(dir, 0o755);
}
