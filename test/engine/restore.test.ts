import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { tempDir } from './helpers.ts';

describe('restore', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((f) => f()));

  it('keeps a stored document whose values no longer fit the stored mappings, instead of refusing to start', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const store = DocStore.open(dir);
    const meta = { name: 'old', uuid: 'u1', createdAt: 0, settings: { numberOfShards: 1, numberOfReplicas: 1, maxResultWindow: 10_000, refreshIntervalMs: 1000 }, mappings: { properties: { n: { type: 'long' } } } };
    await store.write(
      [
        { op: 'put', uuid: 'u1', shard: 0, seq: 0, doc: { id: 'fits', version: 1, source: '{"n":1}' } },
        { op: 'put', uuid: 'u1', shard: 0, seq: 1, doc: { id: 'misfit', version: 1, source: '{"n":"not a number"}' } },
      ],
      [meta],
    );
    await store.close();

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const engine = Engine.open(DocStore.open(dir));
    try {
      expect(errors).toHaveBeenCalledOnce();
      expect(engine.count('old').count).toBe(2);
      expect(engine.get('old', 'misfit')?.doc.source).toBe('{"n":"not a number"}');
      const sorted = engine.search('old', searchRequest({ sort: [{ kind: 'field', field: 'n', order: 'asc', missing: '_last' }] }));
      expect(sorted.hits.hits.map((h) => h._id)).toEqual(['fits', 'misfit']);
    } finally {
      errors.mockRestore();
      await engine.close();
    }
  });
});
