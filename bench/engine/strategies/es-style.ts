/**
 * Elasticsearch's algorithm written plainly in JavaScript: every shard collects its own top
 * `from + size` with a bounded heap (Lucene's TopFieldCollector), sorted best first, and the
 * coordinator merges the shards' lists with a heap of shard cursors (Lucene's `TopDocs.merge`),
 * walking past the first `from` to return the next `size`. The cost grows with `from` on every
 * shard and at the coordinator: this is what deep paging costs in Elasticsearch.
 */
import { heapMerge, heapTopK } from '../../kernels/peers.ts';
import type { Strategy } from '../strategy.ts';

export const esStyle: Strategy = {
  name: 'es-style-js',
  description: 'per shard a bounded heap of the top from+size, then a heap merge of the shards skipping from (plain JS, typed arrays)',
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shards, shardOf }) {
    // Each shard's documents (corpus positions) and keys, in index order.
    const docs: number[][] = Array.from({ length: shards }, () => []);
    for (let i = 0; i < shardOf.length; i++) docs[shardOf[i]].push(i);
    const shard = docs.map((list) => {
      const positions = Uint32Array.from(list);
      return { positions, keys: Float64Array.from(positions, (i) => corpus.keys[i]) };
    });
    return {
      page(from, size) {
        const want = from + size;
        // Query phase: each shard's top `want` (shard-local ordinals, best first) and their keys.
        const tops = shard.map(({ keys }) => heapTopK(keys, keys.length, want));
        const starts = new Uint32Array(shards + 1);
        for (let s = 0; s < shards; s++) starts[s + 1] = starts[s] + tops[s].length;
        const runKeys = new Float64Array(starts[shards]);
        for (let s = 0; s < shards; s++) {
          const { keys } = shard[s];
          const top = tops[s];
          for (let j = 0; j < top.length; j++) runKeys[starts[s] + j] = keys[top[j]];
        }
        // Coordinator: merge all `want`, keep the last `size`.
        const merged = heapMerge(runKeys, starts, want);
        const page = new Uint32Array(Math.max(0, merged.run.length - from));
        for (let i = 0; i < page.length; i++) {
          const s = merged.run[from + i];
          page[i] = shard[s].positions[tops[s][merged.pos[from + i]]];
        }
        return page;
      },
      docs: (page) => page as Uint32Array,
      close: async () => {},
    };
  },
};
