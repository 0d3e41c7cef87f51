/**
 * The background flush (commits/flusher.ts), on a short policy: a shard is committed once it has
 * enough writes, or some writes and then none for a while; an index with refresh turned off is left
 * alone (a flush would make its writes visible); and what was committed loads at the next start
 * without a replay.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir } from './helpers.ts';

const policy = { ops: 50, idleMs: 1000, checkMs: 20 };
const docs = (index: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ action: 'index' as const, index, id: String(from + i), source: { n: from + i } }));
const until = async (done: () => boolean, ms = 5000) => {
  for (const start = Date.now(); !done(); ) {
    if (Date.now() - start > ms) throw new Error('timed out waiting for a background flush');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('background flush', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('commits a shard after enough writes, or after writes and a quiet spell; never an index with refresh off', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const store = DocStore.open(dir);
    const engine = Engine.open(store, { flushPolicy: policy });
    cleanups.push(() => engine.close());
    await engine.createIndex('busy', { settings: { number_of_shards: 1 } });
    await engine.createIndex('quiet', { settings: { number_of_shards: 1 } });
    await engine.createIndex('manual', { settings: { number_of_shards: 1, refresh_interval: -1 } });
    const committed = (index: string) => store.shardCommit(engine.resolveOne(index).uuid, 0);

    await engine.write([...docs('busy', 0, 60), ...docs('quiet', 0, 3), ...docs('manual', 0, 60)]);
    // 60 writes reach the policy's 50 at the next check; 3 writes wait for the quiet spell.
    await until(() => committed('busy') !== undefined);
    expect(committed('busy')?.checkpoint).toBe(59);
    expect(committed('quiet')).toBeUndefined();
    await until(() => committed('quiet') !== undefined);
    expect(committed('quiet')?.checkpoint).toBe(2);
    // Searches see what was flushed (a flush refreshes), but never the index whose refresh is off.
    expect(engine.count('busy').count).toBe(60);
    await new Promise((resolve) => setTimeout(resolve, policy.idleMs * 2));
    expect(committed('manual')).toBeUndefined();
    expect(engine.count('manual').count).toBe(0);
    expect(engine.resolveOne('busy').shards[0].writes.uncommittedOps).toBe(0);
  });

  it('leaves nothing to replay: the next start loads the commit point', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const engine = Engine.open(DocStore.open(dir), { flushPolicy: policy });
    await engine.createIndex('busy', { settings: { number_of_shards: 1 } });
    await engine.write(docs('busy', 0, 80));
    await until(() => engine.resolveOne('busy').shards[0].writes.uncommittedOps === 0);
    await engine.close({ flush: false });

    const store = DocStore.open(dir);
    const replayed = vi.spyOn(store, 'docsAfter');
    const again = Engine.open(store);
    cleanups.push(() => again.close());
    expect(again.count('busy').count).toBe(80);
    // Replay starts after the checkpoint, and finds nothing there.
    expect(replayed).toHaveBeenCalledWith(expect.any(String), 0, 79);
    expect(again.resolveOne('busy').shards[0].writes.uncommittedOps).toBe(0);
  });
});
