/**
 * Durable storage for index metadata and documents, on one lmdb environment per data directory.
 *
 * Three named databases: `tasks` keeps task records by id; `meta` maps an index name to its {@link IndexMeta}; `docs` maps the key
 * `[uuid, shard, seq]` to a {@link StoredDoc}. lmdb's ordered-binary keys compare arrays element by
 * element and numbers numerically, so a range over `[uuid, …]` yields that index's documents in
 * (shard, seq) order, for any seq up to 2^53.
 *
 * Reads are synchronous (the file is memory-mapped); every write resolves only once flushed to disk.
 *
 * @example
 * const store = DocStore.open('/var/lib/deeppage');
 * await store.write([{ op: 'put', uuid, shard: 0, seq: 1, doc: { id: 'a', version: 1, source: {} } }]);
 * store.getDoc(uuid, 0, 1); // { id: 'a', version: 1, source: {} }
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';

export interface StoredDoc {
  id: string;
  version: number;
  source: Record<string, unknown>;
  routing?: string;
}

export interface IndexMeta {
  name: string;
  uuid: string;
  /** ms since the epoch. */
  createdAt: number;
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
  /** Per shard, the highest sequence number handed out (deletes take one but store no document). */
  seqs?: number[];
}

export type DocWrite =
  | { op: 'put'; uuid: string; shard: number; seq: number; doc: StoredDoc }
  | { op: 'delete'; uuid: string; shard: number; seq: number };

type DocKey = [uuid: string, shard: number, seq: number];

/**
 * The key range holding every document of an index. `[uuid]` sorts before all `[uuid, …]` keys and
 * Infinity after every finite shard number (the end is exclusive); another uuid that merely starts
 * with this one sorts after, as the array delimiter byte is lower than any character.
 */
const indexRange = (uuid: string) => ({ start: [uuid], end: [uuid, Infinity] });

export class DocStore {
  private constructor(
    private readonly root: RootDatabase,
    private readonly meta: Database<IndexMeta, string>,
    private readonly docs: Database<StoredDoc, DocKey>,
    private readonly taskRecords: Database<unknown, number>,
  ) {}

  /** Opens (creating if need be) the store in `dir`. */
  static open(dir: string): DocStore {
    mkdirSync(dir, { recursive: true });
    const root = open({ path: dir });
    return new DocStore(root, root.openDB<IndexMeta, string>({ name: 'meta' }), root.openDB<StoredDoc, DocKey>({ name: 'docs' }), root.openDB<unknown, number>({ name: 'tasks' }));
  }

  /** Applies the writes (and index metadata updates) in order; resolves only when durable on disk. */
  async write(writes: DocWrite[], metas: IndexMeta[] = []): Promise<void> {
    // Queued in one event turn, the operations commit together in one lmdb transaction, in call order.
    const pending: Promise<boolean>[] = metas.map((meta) => this.meta.put(meta.name, meta));
    for (const w of writes) {
      const key: DocKey = [w.uuid, w.shard, w.seq];
      pending.push(w.op === 'put' ? this.docs.put(key, w.doc) : this.docs.remove(key));
    }
    await this.durable(pending);
  }

  putIndex(meta: IndexMeta): Promise<void> {
    return this.write([], [meta]);
  }

  /** Removes the index's metadata and every document stored under its uuid; durable. */
  async deleteIndex(meta: IndexMeta): Promise<void> {
    const pending: Promise<boolean>[] = [];
    // A newer index may have taken the name since; its metadata must stay. This reads committed
    // state, so a putIndex for the name must have been awaited before.
    if (this.meta.get(meta.name)?.uuid === meta.uuid) pending.push(this.meta.remove(meta.name));
    for (const key of this.docs.getKeys(indexRange(meta.uuid))) pending.push(this.docs.remove(key));
    await this.durable(pending);
  }

  indices(): IndexMeta[] {
    return Array.from(this.meta.getRange(), ({ value }) => value);
  }

  getDoc(uuid: string, shard: number, seq: number): StoredDoc | undefined {
    return this.docs.get([uuid, shard, seq]);
  }

  /** Every stored document of the index, in (shard, seq) order. */
  scan(uuid: string): Iterable<{ shard: number; seq: number; doc: StoredDoc }> {
    return this.docs.getRange(indexRange(uuid)).map(({ key, value }) => ({ shard: key[1], seq: key[2], doc: value }));
  }

  /** Documents stored for the index. */
  count(uuid: string): number {
    return this.docs.getCount(indexRange(uuid));
  }

  /** Stored task records (src/engine/tasks/task-manager.ts), by local task id. */
  tasks(): [number, unknown][] {
    return Array.from(this.taskRecords.getRange(), ({ key, value }) => [key, value]);
  }

  putTask(id: number, record: unknown): Promise<void> {
    return this.durable([this.taskRecords.put(id, record)]);
  }

  removeTask(id: number): Promise<void> {
    return this.durable([this.taskRecords.remove(id)]);
  }

  close(): Promise<void> {
    return this.root.close();
  }

  /**
   * Waits for the commit, then for the fsync: with `overlappingSync` (lmdb's default on Linux) a
   * write's promise resolves when committed and visible, which a crash can still undo.
   */
  private async durable(pending: Promise<boolean>[]): Promise<void> {
    await Promise.all(pending);
    await this.root.flushed;
  }
}
