import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocStore, type DocWrite, type IndexMeta, type StoredDoc } from '../../src/store/doc-store.ts';

const doc = (id: string, source: Record<string, unknown> = { n: id }): StoredDoc => ({ id, version: 1, source: JSON.stringify(source) });
const put = (uuid: string, shard: number, seq: number, d = doc(`${shard}/${seq}`)): DocWrite => ({ op: 'put', uuid, shard, seq, doc: d });
const del = (uuid: string, shard: number, seq: number): DocWrite => ({ op: 'delete', uuid, shard, seq, at: seq + 1 });
const meta = (name: string, uuid: string): IndexMeta => ({
  name,
  uuid,
  createdAt: 1_700_000_000_000,
  settings: { index: { number_of_shards: '3' } },
  mappings: { properties: { n: { type: 'keyword' } } },
});
const positions = (store: DocStore, uuid: string) => Array.from(store.scan(uuid), ({ shard, seq }) => [shard, seq]);

let dir: string;
let store: DocStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deeppage.store-'));
  store = DocStore.open(dir);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('documents', () => {
  it('reads back what was written, scanning in (shard, seq) order', async () => {
    const big = 2 ** 32;
    await store.write([put('u', 2, 1), put('u', 0, 5), put('u', 1, big + 1), put('u', 0, 2 * big), put('u', 0, 3), put('u', 1, big - 1)]);
    expect(store.getDoc('u', 1, big + 1)).toEqual(doc(`1/${big + 1}`));
    expect(store.getDoc('u', 1, 1)).toBeUndefined();
    expect(positions(store, 'u')).toEqual([[0, 3], [0, 5], [0, 2 * big], [1, big - 1], [1, big + 1], [2, 1]]);
    expect(store.count('u')).toBe(6);
    expect([...store.scan('u')][0].doc).toEqual(doc('0/3'));
  });

  it('keeps the routing and the source text as given, byte for byte', async () => {
    const routed: StoredDoc = { id: 'x', version: 3, source: '{ "a": [1, "two", null],\n "b": {"c": 1.5}, "é": "😀" }', routing: 'r1' };
    const plain: StoredDoc = { id: 'ä'.repeat(200), version: 2 ** 40, source: '{}' };
    const emptyRouting: StoredDoc = { id: 'y', version: 1, source: '{"z":0}', routing: '' };
    await store.write([put('u', 0, 0, routed), put('u', 0, 1, plain), put('u', 0, 2, emptyRouting)]);
    expect(store.getDoc('u', 0, 0)).toEqual(routed);
    expect(store.getDoc('u', 0, 1)).toEqual(plain);
    expect(store.getDoc('u', 0, 2)).toEqual(emptyRouting);
  });

  it("reads a document's source bytes alone, by its shard and seq", async () => {
    const text = (bytes: Uint8Array | undefined) => bytes && Buffer.from(bytes).toString('utf8');
    await store.write([put('u', 0, 1), put('u', 0, 2), put('u', 1, 2), put('uv', 0, 2)]);
    expect([...store.sourcesOf('u', [0, 0, 0, 1], [2, 1, 3, 2]).map(text), ...store.sourcesOf('uv', [0], [2]).map(text)]).toEqual(['{"n":"0/2"}', '{"n":"0/1"}', undefined, '{"n":"1/2"}', '{"n":"0/2"}']);
    expect([...store.sourcesOf('u', [2], [1]), ...store.sourcesOf('x', [0], [1])]).toEqual([undefined, undefined]);
  });

  it("serves no source of an index that was deleted, though its sources were read (and kept) before", async () => {
    await store.write([put('u', 0, 1), put('uv', 0, 1)]);
    expect(store.sourcesOf('u', [0, 0], [1, 1]).map((b) => b && Buffer.from(b).toString('utf8'))).toEqual(['{"n":"0/1"}', '{"n":"0/1"}']);
    await store.deleteIndex(meta('u', 'u'));
    expect(store.sourcesOf('u', [0], [1])).toEqual([undefined]);
    expect(store.sourcesOf('uv', [0], [1]).map((b) => b && Buffer.from(b).toString('utf8'))).toEqual(['{"n":"0/1"}']);
  });

  it('reads sources of any size together, each whole (their buffer grows past its first guess)', async () => {
    const sizes = [10, 3000, 1, 700, 5000, 20];
    const sources = sizes.map((n, i) => JSON.stringify({ i, s: 'é'.repeat(n) }));
    await store.write(sources.map((source, seq) => put('u', 0, seq, { id: `${seq}`, version: 1, source })));
    const read = store.sourcesOf('u', [0, 0, 0, 0, 0, 0, 0], [5, 4, 3, 2, 1, 0, 9]);
    expect(read.map((bytes) => bytes && Buffer.from(bytes).toString('utf8'))).toEqual([...sources.slice().reverse(), undefined]);
  });

  it('sources read earlier keep their bytes while later reads fill slab after slab (one larger than a slab too)', async () => {
    const sources = Array.from({ length: 400 }, (_, i) => JSON.stringify({ i, s: 'x'.repeat(i % 3 === 0 ? 30 : 500) }));
    sources[123] = JSON.stringify({ big: 'y'.repeat(100_000) });
    await store.write(sources.map((source, seq) => put('u', 0, seq, { id: `${seq}`, version: 1, source })));
    const reads = Array.from({ length: 100 }, (_, r) => {
      const seqs = Array.from({ length: 10 }, (_, j) => (r * 37 + j * 11) % 400);
      return { seqs, bytes: store.sourcesOf('u', seqs.map(() => 0), seqs) };
    });
    for (const { seqs, bytes } of reads) expect(bytes.map((b) => Buffer.from(b!).toString('utf8'))).toEqual(seqs.map((seq) => sources[seq]));
  });

  it('converts a data directory whose documents are MessagePack objects, once', async () => {
    await store.close();
    const { open } = await import('lmdb');
    const root = open({ path: dir, noSubdir: false });
    const legacy = root.openDB({ name: 'docs' });
    await legacy.put(['u', 0, 7], { id: 'old', version: 4, source: { kept: [1, 2] }, routing: 'r' });
    await root.close();
    store = DocStore.open(dir);
    expect(store.getDoc('u', 0, 7)).toEqual({ id: 'old', version: 4, source: '{"kept":[1,2]}', routing: 'r' });
    await store.close();
    store = DocStore.open(dir);
    expect(store.count('u')).toBe(1);
  });

  it('moves documents stored under array keys (before byte keys) to byte keys, in order, once', async () => {
    await store.close();
    const { open } = await import('lmdb');
    const { encodeDoc } = await import('../../src/store/doc-store.ts');
    const root = open({ path: dir, noSubdir: false });
    const old = root.openDB<Buffer, (string | number)[]>({ name: 'sources', encoding: 'binary' });
    const big = 2 ** 40;
    // More than one move batch (10,000), two indices whose uuids share a prefix, seqs past 2^32.
    await root.transaction(() => {
      for (let i = 0; i < 12_345; i++) old.put(['abc', i % 3, i], encodeDoc(doc(`a${i}`)));
      old.put(['ab', 1, big], encodeDoc(doc('b')));
    });
    await root.close();
    store = DocStore.open(dir);
    expect(store.count('abc')).toBe(12_345);
    expect(store.getDoc('ab', 1, big)).toEqual(doc('b'));
    expect(store.getDoc('abc', 2, 12_344)).toEqual(doc('a12344'));
    const order = positions(store, 'abc');
    expect(order).toEqual([...order].sort((x, y) => x[0] - y[0] || x[1] - y[1]));
    const wanted = Array.from({ length: 12_345 }, (_, i) => i).filter((i) => i % 3 === 1 && i > 12_000);
    expect([...store.docsAfter('abc', 1, 12_000)].map(({ seq }) => seq)).toEqual(wanted);
    expect(store.countAfter('abc', 1, 12_000)).toBe(wanted.length);
    await store.close();
    const reopened = open({ path: dir, noSubdir: false });
    expect(reopened.openDB({ name: 'sources', encoding: 'binary' }).getCount()).toBe(0);
    await reopened.close();
    store = DocStore.open(dir);
    expect(store.count('abc')).toBe(12_345);
  });

  it('applies a batch in order: put then delete removes, delete then put keeps', async () => {
    await store.write([put('u', 0, 1), put('u', 0, 2)]);
    await store.write([del('u', 0, 1), put('u', 0, 3), del('u', 0, 3), del('u', 0, 4), put('u', 0, 4)]);
    expect(positions(store, 'u')).toEqual([[0, 2], [0, 4]]);
    expect(store.getDoc('u', 0, 1)).toBeUndefined();
  });

  it("drops the deletes log up to a commit point's checkpoint, however long, and keeps what comes after it", async () => {
    // 1,500 deletes logged at 1..1500 (three prune batches and a part), then a commit at 1200.
    await store.write(Array.from({ length: 1500 }, (_, i) => put('u', 0, i)));
    await store.write(Array.from({ length: 1500 }, (_, i) => ({ op: 'delete' as const, uuid: 'u', shard: 0, seq: i, at: 1500 + i })));
    await store.write([{ op: 'delete', uuid: 'u', shard: 1, seq: 7, at: 8 }]);
    await store.commitShard('u', 0, { format: 1, checkpoint: 2700, segments: [] }, [], []);
    expect([...store.deletesAfter('u', 0, -1)]).toEqual(Array.from({ length: 299 }, (_, i) => ({ at: 2701 + i, seq: 1201 + i })));
    // Another shard's log is its own.
    expect([...store.deletesAfter('u', 1, -1)]).toEqual([{ at: 8, seq: 7 }]);
  });

  it('keeps indices whose uuids share a prefix apart', async () => {
    await store.write([put('ab', 9, 9), put('abc', 0, 0), put('abcd', 0, 0), put('abc', 1, 1)]);
    expect(positions(store, 'abc')).toEqual([[0, 0], [1, 1]]);
    expect(store.count('abc')).toBe(2);
    expect(store.count('missing')).toBe(0);
  });
});

describe('index metadata', () => {
  it('round-trips, and a later write for the same name replaces it', async () => {
    await store.putIndex(meta('books', 'u1'));
    await store.write([put('u2', 0, 0)], [meta('films', 'u2')]);
    expect(store.indices()).toEqual([meta('books', 'u1'), meta('films', 'u2')]);
    const updated = { ...meta('books', 'u1'), settings: { index: { number_of_shards: '3', refresh_interval: '-1' } } };
    await store.putIndex(updated);
    expect(store.indices()).toEqual([updated, meta('films', 'u2')]);
  });

  it('deleteIndex removes only that index, across every shard and seq', async () => {
    const extremes = [put('abc', 0, 0), put('abc', 0, Number.MAX_SAFE_INTEGER), put('abc', 1023, 7), put('abc', 2, 2 ** 40)];
    await store.write([...extremes, put('abcd', 0, 0), put('ab', 5, 5)], [meta('a', 'abc'), meta('b', 'abcd')]);
    await store.deleteIndex(meta('a', 'abc'));
    expect(store.count('abc')).toBe(0);
    expect(store.getDoc('abc', 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(positions(store, 'abcd')).toEqual([[0, 0]]);
    expect(positions(store, 'ab')).toEqual([[5, 5]]);
    expect(store.indices()).toEqual([meta('b', 'abcd')]);
  });

  it('deleteIndex leaves the metadata of a newer index with the same name', async () => {
    await store.write([put('old', 0, 0)], [meta('books', 'new')]);
    await store.deleteIndex(meta('books', 'old'));
    expect(store.indices()).toEqual([meta('books', 'new')]);
    expect(store.count('old')).toBe(0);
  });
});

describe('durability', () => {
  it('finds everything again after a reopen', async () => {
    await store.write([put('u', 1, 2), put('u', 0, 9), put('u', 0, 2 ** 35)], [meta('books', 'u')]);
    await store.close();
    store = DocStore.open(dir);
    expect(store.indices()).toEqual([meta('books', 'u')]);
    expect(positions(store, 'u')).toEqual([[0, 9], [0, 2 ** 35], [1, 2]]);
    expect(store.getDoc('u', 1, 2)).toEqual(doc('1/2'));
  });

  it('keeps acknowledged writes when the process is killed right after', async () => {
    const n = 1000;
    const module = fileURLToPath(new URL('../../src/store/doc-store.ts', import.meta.url));
    // The child writes in batches, acknowledges, then dies without closing the store.
    const child = `
      import { writeSync } from 'node:fs';
      const { DocStore } = await import(${JSON.stringify(module)});
      const store = DocStore.open(${JSON.stringify(dir)});
      await store.putIndex({ name: 'books', uuid: 'u', createdAt: 0, settings: {}, mappings: {} });
      for (let start = 0; start < ${n}; start += 100) {
        const writes = [];
        for (let seq = start; seq < start + 100; seq++) {
          writes.push({ op: 'put', uuid: 'u', shard: seq % 3, seq, doc: { id: 'd' + seq, version: 1, source: JSON.stringify({ seq }) } });
        }
        await store.write(writes);
      }
      writeSync(1, 'acked\\n');
      process.kill(process.pid, 'SIGKILL');
    `;
    await store.close();
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('acked\n');
    expect(result.signal).toBe('SIGKILL');

    store = DocStore.open(dir);
    expect(store.indices().map((m) => m.name)).toEqual(['books']);
    expect(store.count('u')).toBe(n);
    for (let seq = 0; seq < n; seq++) expect(store.getDoc('u', seq % 3, seq)?.source).toBe(JSON.stringify({ seq }));
  });
});
