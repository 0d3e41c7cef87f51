/**
 * The lock that keeps a second server off a data directory. lmdb lets several processes open one
 * environment, so two servers on a directory would both run, each with its own view of it in memory.
 *
 * Node has no flock, so the lock is a file, {@link LOCK_FILE}, created with O_EXCL and holding its
 * {@link Holder}: the pid, host, boot and start time of the server process. Close deletes it; a server
 * killed with SIGKILL leaves it behind, and the next start tells that stale lock from a live one by
 * looking at the process it names:
 * - another host (a container with another hostname, a network share): nothing to look at, so the lock
 *   counts as held, and the error says which file to delete once that server is known to be gone;
 * - another boot of this machine: stale;
 * - no process with that pid: stale;
 * - a zombie (state `Z` in `/proc/<pid>/stat`): the holder was killed and its parent has not reaped it
 *   yet, which under load takes a second or more after `kill -9`; `kill(pid, 0)` still succeeds and the
 *   start time still matches, but the process will never run again, so stale;
 * - a process with that pid that started at another time (`/proc/<pid>/stat`): the pid was reused, as a
 *   container's pid 1 is after a restart, so stale. Where `/proc` is missing a live pid counts as held.
 *
 * Taking over a stale lock goes through a second file, `deeppage.lock.takeover`, also created with
 * O_EXCL: the one server that creates it reads the lock again and deletes it if it still holds the
 * stale record (no one else deletes a lock file meanwhile: its holder is gone, and taking over needs
 * the takeover file), then deletes the takeover file; the others wait and try again. Then the lock is
 * created with O_EXCL as at first, so of several servers taking over one stale lock, exactly one gets
 * it and the others find it held. A takeover file whose server died in the middle is itself stale, and
 * is deleted (if it still reads the same) by the next server to find it.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'deeppage.lock';

/** Who holds a data directory, as written in its lock file. */
export interface Holder {
  pid: number;
  host: string;
  /** The kernel's boot id, where `/proc` has it. */
  boot?: string;
  /** The process's start time in clock ticks since boot, where `/proc` has it. */
  start?: string;
  /** When it took the lock, ISO 8601; for people reading the file or an error. */
  since: string;
}

export type LockAttempt = { taken: DirLock } | { heldBy: Holder };

export interface DirLock {
  /** Deletes the lock file if it is still this lock's; a lock left behind is stale once this process ends. */
  release(): void;
}

/** Takes the lock on `dir`, or says which live server holds it. Throws the file system's error if the lock cannot be written. */
export function takeLock(dir: string): LockAttempt {
  const path = join(dir, LOCK_FILE);
  const record = `${JSON.stringify(currentHolder())}\n`;
  // Each round either takes the lock, finds it held, or removes a stale one; servers that keep
  // starting and dying on the directory could make it go round forever.
  // Rounds spent waiting for another server's takeover do not count, up to a few seconds of them.
  for (let round = 0, waits = 0; round < 10; round++) {
    if (createExclusive(path, record)) return { taken: { release: () => releaseLock(path, record) } };
    const held = readSettled(path);
    if (held === undefined) continue;
    const holder = parseHolder(held);
    if (holder !== undefined && isLive(holder)) return { heldBy: holder };
    if (removeStale(path, held, record) === 'waited' && waits++ < MAX_TAKEOVER_WAITS) round--;
  }
  throw new Error('the lock changed hands ten times while this server tried to take it');
}

export function describeHolder(holder: Holder): string {
  return `pid ${holder.pid}${holder.host === hostname() ? '' : ` on host ${holder.host}`}, since ${holder.since}`;
}

/** The process is alive and is the one that wrote the record, as far as this host can tell. */
export function isLive(holder: Holder): boolean {
  if (holder.host !== hostname()) return true;
  const boot = bootId();
  if (holder.boot !== undefined && boot !== undefined && holder.boot !== boot) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a process of another user has the pid, which proves it exists.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = processStat(holder.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.start === undefined || holder.start === stat.start;
}

export function currentHolder(): Holder {
  return { pid: process.pid, host: hostname(), boot: bootId(), start: processStat(process.pid)?.start, since: new Date().toISOString() };
}

function releaseLock(path: string, record: string): void {
  try {
    if (readFileSync(path, 'utf8') === record) unlinkSync(path);
  } catch {
    // Gone already (the directory was removed), or unreadable now: once this process ends, it is stale.
  }
}

function createExclusive(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * The lock file's text, waiting out the instant between another server creating the file and writing
 * its record; a file still empty after a second was left by a server killed in that instant. Undefined
 * if there is no file.
 */
function readSettled(path: string): string | undefined {
  for (let wait = 0; ; wait++) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (text !== '' || wait === 40) return text;
    nap(25);
  }
}

/** Deletes the lock file if it still holds `stale`, under the takeover file; see the module comment. */
function removeStale(path: string, stale: string, record: string): 'removed' | 'waited' {
  const takeover = `${path}.takeover`;
  if (!createExclusive(takeover, record)) {
    const other = readSettled(takeover);
    const holder = other === undefined ? undefined : parseHolder(other);
    if (other !== undefined && (holder === undefined || !isLive(holder))) {
      deleteIfSame(takeover, other);
      return 'removed';
    }
    // Another server is taking over: give it the moment it needs.
    nap(TAKEOVER_WAIT_MS);
    return 'waited';
  }
  try {
    if (readSettled(path) === stale) unlinkSync(path);
  } finally {
    unlinkSync(takeover);
  }
  return 'removed';
}

/** Deletes a file if it still holds `text` (a takeover file left by a server that died taking over). */
function deleteIfSame(path: string, text: string): void {
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const TAKEOVER_WAIT_MS = 25;
/** Waits for other servers' takeovers, at most: 5 s. */
const MAX_TAKEOVER_WAITS = 200;

/** Blocks this thread for `ms` (the lock is taken before the server serves anything). */
function nap(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function parseHolder(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    // pid 0 and negative pids would make process.kill signal a process group.
    return Number.isSafeInteger(holder.pid) && holder.pid > 0 && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Fields 3 (state: `Z` zombie, `X` dead) and 22 (start time) of `/proc/<pid>/stat`, counted after the
 * command name, which may hold spaces and parentheses. Undefined where `/proc` is missing or the process is gone.
 */
function processStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], start: fields[19] };
  } catch {
    return undefined;
  }
}
