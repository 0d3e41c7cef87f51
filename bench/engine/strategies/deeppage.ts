/**
 * deeppage's engine in process: the documents go through `Engine.write` into a real index (LMDB
 * storage in a temporary directory, typed-array columns, segments), and each page is one
 * `Engine.search` (wasm top-k per segment, wasm merge at the coordinator), ids only (`_source: false`)
 * so that every strategy returns the same thing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type WriteOp } from '../../../src/engine/engine.ts';
import { EsError } from '../../../src/engine/errors.ts';
import { searchRequest, type SearchRequest } from '../../../src/engine/search/request.ts';
import type { Hit } from '../../../src/engine/search/search.ts';
import { DocStore } from '../../../src/store/doc-store.ts';
import type { Corpus } from '../../lib/corpus.ts';
import type { Strategy } from '../strategy.ts';

const BATCH = 10_000;

export const deeppage: Strategy = {
  name: 'deeppage',
  description: 'Engine.search in process: wasm top-k per segment, wasm k-way merge of the shards',
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shards }, ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'deeppage-bench-'));
    const engine = Engine.open(DocStore.open(dir));
    try {
      const index = 'bench';
      const n = corpus.ids.length;
      await engine.createIndex(index, {
        settings: { number_of_shards: shards, max_result_window: 2 ** 31 - 1, refresh_interval: '-1' },
        mappings: corpus.mappings,
      });
      const bar = ctx.progress(`deeppage: indexing ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, n);
      for (let at = 0; at < n; at += BATCH) {
        const ops: WriteOp[] = [];
        for (let i = at; i < Math.min(at + BATCH, n); i++) ops.push({ action: 'index', index, id: corpus.ids[i], source: corpus.source(i) });
        const failed = (await engine.write(ops)).find((item) => item instanceof EsError);
        if (failed) throw new Error(`deeppage: a bulk item failed while loading ${corpus.name}: ${failed!.message}`);
        bar.update(Math.min(at + BATCH, n));
      }
      bar.stop();
      engine.refresh(index);
      const position = positions(corpus);
      const sort: SearchRequest['sort'] = [{ kind: 'field', field: corpus.field, order: 'desc', missing: '_last' }];
      return {
        page: (from, size) => engine.search(index, searchRequest({ from, size, sort, source: false })).hits.hits,
        docs: (hits) => (hits as Hit[]).map((hit) => position.get(hit._id)!),
        forget: () => void engine.clearCaches(index),
        close: async () => {
          await engine.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  },
};

const cache = new WeakMap<Corpus, Map<string, number>>();

/** `_id` → corpus position, built once per corpus. */
export function positions(corpus: Corpus): Map<string, number> {
  let map = cache.get(corpus);
  if (!map) cache.set(corpus, (map = new Map(corpus.ids.map((id, i) => [id, i]))));
  return map;
}
