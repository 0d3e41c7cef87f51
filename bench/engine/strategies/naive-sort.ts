/**
 * What a page costs without any of the machinery: one array of every matching document, sorted
 * whole on every request with a comparator, then sliced. Cost: O(n log n) whatever the page.
 */
import type { Strategy } from '../strategy.ts';

interface Doc {
  position: number;
  key: number;
  shard: number;
}

export const naiveSort: Strategy = {
  name: 'naive-sort',
  description: 'copy every document, Array.prototype.sort with a comparator, slice(from, from + size)',
  ties: 'exact',
  accepts: () => true,
  async open({ corpus, shardOf }) {
    const all: Doc[] = Array.from(corpus.keys, (key, position) => ({ position, key, shard: shardOf[position] }));
    return {
      page: (from, size) =>
        all
          .slice()
          .sort((a, b) => b.key - a.key || a.shard - b.shard || a.position - b.position)
          .slice(from, from + size),
      docs: (page) => (page as Doc[]).map((d) => d.position),
      close: async () => {},
    };
  },
};
