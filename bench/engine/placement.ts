/**
 * A corpus placed on shards the way deeppage and Elasticsearch place it (murmur3 of `_id`), and
 * the order every strategy must reproduce: sort key descending, then shard, then index order
 * within the shard. That is Lucene's `TopDocs.merge` tie-break, and deeppage's.
 */
import { shardFor } from '../../src/engine/routing.ts';
import type { Corpus } from '../lib/corpus.ts';

export interface Placement {
  corpus: Corpus;
  shards: number;
  /** `shardOf[i]`: the shard holding document i. Documents are written in corpus order. */
  shardOf: Uint16Array;
}

export function place(corpus: Corpus, shards: number): Placement {
  const shardOf = new Uint16Array(corpus.ids.length);
  for (let i = 0; i < shardOf.length; i++) shardOf[i] = shardFor(corpus.ids[i], shards);
  return { corpus, shards, shardOf };
}

/**
 * Every document in page order: the plain reference the strategies are checked against. Within a
 * shard, index order is corpus order, so the last tie-break is the corpus position.
 */
export function referenceOrder({ corpus, shardOf }: Placement): Uint32Array {
  const keys = corpus.keys;
  const order = Uint32Array.from({ length: keys.length }, (_, i) => i);
  return order.sort((a, b) => keys[b] - keys[a] || shardOf[a] - shardOf[b] || a - b);
}
