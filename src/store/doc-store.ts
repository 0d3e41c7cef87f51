/**
 * Durable storage for index metadata, documents and task records, on one lmdb environment per data
 * directory.
 *
 * Named databases: `meta` maps an index name to its {@link IndexMeta}; `tasks` keeps task records by
 * id; `documents` maps a document's key ({@link DocKeys}: the uuid, shard and seq as bytes that sort
 * in that order) to the stored document in a small binary layout ({@link encodeDoc}) whose tail is
 * the `_source` JSON exactly as it arrived, so reading one costs a lookup and a copy of its bytes, no
 * decoding. A range over an index's keys yields its documents in (shard, seq) order, for any seq up
 * to 2^53. Data directories from before this layout are converted once when opened: documents as
 * MessagePack objects in `docs`, or under lmdb's array keys (`[uuid, shard, seq]`) in `sources`,
 * whose encoding and decoding made a lookup cost about twice as much.
 *
 * Reads are synchronous (the file is memory-mapped); every write resolves only once flushed to disk,
 * or rejects with a {@link StorageError} (src/store/storage-error.ts) and leaves nothing of it stored.
 *
 * @example
 * const store = DocStore.open('/var/lib/deeppage');
 * await store.write([{ op: 'put', uuid, shard: 0, seq: 1, doc: { id: 'a', version: 1, source: '{"n":1}' } }]);
 * store.getDoc(uuid, 0, 1); // { id: 'a', version: 1, source: '{"n":1}' }
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { SourceCache } from './source-cache.ts';
import { quietCommitFailures, storageError, StorageError } from './storage-error.ts';

export interface StoredDoc {
  id: string;
  version: number;
  /** `_source` as the JSON text it arrived in. */
  source: string;
  routing?: string;
}

/** A document as it is written: its `_source` as text, or as the UTF-8 bytes of that text a client sent. */
export interface DocToStore extends Omit<StoredDoc, 'source'> {
  source: string | Uint8Array;
}

/** The document as storage gives it back: bytes written are read as the text they encode. */
export function asStored(doc: DocToStore): StoredDoc {
  const { source } = doc;
  if (typeof source === 'string') return doc as StoredDoc;
  const text = Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8');
  return doc.routing === undefined ? { id: doc.id, version: doc.version, source: text } : { id: doc.id, version: doc.version, source: text, routing: doc.routing };
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
  /** The index's aliases (src/engine/aliases/alias.ts `StoredAlias`), by name. */
  aliases?: Record<string, unknown>;
}

export type DocWrite =
  | { op: 'put'; uuid: string; shard: number; seq: number; doc: DocToStore }
  /** `at`: the seq of the operation that deleted or replaced the document stored at `seq`. */
  | { op: 'delete'; uuid: string; shard: number; seq: number; at: number };

/** A write that deletes the document stored at `seq` (replaced or deleted by the operation at `at`). */
export type DeleteWrite = Extract<DocWrite, { op: 'delete' }>;

/** The key of a segment or a deletes-log entry (lmdb's ordered array keys). */
type DocKey = [uuid: string, shard: number, seq: number];

/**
 * A shard's last commit point (src/engine/commits/): its segments, stored under
 * `[uuid, shard, number]` in `segments`, with each one's deletes as a bitset, and the checkpoint: every
 * operation with a seq up to it is in them. Operations after it are replayed from `documents` and the
 * deletes log.
 */
export interface ShardCommit {
  /** The segment format the blobs are in (src/engine/segments/format.ts). */
  format: number;
  checkpoint: number;
  segments: { number: number; deleted?: Uint8Array }[];
}

/**
 * The key range holding every document of an index. `[uuid]` sorts before all `[uuid, …]` keys and
 * Infinity after every finite shard number (the end is exclusive); another uuid that merely starts
 * with this one sorts after, as the array delimiter byte is lower than any character.
 */
const indexRange = (uuid: string) => ({ start: [uuid], end: [uuid, Infinity] });

/** Deletes-log entries removed per transaction once a commit makes them obsolete. */
const PRUNE_BATCH = 512;

export class DocStore {
  /** Document keys: one reused by every lookup, put and remove. */
  readonly #keys = new DocKeys();

  /** Sources read for hits, kept for the pages asked for again (source-cache.ts); read sources are copied into it. */
  readonly #sources = new SourceCache();

  /** Settles at the next commit storage refuses (a new one then waits for the one after): see {@link durable}. */
  #nextFailure = signal();

  private constructor(
    /** The data directory (whose file system's free space tells a full disk from other I/O errors). */
    private readonly dir: string,
    private readonly root: RootDatabase,
    private readonly meta: Database<IndexMeta, string>,
    private readonly docs: Database<Buffer, Buffer>,
    private readonly taskRecords: Database<unknown, number>,
    private readonly segments: Database<Buffer, DocKey>,
    private readonly commits: Database<ShardCommit, [uuid: string, shard: number]>,
    /** The deletes log: `[uuid, shard, at]` → the seq of the document deleted or replaced at `at`. */
    private readonly deletes: Database<number, DocKey>,
  ) {}

  /** Opens (creating if need be) the store in `dir`. */
  static open(dir: string): DocStore {
    mkdirSync(dir, { recursive: true });
    // lmdb reads a path with an extension (`~/.deeppage`, `tmp.Xb3k`) as a file name; the data
    // directory is always a directory.
    // Pages are written with write(2), never through the map (lmdb's WRITEMAP, off by default): a
    // full disk is then an error from a commit, where through the map it would be a SIGBUS.
    const root = open({ path: dir, noSubdir: false, useWritemap: false });
    quietCommitFailures();
    const docs = root.openDB<Buffer, Buffer>({ name: 'documents', encoding: 'binary', keyEncoding: 'binary' });
    convertLegacyDocs(root, docs);
    convertArrayKeyedDocs(root, docs);
    return new DocStore(
      dir,
      root,
      root.openDB<IndexMeta, string>({ name: 'meta' }),
      docs,
      root.openDB<unknown, number>({ name: 'tasks' }),
      root.openDB<Buffer, DocKey>({ name: 'segments', encoding: 'binary' }),
      root.openDB<ShardCommit, [string, number]>({ name: 'commits' }),
      root.openDB<number, DocKey>({ name: 'deletes' }),
    );
  }

  /** Applies the writes (and index metadata updates) in order; resolves only when durable on disk. */
  async write(writes: DocWrite[], metas: IndexMeta[] = []): Promise<void> {
    // Queued in one event turn, the operations commit together in one lmdb transaction, in call order.
    const pending: Promise<boolean>[] = metas.map((meta) => this.meta.put(meta.name, meta));
    for (const w of writes) {
      const key = this.#keys.key(w.uuid, w.shard, w.seq);
      if (w.op === 'put') pending.push(this.docs.put(key, encodeDoc(w.doc)));
      else pending.push(this.docs.remove(key), this.deletes.put([w.uuid, w.shard, w.at], w.seq));
    }
    await this.durable(pending);
  }

  putIndex(meta: IndexMeta): Promise<void> {
    return this.write([], [meta]);
  }

  /** Removes the index's metadata and every document stored under its uuid; durable. */
  async deleteIndex(meta: IndexMeta): Promise<void> {
    const pending: Promise<unknown>[] = [];
    // A newer index may have taken the name since; its metadata must stay. The check runs inside the
    // write transaction, in order with writes queued before it (a new index's metadata among them).
    pending.push(
      this.root.transaction(() => {
        if (this.meta.get(meta.name)?.uuid === meta.uuid) this.meta.remove(meta.name);
      }),
    );
    for (const key of this.docs.getKeys(DocKeys.indexRange(meta.uuid))) pending.push(this.docs.remove(key));
    for (const db of [this.segments, this.deletes] as Database<unknown, DocKey>[]) {
      for (const key of db.getKeys(indexRange(meta.uuid))) pending.push(db.remove(key));
    }
    for (const key of this.commits.getKeys(indexRange(meta.uuid))) pending.push(this.commits.remove(key));
    await this.durable(pending);
    this.#sources.forget(meta.uuid);
  }

  /**
   * Makes a shard's commit point durable in one transaction: the new segments' bytes, the record,
   * and the removal of segments it no longer lists; then removes the deletes log up to its
   * checkpoint (the segments' deletes hold those now, and recovery reads the log after it).
   */
  async commitShard(uuid: string, shard: number, commit: ShardCommit, added: { number: number; bytes: Uint8Array }[], dropped: readonly number[]): Promise<void> {
    const done = this.root.transaction(() => {
      for (const { number, bytes } of added) this.segments.put([uuid, shard, number], Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      for (const number of dropped) this.segments.remove([uuid, shard, number]);
      this.commits.put([uuid, shard], commit);
    });
    await this.durable([done]);
    await this.#pruneDeletes(uuid, shard, commit.checkpoint);
  }

  /**
   * Removes the deletes log up to `checkpoint`, a few hundred entries per transaction: in the commit's
   * own transaction, the thousands a busy shard logs between flushes held the event loop 46 ms.
   * Entries left by a crash or a failed commit are harmless (recovery reads after the checkpoint)
   * and go with the next commit.
   */
  async #pruneDeletes(uuid: string, shard: number, checkpoint: number): Promise<void> {
    const range = { start: [uuid, shard, -1] as DocKey, end: [uuid, shard, checkpoint + 1] as DocKey, limit: PRUNE_BATCH };
    for (;;) {
      const keys = [...this.deletes.getKeys(range)];
      if (keys.length === 0) return;
      try {
        await this.root.transaction(() => {
          for (const key of keys) this.deletes.remove(key);
        });
      } catch {
        return;
      }
    }
  }

  /** The shard's last commit point, if it was ever flushed. */
  shardCommit(uuid: string, shard: number): ShardCommit | undefined {
    return this.commits.get([uuid, shard]);
  }

  /** A committed segment's bytes (a copy, safe to keep). */
  segmentBytes(uuid: string, shard: number, number: number): Buffer | undefined {
    return this.segments.getBinary([uuid, shard, number]);
  }

  /** The shard's stored documents with seqs after `after`, in seq order. */
  docsAfter(uuid: string, shard: number, after: number): Iterable<{ seq: number; doc: StoredDoc }> {
    return this.docs.getRange(DocKeys.shardRange(uuid, shard, after + 1)).map(({ key, value }) => ({ seq: DocKeys.seqOf(key), doc: decodeDoc(value) }));
  }

  /** The deletes log of the shard after `after`, in order: at `at`, the document stored at `seq` went. */
  deletesAfter(uuid: string, shard: number, after: number): Iterable<{ at: number; seq: number }> {
    return this.deletes.getRange({ start: [uuid, shard, after + 1], end: [uuid, shard, Infinity] }).map(({ key, value }) => ({ at: key[2], seq: value }));
  }

  indices(): IndexMeta[] {
    return Array.from(this.meta.getRange(), ({ value }) => value);
  }

  getDoc(uuid: string, shard: number, seq: number): StoredDoc | undefined {
    const bytes = this.docs.getBinaryFast(this.#keys.key(uuid, shard, seq));
    return bytes && decodeDoc(bytes);
  }

  /**
   * The `_source` of the documents stored at (`shards[i]`, `seqs[i]`) of an index, in that order, as
   * their UTF-8 bytes (never decoded or parsed); undefined where storage has none. Each is read with
   * a lookup of its own (with byte keys a third of the cost of stepping through a range: a cursor's
   * step decodes a key and copies a value) unless the source cache keeps it, and copied out of lmdb's
   * shared read buffer, valid only until the next read, into the cache.
   */
  sourcesOf(uuid: string, shards: readonly number[], seqs: readonly number[]): (Uint8Array | undefined)[] {
    const n = seqs.length;
    const out: (Uint8Array | undefined)[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const kept = this.#sources.get(uuid, shards[i], seqs[i]);
      if (kept !== undefined) {
        out[i] = kept;
        continue;
      }
      const bytes = this.docs.getBinaryFast(this.#keys.key(uuid, shards[i], seqs[i]));
      // Its `length` is the value's, whatever the read buffer's capacity.
      if (bytes) out[i] = this.#sources.keep(uuid, shards[i], seqs[i], bytes, sourceStart(bytes));
    }
    return out;
  }

  /** Every stored document of the index, in (shard, seq) order. */
  scan(uuid: string): Iterable<{ shard: number; seq: number; doc: StoredDoc }> {
    return this.docs.getRange(DocKeys.indexRange(uuid)).map(({ key, value }) => ({ shard: DocKeys.shardOf(key), seq: DocKeys.seqOf(key), doc: decodeDoc(value) }));
  }

  /** Documents stored for the index. */
  count(uuid: string): number {
    return this.docs.getCount(DocKeys.indexRange(uuid));
  }

  /** Documents stored for the shard with seqs after `after` (what a start replays). */
  countAfter(uuid: string, shard: number, after: number): number {
    return this.docs.getCount(DocKeys.shardRange(uuid, shard, after + 1));
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
   *
   * lmdb-js never settles the flush of a commit that failed, and `flushed` is the flush of the latest
   * commit queued, perhaps a later one than this: if a commit fails meanwhile, this one (committed)
   * is synced explicitly instead.
   */
  private async durable(pending: Promise<unknown>[]): Promise<void> {
    try {
      await Promise.all(pending);
    } catch (error) {
      throw await this.#refused(error);
    }
    const failed = this.#nextFailure.settled;
    if (await Promise.race([this.root.flushed.then(() => false), failed.then(() => true)])) await this.#sync();
  }

  #refused(error: unknown): Promise<StorageError> {
    const failed = this.#nextFailure;
    this.#nextFailure = signal();
    failed.settle();
    // A new, empty commit, so that `flushed` and close() wait for it, not for the failed one's flush.
    try {
      this.root.transaction(() => {}).catch(() => {});
    } catch {
      // Closed meanwhile: nothing waits any more.
    }
    return storageError(error, this.dir);
  }

  /** fsync of the data file (lmdb-js's root `sync`, not in its typings). */
  #sync(): Promise<void> {
    const root = this.root as RootDatabase & { sync(done: (error?: Error) => void): void };
    return new Promise((resolve, reject) => root.sync((error) => (error ? reject(new StorageError(error.message, false)) : resolve())));
  }
}

function signal(): { settled: Promise<void>; settle: () => void } {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return { settled, settle };
}

/**
 * A stored document's bytes: a format byte (1), the version (f64), the id (u32 length, UTF-8), the
 * routing (u32 length + 1, 0 for none, UTF-8), then the `_source` JSON (UTF-8) to the end.
 */
export function encodeDoc(doc: DocToStore): Buffer {
  const { source } = doc;
  const idBytes = Buffer.byteLength(doc.id);
  const routingBytes = doc.routing === undefined ? 0 : Buffer.byteLength(doc.routing);
  const sourceBytes = typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength;
  const out = Buffer.allocUnsafe(1 + 8 + 4 + idBytes + 4 + routingBytes + sourceBytes);
  let at = out.writeUInt8(FORMAT, 0);
  at = out.writeDoubleLE(doc.version, at);
  at = out.writeUInt32LE(idBytes, at);
  at += out.write(doc.id, at, 'utf8');
  at = out.writeUInt32LE(doc.routing === undefined ? 0 : routingBytes + 1, at);
  if (doc.routing !== undefined) at += out.write(doc.routing, at, 'utf8');
  if (typeof source === 'string') out.write(source, at, 'utf8');
  else out.set(source, at);
  return out;
}

/** Where a stored document's `_source` starts in its bytes. */
function sourceStart(bytes: Buffer): number {
  if (bytes[0] !== FORMAT) throw new Error(`stored document in an unknown format [${bytes[0]}]`);
  const afterId = 13 + bytes.readUInt32LE(9);
  const routingField = bytes.readUInt32LE(afterId);
  return afterId + 4 + (routingField === 0 ? 0 : routingField - 1);
}

export function decodeDoc(bytes: Buffer): StoredDoc {
  if (bytes[0] !== FORMAT) throw new Error(`stored document in an unknown format [${bytes[0]}]`);
  const version = bytes.readDoubleLE(1);
  const idBytes = bytes.readUInt32LE(9);
  const id = bytes.toString('utf8', 13, 13 + idBytes);
  let at = 13 + idBytes;
  const routingField = bytes.readUInt32LE(at);
  at += 4;
  const routing = routingField === 0 ? undefined : bytes.toString('utf8', at, (at += routingField - 1));
  const source = bytes.toString('utf8', at);
  return routing === undefined ? { id, version, source } : { id, version, source, routing };
}

const FORMAT = 1;

/**
 * Data directories written before documents were stored as bytes keep them as MessagePack objects in
 * `docs`: converted to the binary layout in one transaction, then removed, the first time they open.
 */
function convertLegacyDocs(root: RootDatabase, docs: Database<Buffer, Buffer>): void {
  const legacy = root.openDB<{ id: string; version: number; source: unknown; routing?: string }, DocKey>({ name: 'docs' });
  if (legacy.getCount() === 0) return;
  root.transactionSync(() => {
    for (const { key, value } of legacy.getRange()) {
      const source = typeof value.source === 'string' ? value.source : JSON.stringify(value.source);
      docs.putSync(DocKeys.of(...key), encodeDoc({ ...value, source }));
    }
    legacy.clearSync();
  });
}

/**
 * Data directories written before documents had byte keys keep them under lmdb's array keys in
 * `sources`: moved to `documents` up to {@link MOVE_BATCH} documents or {@link MOVE_BYTES} at a
 * time, each batch put and removed in one transaction, so a move cut short goes on at the next
 * start. One way: a build from before byte keys finds no documents in a directory moved.
 */
function convertArrayKeyedDocs(root: RootDatabase, docs: Database<Buffer, Buffer>): void {
  const old = root.openDB<Buffer, DocKey>({ name: 'sources', encoding: 'binary' });
  for (;;) {
    const batch: { key: DocKey; value: Buffer }[] = [];
    let bytes = 0;
    for (const { key, value } of old.getRange({ limit: MOVE_BATCH })) {
      batch.push({ key, value });
      if ((bytes += value.length) >= MOVE_BYTES) break;
    }
    if (batch.length === 0) return;
    root.transactionSync(() => {
      for (const { key, value } of batch) {
        docs.putSync(DocKeys.of(...key), value);
        old.removeSync(key);
      }
    });
  }
}

const MOVE_BATCH = 10_000;
const MOVE_BYTES = 64 << 20;

/**
 * A document's key as bytes: the index's uuid (UTF-8) and a zero byte, the shard (u32) and the seq
 * (u64), big-endian, so that keys sort by uuid, then shard, then seq, and the zero byte keeps a uuid
 * that starts with another apart from it. lmdb compares them as they are, with nothing to encode.
 */
export class DocKeys {
  /**
   * The key lookups, puts and removes use, rewritten in place: lmdb-js copies a key into its own
   * buffer during each call (a put keeps its value's bytes until the commit, never its key).
   */
  #read: { uuid: string; key: Buffer; at: number } = { uuid: '', key: Buffer.alloc(0), at: 0 };

  /** The key, valid until the next call. */
  key(uuid: string, shard: number, seq: number): Buffer {
    let read = this.#read;
    if (read.uuid !== uuid) {
      const key = DocKeys.of(uuid, 0, 0);
      read = this.#read = { uuid, key, at: key.length - NUMBERS };
    }
    writeNumbers(read.key, read.at, shard, seq);
    return read.key;
  }

  /** A new key of its own (range bounds, the keys a move writes). */
  static of(uuid: string, shard: number, seq: number): Buffer {
    const prefix = Buffer.byteLength(uuid);
    const key = Buffer.allocUnsafe(prefix + 1 + NUMBERS);
    key.write(uuid, 0, 'utf8');
    key[prefix] = 0;
    writeNumbers(key, prefix + 1, shard, seq);
    return key;
  }

  static shardOf(key: Buffer): number {
    return key.readUInt32BE(key.length - NUMBERS);
  }

  static seqOf(key: Buffer): number {
    return key.readUInt32BE(key.length - 8) * 2 ** 32 + key.readUInt32BE(key.length - 4);
  }

  /** Every key of the index (the end is exclusive: the byte after the uuid's zero). */
  static indexRange(uuid: string): { start: Buffer; end: Buffer } {
    const start = Buffer.from(`${uuid}\0`, 'utf8');
    const end = Buffer.from(start);
    end[end.length - 1] = 1;
    return { start, end };
  }

  /** The shard's keys with seqs from `from` on. */
  static shardRange(uuid: string, shard: number, from: number): { start: Buffer; end: Buffer } {
    return { start: DocKeys.of(uuid, shard, from), end: DocKeys.of(uuid, shard + 1, 0) };
  }
}

/** Bytes of a key after the uuid and its zero: the shard (u32), then the seq (u64). */
const NUMBERS = 12;

/** Big-endian, byte by byte (Buffer's writeUInt32BE checks its arguments first, on every lookup's key). */
function writeNumbers(key: Buffer, at: number, shard: number, seq: number): void {
  writeU32(key, at, shard);
  writeU32(key, at + 4, Math.floor(seq / 2 ** 32));
  writeU32(key, at + 8, seq >>> 0);
}

function writeU32(key: Buffer, at: number, value: number): void {
  key[at] = value >>> 24;
  key[at + 1] = value >>> 16;
  key[at + 2] = value >>> 8;
  key[at + 3] = value;
}
