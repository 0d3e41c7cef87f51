/**
 * The data directory a server keeps its store in: what makes a directory deeppage's, and the checks
 * made before the store opens in it.
 *
 * A directory is deeppage's if it holds {@link MARKER_FILE} (written on the first start), or if it
 * holds nothing but the files deeppage writes there ({@link OWN_FILES}; so an empty directory, and one
 * made before the marker existed, with `data.mdb` and `lock.mdb`), besides the `lost+found` a fresh file
 * system has at its root.
 *
 * {@link openDataDir} refuses with a {@link DataDirError}, leaving what is in the directory as it was
 * (except a store that fails to open, after the lock and the marker are written):
 * a path that is not a directory or cannot be created, a directory this process cannot list or write,
 * one holding anything else, a `data.mdb` that is not an lmdb file (lmdb crashes the process on
 * one), and a directory another running deeppage holds (src/store/dir-lock.ts).
 *
 * @example
 * const data = openDataDir('./data'); // { store, fresh: true, release }
 * // … serve from data.store …
 * await data.store.close();
 * data.release();
 */
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { describeHolder, LOCK_FILE, takeLock } from './dir-lock.ts';
import { DocStore } from './doc-store.ts';

/** Marks a directory as deeppage's; its text says so to whoever looks. */
export const MARKER_FILE = 'deeppage-data';
/** Present while the default corpus is loading (src/server.ts). */
export const SEEDING_MARKER = '.loading-default-corpus';
const STORE_FILE = 'data.mdb';
/** What deeppage writes in a data directory: lmdb's two files, the marker, the lock and the seeding marker. */
const OWN_FILES = new Set([STORE_FILE, 'lock.mdb', MARKER_FILE, LOCK_FILE, SEEDING_MARKER]);
const MARKER_TEXT = 'This directory holds the data of a deeppage server (data.mdb, lock.mdb). deeppage starts only on an empty directory or one with this file.\n';
/** lmdb's meta page magic 0xBEEFC0DE, little-endian, found in the first bytes of a data.mdb. */
const LMDB_MAGIC = Buffer.from([0xde, 0xc0, 0xef, 0xbe]);

/** A data directory the server may not use; the message is one line naming the path and the cause. */
export class DataDirError extends Error {
  constructor(path: string, reason: string) {
    super(`deeppage: cannot use data directory ${shown(path)}: ${reason}`);
    this.name = 'DataDirError';
  }
}

export interface DataDir {
  store: DocStore;
  /** No store was in the directory before this start. */
  fresh: boolean;
  /** Lets another server have the directory; call after the store is closed. */
  release(): void;
}

/** Checks `path`, creating it if missing, takes its lock and opens its store. */
export function openDataDir(path: string): DataDir {
  const entries = listDirectory(path);
  checkOwnFiles(path, entries);
  const attempt = attemptLock(path);
  if ('heldBy' in attempt) {
    // A server on another host cannot be looked at from here: only a person can tell that it is gone.
    const elsewhere = attempt.heldBy.host === hostname() ? '' : `; once it is gone, delete ${oneLine(join(path, LOCK_FILE))}`;
    throw new DataDirError(path, `in use by another deeppage (${describeHolder(attempt.heldBy)})${elsewhere}`);
  }
  const lock = attempt.taken;
  try {
    if (!entries.includes(MARKER_FILE)) writeFileSync(join(path, MARKER_FILE), MARKER_TEXT);
    return { store: DocStore.open(path), fresh: !entries.includes(STORE_FILE), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw new DataDirError(path, `cannot open its store: ${cause(error)}`);
  }
}

/** The names in the directory at `path`, which is created (parents too) if missing. */
function listDirectory(path: string): string[] {
  let stat: Stats | undefined;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw new DataDirError(path, cause(error));
  }
  if (stat === undefined) {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw new DataDirError(path, `a symbolic link to ${oneLine(readlinkSync(path))}, which does not exist`);
    try {
      mkdirSync(path, { recursive: true });
    } catch (error) {
      throw new DataDirError(path, `cannot create it: ${cause(error)}`);
    }
  } else if (!stat.isDirectory()) {
    throw new DataDirError(path, 'not a directory');
  }
  try {
    return readdirSync(path);
  } catch (error) {
    throw new DataDirError(path, `cannot list it: ${cause(error)}`);
  }
}

function checkOwnFiles(path: string, entries: readonly string[]): void {
  const foreign = entries.filter((name) => !OWN_FILES.has(name) && !name.startsWith(`${LOCK_FILE}.`) && name !== 'lost+found').sort();
  if (foreign.length > 0 && !entries.includes(MARKER_FILE)) {
    const named = foreign.slice(0, 3).map((name) => `[${oneLine(name)}]`).join(', ') + (foreign.length > 3 ? ` and ${foreign.length - 3} more` : '');
    throw new DataDirError(path, `not empty and not a deeppage data directory (it holds ${named} and no ${MARKER_FILE} file)`);
  }
  if (entries.includes(STORE_FILE) && !isLmdb(join(path, STORE_FILE))) throw new DataDirError(path, `${STORE_FILE} is not an lmdb file`);
}

/** An empty data.mdb is fine: lmdb starts a new environment in it. */
function isLmdb(file: string): boolean {
  const head = Buffer.alloc(64);
  let read: number;
  try {
    const fd = openSync(file, 'r');
    try {
      read = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Unreadable: opening the store says why.
    return true;
  }
  return read === 0 || head.subarray(0, read).includes(LMDB_MAGIC);
}

function attemptLock(path: string): ReturnType<typeof takeLock> {
  try {
    return takeLock(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const unwritable = code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
    throw new DataDirError(path, `${unwritable ? 'not writable' : 'cannot take its lock'}: ${cause(error)}`);
  }
}

/** The cause in a Node system error's message ("EACCES: permission denied, mkdir '/x'" → "permission denied"). */
function cause(error: unknown): string {
  // Only a parent can be the file that is not a directory: the path itself was found to be one, or missing.
  if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'a parent of it is not a directory';
  const message = (error as Error).message;
  return /^[A-Z0-9]+: ([^,]+)/.exec(message)?.[1] ?? message;
}

/** The path as given, in brackets, with the absolute path when it is relative. */
function shown(path: string): string {
  return `[${oneLine(path)}]${isAbsolute(path) ? '' : ` (${oneLine(resolve(path))})`}`;
}

/** Control characters escaped as in JSON, so that a message stays on one line whatever a name holds. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}
