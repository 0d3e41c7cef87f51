/**
 * Durable first, then visible: when storage refuses a batch of writes (a full disk, an I/O error),
 * nothing of it shows in memory, nor of the batches planned on top of it; the writes after the
 * failure plan from what is durable, and a restart finds the same state. Batches planned while a
 * transaction commits go to storage together in the next one (group commit), and stand or fall as one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { StorageError } from '../../src/store/storage-error.ts';
import { tempDir } from './helpers.ts';

const diskFull = () => Object.assign(new Error('MDB_MAP_FULL: Environment mapsize limit reached'), { code: 'ENOSPC' });

describe('a write storage refuses', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function engineWithDocs() {
    const { dir, remove } = tempDir();
    const store = DocStore.open(dir);
    const engine = Engine.open(store);
    cleanups.push(remove, () => engine.close());
    await engine.createIndex('books', { settings: { number_of_shards: 2 }, mappings: { properties: { n: { type: 'long' } } } });
    await engine.write([1, 2, 3].map((n) => ({ action: 'index' as const, index: 'books', id: String(n), source: { n } })), 'true');
    return { dir, store, engine };
  }

  /** What a user can see of the node: documents, versions, mappings, indices, a page. */
  function state(engine: Engine) {
    const books = engine.resolveOne('books');
    return {
      docs: ['1', '2', '3', '4'].map((id) => {
        const found = engine.get('books', id);
        return found && { id, version: found.doc.version, source: found.doc.source };
      }),
      mappings: books.mappings.toJSON(),
      indices: engine.indices().map((index) => index.name),
      page: engine.search('books', searchRequest({ size: 10, sort: [{ kind: 'field', field: 'n', order: 'asc', missing: '_last' }] })).hits.hits.map((hit) => hit._id),
      count: engine.count('books').count,
    };
  }

  it('changes nothing in memory: no new document, update, delete, mapping or index', async () => {
    const { store, engine } = await engineWithDocs();
    const before = state(engine);
    vi.spyOn(store, 'write').mockRejectedValueOnce(diskFull());
    const failed = engine.write(
      [
        { action: 'index', index: 'books', id: '4', source: { n: 4, title: 'new field' } },
        { action: 'update', index: 'books', id: '1', doc: { n: 10 } },
        { action: 'delete', index: 'books', id: '2' },
        { action: 'index', index: 'fresh', id: 'x', source: { any: 1 } },
      ],
      'true',
    );
    await expect(failed).rejects.toMatchObject({ status: 500, type: 'exception' });
    await expect(failed).rejects.toBeInstanceOf(EsError);
    engine.refresh('books');
    expect(state(engine)).toEqual(before);
    expect(engine.has('fresh')).toBe(false);
  });

  it('fails the batches planned on top of it, and plans the next ones from what is durable', async () => {
    const { dir, store, engine } = await engineWithDocs();
    const write = vi.spyOn(store, 'write');
    write.mockRejectedValueOnce(diskFull());
    const first = engine.write([{ action: 'index', index: 'books', id: '4', source: { n: 4 } }]);
    // Planned while the first is in flight, on top of it: it sees document 4.
    const second = engine.write([{ action: 'update', index: 'books', id: '4', doc: { n: 40 } }]);
    const [a, b] = await Promise.allSettled([first, second]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    // The second never reached storage.
    expect(write).toHaveBeenCalledTimes(1);
    write.mockRestore();

    const [again] = await engine.write([{ action: 'update', index: 'books', id: '4', doc: { n: 40 } }, { action: 'index', index: 'books', id: '1', source: { n: 100 } }]);
    expect(again).toMatchObject({ status: 404, type: 'document_missing_exception' });
    const [, replaced] = await engine.write([{ action: 'index', index: 'books', id: '4', source: { n: 4 } }, { action: 'index', index: 'books', id: '1', source: { n: 1 } }], 'true');
    expect(replaced).toMatchObject({ result: 'updated', _version: 3 });
    const now = state(engine);
    await engine.close();
    cleanups.pop();

    const reopened = Engine.open(DocStore.open(dir));
    cleanups.push(() => reopened.close());
    expect(state(reopened)).toEqual(now);
  });

  it('commits the batches planned while a transaction commits together in the next one, and fails them together', async () => {
    const { dir, store, engine } = await engineWithDocs();
    const write = vi.spyOn(store, 'write');
    const writes = Array.from({ length: 20 }, (_, i) => engine.write([{ action: 'index', index: 'books', id: `g-${i}`, source: { n: 100 + i } }]));
    await Promise.all(writes);
    // The first goes alone; the nineteen planned while it committed, in one transaction after it.
    expect(write).toHaveBeenCalledTimes(2);
    expect(write.mock.calls[1][0]).toHaveLength(19);
    // A group refused fails every batch in it, and those planned behind it.
    write.mockImplementationOnce(DocStore.prototype.write.bind(store)).mockRejectedValueOnce(diskFull());
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => engine.write([{ action: 'index', index: 'books', id: `h-${i}`, source: { n: 200 + i } }])));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    write.mockRestore();
    engine.refresh('books');
    expect(engine.count('books').count).toBe(3 + 20 + 1);
    await engine.close();
    cleanups.pop();
    const reopened = Engine.open(DocStore.open(dir));
    cleanups.push(() => reopened.close());
    reopened.refresh('books');
    expect(reopened.count('books').count).toBe(24);
  });

  it('commits a large bulk in a few transactions, its batches grouped up to 5,000 writes each', async () => {
    const { store, engine } = await engineWithDocs();
    // The first transaction takes its time (a slow disk), so that the bulk's other batches are
    // planned while it commits, whatever this machine's speed.
    const write = vi.spyOn(store, 'write').mockImplementationOnce(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return DocStore.prototype.write.apply(store, args);
    });
    const ops = Array.from({ length: 10_000 }, (_, i) => ({ action: 'index' as const, index: 'books', id: `big-${i}`, source: { n: i } }));
    const items = await engine.write(ops);
    expect(items.every((item) => !(item instanceof EsError))).toBe(true);
    // Planned 250 at a time: one transaction each would be 40; grouped, the first goes alone and the
    // rest in groups of whole batches of at most 5,000 writes.
    const sizes = write.mock.calls.map((call) => call[0].length);
    write.mockRestore();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(5000);
    expect(Math.max(...sizes)).toBeGreaterThan(300);
    expect(sizes.length).toBeLessThan(10);
    // Every batch applied, in order.
    engine.refresh('books');
    expect(engine.count('books').count).toBe(3 + 10_000);
  });

  it('in a bulk larger than one batch, refuses the batch storage refused, item by item with the flood-stage block, and keeps the others', async () => {
    const { store, engine } = await engineWithDocs();
    const write = vi.spyOn(store, 'write');
    // Storage takes the bulk's first batch, refuses the second (the disk is full), then has room again.
    write.mockImplementationOnce(DocStore.prototype.write.bind(store)).mockRejectedValueOnce(new StorageError('MDB_MAP_FULL: Environment mapsize limit reached', true));
    const ops = Array.from({ length: 2500 }, (_, i) => ({ action: 'index' as const, index: 'books', id: `bulk-${i}`, source: { n: 1000 + i } }));
    const items = await engine.write(ops);
    write.mockRestore();
    const refused = items.flatMap((item, i) => (item instanceof EsError ? [i] : []));
    // The second batch failed whole, with ES's per-item 429; the first stands whole.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBeGreaterThan(0);
    expect(refused).toEqual(Array.from({ length: refused.length }, (_, k) => refused[0] + k));
    for (const i of refused) expect(items[i]).toMatchObject({ status: 429, type: 'cluster_block_exception', reason: expect.stringContaining('index [books]') });
    // Every item's answer is what storage and memory hold.
    engine.refresh('books');
    expect(engine.count('books').count).toBe(3 + ops.length - refused.length);
    ops.forEach((op, i) => expect(engine.get('books', op.id) !== undefined, op.id).toBe(!refused.includes(i)));
  });

  it('throws when storage refused every batch of a bulk for another reason than a full disk, and applies nothing', async () => {
    const { store, engine } = await engineWithDocs();
    const write = vi.spyOn(store, 'write').mockRejectedValue(new StorageError('EIO: input/output error', false));
    const ops = Array.from({ length: 600 }, (_, i) => ({ action: 'index' as const, index: 'books', id: `bulk-${i}`, source: { n: i } }));
    await expect(engine.write(ops)).rejects.toMatchObject({ status: 500, type: 'exception' });
    write.mockRestore();
    engine.refresh('books');
    expect(engine.count('books').count).toBe(3);
  });
});
