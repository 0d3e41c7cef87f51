/**
 * An index deleted while writes to its name keep coming (a reindex's destination deleted mid-run:
 * the next batch auto-creates it again): the new index survives a restart.
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir } from './helpers.ts';

describe('deleteIndices while the name is written again', () => {
  // engine.ts:134-145 with doc-store.ts:89-95 (deleteIndex): the index is taken out of the engine at once, so
  // the next write auto-creates a new index of that name and queues its metadata; deleteIndex then
  // reads the *committed* metadata (still the old uuid) and queues its removal after the new put.
  // The new index lives in memory but its metadata is gone from storage: after a restart it and
  // its documents vanish (the documents stay in storage under a uuid nothing names).
  it('the index created again survives a restart', async () => {
    const { dir, remove } = tempDir();
    try {
      let engine = Engine.open(DocStore.open(dir));
      await engine.createIndex('dst');
      await engine.write([{ action: 'index', index: 'dst', id: 'old', source: { n: 1 } }], 'true');
      const deleting = engine.deleteIndices('dst');
      // A reindex's next batch into the same destination.
      const writing = engine.write([{ action: 'index', index: 'dst', id: 'new', source: { n: 2 } }], 'true');
      await Promise.all([deleting, writing]);
      expect(engine.count('dst').count).toBe(1);
      await engine.close();

      engine = Engine.open(DocStore.open(dir));
      try {
        expect(engine.has('dst')).toBe(true);
        expect(engine.get('dst', 'new')).toBeDefined();
      } finally {
        await engine.close();
      }
    } finally {
      remove();
    }
  });
});
