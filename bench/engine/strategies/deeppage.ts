/**
 * deeppage's engine in process: the documents go through `Engine.write` into a real index (LMDB
 * storage in a temporary directory, typed-array columns, segments) in batches, each followed by a
 * refresh as a user's bulk load with the default refresh interval would be (so a shard has many
 * segments, up to the eight it keeps), and each page is one `Engine.search`, ids only
 * (`_source: false`) so that every strategy returns the same thing. `deeppage` pages by sorted runs
 * (the default), `deeppage-top-k` by Elasticsearch's algorithm on the same engine (`paging: top_k`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type WriteOp } from '../../../src/engine/engine.ts';
import { EsError } from '../../../src/engine/errors.ts';
import { searchRequest, type Paging, type SearchRequest } from '../../../src/engine/search/request.ts';
import type { Hit } from '../../../src/engine/search/search.ts';
import { DocStore } from '../../../src/store/doc-store.ts';
import type { Corpus } from '../../lib/corpus.ts';
import type { Strategy } from '../strategy.ts';

const BATCH = 10_000;

export const deeppage = engineStrategy('deeppage', 'sorted_runs', 'Engine.search in process, paging by sorted runs: rank selection over every segment\'s run, then a merge of the page');
export const deeppageTopK = engineStrategy('deeppage-top-k', 'top_k', 'Engine.search in process with paging=top_k: Elasticsearch\'s algorithm, every segment\'s top from+size by wasm top-k, merged at the coordinator');

function engineStrategy(name: string, paging: Paging, description: string): Strategy {
  return {
  name,
  description,
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shards }, ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'deeppage.bench-'));
    const engine = Engine.open(DocStore.open(dir));
    try {
      const index = 'bench';
      const n = corpus.ids.length;
      await engine.createIndex(index, {
        settings: { number_of_shards: shards, max_result_window: 2 ** 31 - 1, refresh_interval: '-1' },
        mappings: corpus.mappings,
      });
      const bar = ctx.progress(`${name}: indexing ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, n);
      for (let at = 0; at < n; at += BATCH) {
        const ops: WriteOp[] = [];
        for (let i = at; i < Math.min(at + BATCH, n); i++) ops.push({ action: 'index', index, id: corpus.ids[i], source: corpus.source(i) });
        const failed = (await engine.write(ops)).find((item) => item instanceof EsError);
        if (failed) throw new Error(`deeppage: a bulk item failed while loading ${corpus.name}: ${failed!.message}`);
        engine.refresh(index);
        bar.update(Math.min(at + BATCH, n));
      }
      bar.stop();
      const position = positions(corpus);
      const sort: SearchRequest['sort'] = [{ kind: 'field', field: corpus.field, order: 'desc', missing: '_last' }];
      // search_after over a point in time: the implicit `_shard_doc` tiebreaker makes every position unique.
      const pit = { id: engine.openPointInTime(index, 24 * 3_600_000).id };
      const afterSort: SearchRequest['sort'] = [...sort, { kind: 'shard_doc', order: 'asc' }];
      return {
        page: (from, size) => engine.search(index, searchRequest({ from, size, sort, source: false, paging })).hits.hits,
        pageAfter: (from, size) => {
          const after = from === 0 ? undefined : engine.search(undefined, searchRequest({ from: from - 1, size: 1, sort: afterSort, source: false, pit })).hits.hits[0]?.sort;
          return () => engine.search(undefined, searchRequest({ size, sort: afterSort, source: false, paging, pit, ...(after && { after }) })).hits.hits;
        },
        docs: (hits) => (hits as Hit[]).map((hit) => position.get(hit._id)!),
        ...(paging === 'sorted_runs' && {
          forget: () => void engine.clearCaches(index),
          settle: () => engine.runs.settled(),
          footprint: () => {
            const stats = engine.runsHeld([engine.resolveOne(index)]);
            return { segments: engine.resolveOne(index).segments().length, runs: stats.count, run_bytes: stats.memory_size_in_bytes, run_bytes_per_doc: stats.memory_size_in_bytes / n };
          },
        }),
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
}

const cache = new WeakMap<Corpus, Map<string, number>>();

/** `_id` → corpus position, built once per corpus. */
export function positions(corpus: Corpus): Map<string, number> {
  let map = cache.get(corpus);
  if (!map) cache.set(corpus, (map = new Map(corpus.ids.map((id, i) => [id, i]))));
  return map;
}
