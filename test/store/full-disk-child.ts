/**
 * The child process of full-disk.test.ts: a DocStore on a file system that fills up, in a process of
 * its own (lmdb's failed commits reject promises nobody holds, which a test runner would report).
 * Prints one JSON line with what happened; every wait is bounded, so a hang shows as a failure.
 */
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DocStore, type DocWrite } from '../../src/store/doc-store.ts';
import { StorageError } from '../../src/store/storage-error.ts';

const [mount] = process.argv.slice(2);
const ballast = join(mount, 'ballast');
const { bavail, bsize } = statfsSync(mount);
writeFileSync(ballast, Buffer.alloc(bavail * bsize - (3 << 20)));

let seq = 0;
const put = (bytes: number): DocWrite => ({ op: 'put', uuid: 'u', shard: 0, seq: seq++, doc: { id: `d${seq}`, version: 1, source: JSON.stringify({ pad: 'x'.repeat(bytes) }) } });
/** `promise`, or a failure after 10 s (the timer keeps the process up: a wait without end shows as one). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after 10 s`)), 10_000)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const outcome = (settled: PromiseSettledResult<unknown>) =>
  settled.status === 'fulfilled' ? 'stored' : settled.reason instanceof StorageError ? { full: settled.reason.full, code: settled.reason.code } : String(settled.reason);

const result: Record<string, unknown> = {};
try {
  let store = DocStore.open(join(mount, 'data'));
  const stored: number[] = [];
  // Until a commit does not fit.
  for (;;) {
    const write = put(256 << 10);
    const [settled] = await within(Promise.allSettled([store.write([write])]), 'filling');
    if (settled.status === 'rejected') {
      result.refused = outcome(settled);
      break;
    }
    stored.push((write as { seq: number }).seq);
  }
  // A small write, then (a few ms later, so mostly in a commit of its own: lmdb-js adds writes to a
  // transaction its write thread has not begun yet, which two event turns did not always leave it
  // time for) a refused one: the small one still resolves, once durable, though `flushed` may be the
  // refused commit's by then.
  const beside: unknown[] = [];
  for (let i = 0; i < 10; i++) {
    const small = put(10);
    const done = store.write([small]);
    await new Promise((resolve) => setTimeout(resolve, 3));
    const [smallOutcome, bigOutcome] = await within(Promise.allSettled([done, store.write([put(4 << 20)])]), 'a write beside a refused one');
    beside.push({ small: outcome(smallOutcome), big: outcome(bigOutcome) });
    if (smallOutcome.status === 'fulfilled') stored.push((small as { seq: number }).seq);
  }
  result.beside = beside;
  // The last commit refused: closing must not wait for its flush.
  result.last = outcome((await within(Promise.allSettled([store.write([put(4 << 20)])]), 'the last write'))[0]);
  await within(store.close(), 'close after a refused commit');
  result.closed = true;

  rmSync(ballast);
  store = DocStore.open(join(mount, 'data'));
  const after = put(4 << 20);
  result.afterFreeing = outcome((await within(Promise.allSettled([store.write([after])]), 'a write with space again'))[0]);
  stored.push((after as { seq: number }).seq);
  const missing = stored.filter((s) => store.getDoc('u', 0, s) === undefined);
  result.stored = stored.length;
  result.missing = missing;
  result.count = store.count('u');
  await within(store.close(), 'close');
} catch (error) {
  result.error = String(error);
}
process.stdout.write(JSON.stringify(result) + '\n');
