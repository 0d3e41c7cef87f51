/**
 * deeppage's engine in process: the corpus loaded as bench/engine/engine-index.ts loads it (batches
 * through `Engine.write`, a refresh after each), and each page is one `Engine.search`, ids only
 * (`_source: false`) so that every strategy returns the same thing. `deeppage` pages by sorted runs
 * (the default), `deeppage-top-k` by Elasticsearch's algorithm on the same engine (`paging: top_k`).
 */
import { searchRequest, type Paging, type SearchRequest } from '../../../src/engine/search/request.ts';
import type { Hit } from '../../../src/engine/search/search.ts';
import type { Corpus } from '../../lib/corpus.ts';
import { openEngineIndex } from '../engine-index.ts';
import type { Strategy } from '../strategy.ts';

export const deeppage = engineStrategy('deeppage', 'sorted_runs', 'Engine.search in process, paging by sorted runs: rank selection over every segment\'s run, then a merge of the page');
export const deeppageTopK = engineStrategy('deeppage-top-k', 'top_k', 'Engine.search in process with paging=top_k: Elasticsearch\'s algorithm, every segment\'s top from+size by wasm top-k, merged at the coordinator');

function engineStrategy(name: string, paging: Paging, description: string): Strategy {
  return {
  name,
  description,
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shards }, ctx) {
    const { engine, index, close } = await openEngineIndex(corpus, shards, ctx, name);
    try {
      const n = corpus.ids.length;
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
        docs: (hits) => (hits as Hit[]).map((hit) => position.get(hit._id!)!),
        ...(paging === 'sorted_runs' && {
          forget: () => void engine.clearCaches(index),
          settle: () => engine.runs.settled(),
          footprint: () => {
            const stats = engine.runsHeld([engine.resolveOne(index)]);
            return { segments: engine.resolveOne(index).segments().length, runs: stats.count, run_bytes: stats.memory_size_in_bytes, run_bytes_per_doc: stats.memory_size_in_bytes / n };
          },
        }),
        close,
      };
    } catch (error) {
      await close();
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
