/**
 * DuckDB, the embedded analytical SQL engine, through its official Node client @duckdb/node-api
 * (native DuckDB, whose binary ships in a per-platform npm package, @duckdb/node-bindings-<os>-<cpu>:
 * no install script, no download). The corpus is one in-memory table
 * `docs (pos INTEGER, key DOUBLE, shard USMALLINT)` filled through an appender, and each page is one
 * prepared `ORDER BY key DESC, shard, pos LIMIT size OFFSET from`: DuckDB has no ordered index to
 * walk, so every page scans the column and keeps the top `from + size` (its TOP_N operator), on
 * DuckDB's default thread count (the machine's cores). Its API is asynchronous, so pages are timed
 * as awaited promises.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Strategy } from '../strategy.ts';

const PAGE = 'SELECT pos FROM docs ORDER BY key DESC, shard, pos LIMIT $1 OFFSET $2';

export const duckdbOffset: Strategy = {
  name: 'duckdb-offset',
  description: 'DuckDB (@duckdb/node-api, native, in-memory, in process, default threads): prepared ORDER BY key DESC, shard, pos LIMIT size OFFSET from (a top-N over a scan)',
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shards, shardOf }, ctx) {
    const instance = await DuckDBInstance.create(':memory:');
    let connection: DuckDBConnection | undefined;
    let statement: DuckDBPreparedStatement | undefined;
    const close = () => {
      statement?.destroySync();
      connection?.closeSync();
      instance.closeSync();
    };
    try {
      connection = await instance.connect();
      await connection.run('CREATE TABLE docs (pos INTEGER NOT NULL, key DOUBLE NOT NULL, shard USMALLINT NOT NULL)');
      const n = corpus.keys.length;
      const bar = ctx.progress(`duckdb-offset: loading ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, n);
      const appender = await connection.createAppender('docs');
      for (let i = 0; i < n; i++) {
        appender.appendInteger(i);
        appender.appendDouble(corpus.keys[i]);
        appender.appendUSmallInt(shardOf[i]);
        appender.endRow();
        if (i % 100_000 === 0) bar.update(i);
      }
      appender.closeSync();
      bar.update(n);
      bar.stop();
      const page = (statement = await connection.prepare(PAGE));
      return {
        async page(from, size) {
          page.bindInteger(1, size);
          page.bindInteger(2, from);
          // No row, no column: a page past the end is empty.
          return (await page.runAndReadAll()).getColumns()[0] ?? [];
        },
        docs: (answer) => answer as number[],
        close: async () => close(),
      };
    } catch (error) {
      close();
      throw error;
    }
  },
};
