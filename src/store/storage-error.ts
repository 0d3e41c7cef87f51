/**
 * How lmdb-js reports a commit it could not make, as one error the engine can act on: storage full
 * (no space left, quota, the map's limit) or anything else.
 *
 * lmdb-js rejects every write of a failed commit with "Commit failed (see commitError for details)"
 * and the real error (an errno, or an MDB_ code) in a second promise, `commitError`. It also rejects
 * a promise of its own that nobody holds (the commit of each event turn's batch), and a rejection
 * nobody handles ends a Node process: {@link quietCommitFailures} keeps those from taking the server
 * down, since the writes' own promises already carry the failure to their callers.
 *
 * A full disk does not always say ENOSPC: when the disk fills in the middle of a page, write(2)
 * returns short and LMDB reports EIO. An EIO with (almost) no space left on the data directory's
 * file system is taken as a full disk.
 */
import { statfsSync } from 'node:fs';

export class StorageError extends Error {
  constructor(
    message: string,
    /** The file system (or the map) had no room for the commit; space freed later lets writes succeed again. */
    readonly full: boolean,
    /** lmdb's code: a positive errno, or a negative MDB_ code. */
    readonly code?: number,
  ) {
    super(message);
  }
}

const ENOSPC = 28;
const EDQUOT = 122;
const EIO = 5;
const MDB_MAP_FULL = -30792;
/** Below this much free space, an EIO on commit is a short write into a full disk, in bytes. */
const NEARLY_FULL_BYTES = 1 << 20;

/** The failure behind a rejected lmdb write, classified; `dir` is the data directory (for its free space). */
export async function storageError(error: unknown, dir: string): Promise<StorageError> {
  if (error instanceof StorageError) return error;
  const commitError = (error as { commitError?: Promise<never> } | undefined)?.commitError;
  const cause = commitError ? await realError(commitError, error) : error;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (typeof code !== 'number') return new StorageError(message, false);
  const full = code === ENOSPC || code === EDQUOT || code === MDB_MAP_FULL || (code === EIO && freeBytes(dir) < NEARLY_FULL_BYTES);
  return new StorageError(message, full, code);
}

/** What `commitError` rejects with; lmdb-js rejects it as it rejects the writes, but a write must never wait forever on it. */
function realError(commitError: Promise<never>, fallback: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), 1000);
    commitError.then(
      () => resolve(fallback),
      (real: unknown) => {
        clearTimeout(timer);
        resolve(real);
      },
    );
  });
}

function freeBytes(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return Infinity;
  }
}

/**
 * Lets lmdb-js's own rejected commit promises (recognised by their `commitError`) go unhandled
 * without ending the process; any other unhandled rejection still does, as Node's default would,
 * unless someone else listens for them. Installed once per process, however many stores open: the
 * process's own list of listeners says whether it is, so no flag here can disagree with it (a
 * second copy would also keep the one below from ever rethrowing).
 */
export function quietCommitFailures(): void {
  if (!process.listeners('unhandledRejection').includes(quietCommitRejection)) process.on('unhandledRejection', quietCommitRejection);
}

function quietCommitRejection(reason: unknown): void {
  if (reason instanceof Error && 'commitError' in reason) {
    // Its real error is the same one the failed writes' callers see.
    (reason.commitError as Promise<unknown>).catch(() => {});
    return;
  }
  if (process.listenerCount('unhandledRejection') === 1) throw reason;
}
