/**
 * Start-up: an index back in memory from storage, the way Lucene opens its last commit and replays
 * the translog. Each shard loads the segments of its last commit point as they are, then replays
 * what came after the checkpoint in seq order: stored documents (`documents`) and the deletes log.
 * A shard never flushed, or one whose commit cannot be read (a segment format this node does not
 * know, a bad checksum), is rebuilt from all its stored documents instead, with a log line.
 */
import type { DocStore, IndexMeta } from '../../store/doc-store.ts';
import type { SearchIndex } from '../search-index.ts';
import { SegmentFormatError } from '../segments/format.ts';
import { readCommitPoint } from './commit-record.ts';

/** Reports progress: operations replayed so far of an index's total (estimated from stored documents). */
export type RecoveryProgress = (index: string, done: number, total: number) => void;

export function recoverIndex(store: DocStore, meta: IndexMeta, index: SearchIndex, progress?: RecoveryProgress): void {
  const afters = index.shards.map((shard) => loadCommit(store, index, shard.number));
  // Only what is replayed is counted (counting every stored document is a pass over all their keys).
  const total = progress ? afters.reduce((n, after, shard) => n + store.countAfter(meta.uuid, shard, after), 0) : 0;
  let done = 0;
  progress?.(meta.name, 0, total);
  for (const shard of index.shards) {
    const after = afters[shard.number];
    const docs = store.docsAfter(meta.uuid, shard.number, after)[Symbol.iterator]();
    const deletes = store.deletesAfter(meta.uuid, shard.number, after)[Symbol.iterator]();
    let doc = docs.next(), del = deletes.next();
    while (!doc.done || !del.done) {
      // A replace logs its delete at the new document's seq: the delete goes first.
      if (!del.done && (doc.done || del.value.at <= doc.value.seq)) {
        shard.writes.removeSeq(del.value.seq, del.value.at);
        del = deletes.next();
        continue;
      }
      const { seq, doc: stored } = doc.value;
      const problem = index.writes.restore(shard.number, seq, stored);
      if (problem) console.error(`deeppage: [${meta.name}][${stored.id}] restored without sort values: ${problem.reason}`);
      if (++done % 10_000 === 0) progress?.(meta.name, done, total);
      doc = docs.next();
    }
  }
  progress?.(meta.name, total, total);
  index.restored();
}

/** Loads the shard's last commit point; the checkpoint replay starts after (-1: replay everything). */
function loadCommit(store: DocStore, index: SearchIndex, n: number): number {
  const record = store.shardCommit(index.uuid, n);
  if (!record) return -1;
  const shard = index.shards[n];
  try {
    const point = readCommitPoint(record, (number) => store.segmentBytes(index.uuid, n, number));
    shard.load(point);
    return point.checkpoint;
  } catch (error) {
    if (!(error instanceof SegmentFormatError)) throw error;
    console.error(`deeppage: [${index.name}][${n}] cannot load its segments (${error.message}); rebuilding the shard from its stored documents`);
    // The unreadable segments go at the shard's next commit.
    shard.replacesStored(record.segments.map((s) => s.number));
    return -1;
  }
}
