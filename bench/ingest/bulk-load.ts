/**
 * Loads a corpus into an index over `_bulk`, `inFlight` batches at a time (in order of sending),
 * every answer checked (`errors: false`, one item per document). The next batch's NDJSON is built
 * while the others are in flight, so the wall clock is the server's rather than the client's.
 */
import { setImmediate } from 'node:timers/promises';
import type { Progress } from '../../src/progress.ts';
import { bulkBody, type Corpus } from '../lib/corpus.ts';
import { esBulk, esRefresh } from '../lib/es-client.ts';

export interface BulkLoad {
  /** From sending the first batch to the final `_refresh` answered, in ms. */
  ms: number;
  /** Each batch: its documents and its round trip in ms, from sending to the checked answer. */
  batches: { docs: number; ms: number }[];
  /** The NDJSON sent, in bytes. */
  bytes: number;
}

export async function bulkLoad(url: string, corpus: Corpus, index: string, batch: number, progress?: Progress, inFlight = 1): Promise<BulkLoad> {
  const n = corpus.ids.length;
  const batches: BulkLoad['batches'] = [];
  const sent: { docs: number; answer: Promise<{ ms: number }> }[] = [];
  let bytes = 0;
  let done = 0;
  const settleOldest = async () => {
    const oldest = sent.shift()!;
    batches.push({ docs: oldest.docs, ms: (await oldest.answer).ms });
    done += oldest.docs;
    progress?.update(done);
  };
  const started = performance.now();
  let next = bulkBody(corpus, index, 0, Math.min(batch, n));
  for (let at = 0; at < n; at += batch) {
    const to = Math.min(n, at + batch);
    const body = next;
    bytes += Buffer.byteLength(body);
    const answer = esBulk(url, '/_bulk', body, to - at);
    answer.catch(() => undefined); // awaited in settleOldest; this keeps an early failure from counting as unhandled
    sent.push({ docs: to - at, answer });
    await setImmediate(); // lets fetch put the request on the wire first
    next = to < n ? bulkBody(corpus, index, to, Math.min(n, to + batch)) : '';
    if (sent.length >= inFlight) await settleOldest();
  }
  while (sent.length > 0) await settleOldest();
  await esRefresh(url, index);
  return { ms: performance.now() - started, batches, bytes };
}
