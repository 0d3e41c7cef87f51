/**
 * The data directory's lock: held while its server lives, stale once the process it names is gone or
 * is another process that got the pid, and taken by exactly one of several servers racing for it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentHolder, describeHolder, LOCK_FILE, takeLock, type Holder } from '../../src/store/dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deeppage.lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lockFile = () => join(dir, LOCK_FILE);
const writeHolder = (holder: Partial<Holder>) => writeFileSync(lockFile(), `${JSON.stringify({ ...currentHolder(), ...holder })}\n`);
const taken = (attempt: ReturnType<typeof takeLock>) => {
  expect(attempt, JSON.stringify(attempt)).toHaveProperty('taken');
  return (attempt as { taken: { release(): void } }).taken;
};
const heldBy = (attempt: ReturnType<typeof takeLock>) => {
  expect(attempt, JSON.stringify(attempt)).toHaveProperty('heldBy');
  return (attempt as { heldBy: Holder }).heldBy;
};
/** A pid that no process has: one that just exited (a new process getting it this soon is not expected). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const hasProc = existsSync('/proc/self/stat');

describe('dir lock', () => {
  it('is held until released, and names its holder', () => {
    const lock = taken(takeLock(dir));
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(heldBy(takeLock(dir)).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    taken(takeLock(dir)).release();
  });

  it('release leaves a lock that another holder has taken since', () => {
    const lock = taken(takeLock(dir));
    writeHolder({ since: 'another holder' });
    lock.release();
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).since).toBe('another holder');
  });

  it('takes over a lock whose process is gone', () => {
    const pid = deadPid();
    writeHolder({ pid });
    const lock = taken(takeLock(dir));
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it.skipIf(!hasProc)('takes over a lock whose pid now belongs to a process that started later (pid reuse)', () => {
    writeHolder({ start: '1' });
    taken(takeLock(dir)).release();
  });

  it.skipIf(!hasProc)('takes over a lock from an earlier boot of this machine', () => {
    writeHolder({ boot: 'an earlier boot' });
    taken(takeLock(dir)).release();
  });

  it('counts a lock from another host as held, since its process cannot be looked at', () => {
    writeHolder({ pid: deadPid(), host: `not-${hostname()}` });
    const holder = heldBy(takeLock(dir));
    expect(describeHolder(holder)).toMatch(new RegExp(`^pid ${holder.pid} on host not-`));
  });

  it('takes over a lock file that holds no record, or a pid that is not one', () => {
    for (const text of ['{"pid":', 'not json', '{"pid":0,"host":"h"}', `{"pid":-1,"host":${JSON.stringify(hostname())}}`]) {
      writeFileSync(lockFile(), text);
      taken(takeLock(dir)).release();
    }
  });

  it('takes over an empty lock file once it stays empty (its writer died between creating and writing it)', () => {
    writeFileSync(lockFile(), '');
    taken(takeLock(dir)).release();
  });

  it('takes over a stale lock whose last taker died in the middle of taking it over', () => {
    writeHolder({ pid: deadPid() });
    writeFileSync(`${lockFile()}.takeover`, `${JSON.stringify({ ...currentHolder(), pid: deadPid() })}\n`);
    taken(takeLock(dir)).release();
    expect(existsSync(`${lockFile()}.takeover`)).toBe(false);
    expect(existsSync(lockFile())).toBe(false);
  });

  it.skipIf(!hasProc)('takes over a lock whose holder was killed and is a zombie not yet reaped', async () => {
    const module = fileURLToPath(new URL('../../src/store/dir-lock.ts', import.meta.url));
    const locker = `
      const { takeLock } = await import(${JSON.stringify(module)});
      console.log('taken' in takeLock(${JSON.stringify(dir)}) ? process.pid : 'held');
      setTimeout(() => {}, 20_000);
    `;
    // The locker runs in the background of a shell that then becomes `sleep`, which never waits for
    // children: once killed, the locker stays a zombie of the sleeping parent until the parent ends.
    const parent = spawn('sh', ['-c', `"$0" --import tsx --input-type=module -e "$1" & exec sleep 30`, process.execPath, locker], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pid = 0;
    try {
      const [line] = await once(parent.stdout!, 'data');
      pid = Number(String(line).trim());
      expect(pid, String(line)).toBeGreaterThan(0);
      expect(heldBy(takeLock(dir)).pid).toBe(pid);
      process.kill(pid, 'SIGKILL');
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
      for (let waited = 0; state() !== 'Z' && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(state()).toBe('Z');
      const lock = taken(takeLock(dir));
      expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
      lock.release();
    } finally {
      // Killing a zombie does nothing; a locker still alive because the test failed early dies here.
      if (pid > 0) process.kill(pid, 'SIGKILL');
      // The locker's zombie goes to init with its parent, which reaps it.
      parent.kill('SIGKILL');
    }
  }, 30_000);

  it('goes to exactly one of several processes racing for a stale lock', async () => {
    writeHolder({ pid: deadPid() });
    const go = join(dir, 'go');
    const module = fileURLToPath(new URL('../../src/store/dir-lock.ts', import.meta.url));
    // Each racer waits for the go file, then tries once and stays alive so that its lock stays live.
    const racer = `
      import { existsSync } from 'node:fs';
      const { takeLock } = await import(${JSON.stringify(module)});
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (!existsSync(${JSON.stringify(go)})) Atomics.wait(nap, 0, 0, 1);
      console.log('taken' in takeLock(${JSON.stringify(dir)}) ? 'taken' : 'held');
      setTimeout(() => {}, 20_000);
    `;
    const racers = Array.from({ length: 5 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', racer], { stdio: ['ignore', 'pipe', 'inherit'] }));
    try {
      const answers = racers.map((child) => once(child.stdout!, 'data').then(([line]) => String(line).trim()));
      // The racers are waiting once their module is loaded; give them time to get there.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      writeFileSync(go, '');
      const said = await Promise.all(answers);
      expect(said.sort()).toEqual(['held', 'held', 'held', 'held', 'taken']);
      const holder = JSON.parse(readFileSync(lockFile(), 'utf8')) as Holder;
      expect(racers.map((child) => child.pid)).toContain(holder.pid);
    } finally {
      for (const child of racers) child.kill('SIGKILL');
    }
  }, 30_000);
});
