/** What a refused lmdb commit becomes: a StorageError that says whether the disk was full. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { storageError, StorageError } from '../../src/store/storage-error.ts';
import { tempDir } from '../engine/helpers.ts';

/** A write's rejection as lmdb-js makes it: the real error behind `commitError`. */
const commitFailed = (code: number, message: string) => {
  const commitError = Promise.reject(Object.assign(new Error(message), { code }));
  commitError.catch(() => {});
  return Object.assign(new Error('Commit failed (see commitError for details)'), { commitError });
};

describe('storageError', () => {
  const { dir, remove } = tempDir();
  afterAll(remove);

  it('reads the real error behind commitError, and takes no space, quota or map room as a full disk', async () => {
    for (const [code, message] of [[28, 'No space left on device'], [122, 'Disk quota exceeded'], [-30792, 'MDB_MAP_FULL: Environment mapsize limit reached']] as const) {
      const error = await storageError(commitFailed(code, message), dir);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ full: true, code, message });
    }
  });

  it('takes an I/O error as a full disk only when the file system has (next to) no space left', async () => {
    // The temporary directory's file system has room: an EIO there is a real I/O error.
    expect(await storageError(commitFailed(5, 'Input/output error'), dir)).toMatchObject({ full: false, code: 5 });
  });

  it('keeps any other failure as it is, not full', async () => {
    expect(await storageError(new Error('The environment is already closed.'), dir)).toMatchObject({ full: false, code: undefined, message: 'The environment is already closed.' });
    const known = new StorageError('x', true, 28);
    expect(await storageError(known, dir)).toBe(known);
  });
});

describe('quietCommitFailures', () => {
  it('lets a commit failure nobody holds go by, however many stores installed it, and still ends the process on any other', async () => {
    // In a process of its own: the test runner listens for unhandled rejections itself.
    const module = fileURLToPath(new URL('../../src/store/storage-error.ts', import.meta.url));
    const script = `
      const { quietCommitFailures } = await import(${JSON.stringify(module)});
      quietCommitFailures();
      quietCommitFailures();
      const commitError = Promise.reject(new Error('No space left on device'));
      commitError.catch(() => {});
      Promise.reject(Object.assign(new Error('Commit failed (see commitError for details)'), { commitError }));
      setTimeout(() => {
        console.log('still running');
        Promise.reject(new Error('any other failure'));
      }, 50);
      setTimeout(() => console.log('never'), 5000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'close');
    expect(stdout).toBe('still running\n');
    expect(stderr).toContain('any other failure');
    expect(code).not.toBe(0);
  }, 20_000);
});
