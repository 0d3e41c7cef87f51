/**
 * The catalog loaded into both peers, each as its engine is best served:
 *
 * - Lucene: `PUT /{index}` with the shard count, the documents as NDJSON in batches of BATCH, each
 *   line naming the shard deeppage routes the `_id` to (bench/engine/placement.ts: Elasticsearch's
 *   murmur3 of `_id`), then every shard force-merged to one segment;
 * - deeppage: `PUT /{index}` with `refresh_interval: -1` and a result window over every document,
 *   the documents over `_bulk` in batches of BATCH, a `_refresh` after each (as a bulk load with the
 *   default refresh interval leaves an index: many segments, merged in the background), then
 *   `POST /{index}/_forcemerge` with no `max_num_segments`, which merges only what deeppage's merge
 *   policy wants and answers once those merges are done.
 *
 * Documents are sent in corpus order; both peers keep that order within a shard.
 */
import { bulkBody, type CatalogCorpus } from '../lib/corpus.ts';
import { esBulk, esCount, esOk, esRefresh } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Placement } from '../engine/placement.ts';

const BATCH = 10_000;

export interface LoadedIndex {
  /** Segments per shard after loading. */
  segments: number[];
  ms: number;
  how: string;
}

export async function loadLucene(url: string, index: string, placement: Placement): Promise<LoadedIndex> {
  const corpus = placement.corpus as CatalogCorpus;
  const n = corpus.ids.length;
  const started = performance.now();
  await esOk(url, 'PUT', `/${index}`, JSON.stringify({ shards: placement.shards }));
  for (let at = 0; at < n; at += BATCH) {
    let body = '';
    for (let i = at; i < Math.min(n, at + BATCH); i++) body += `${JSON.stringify({ _id: corpus.ids[i], _shard: placement.shardOf[i], ...corpus.source(i) })}\n`;
    const { body: added } = await esOk<{ added: number }>(url, 'POST', `/${index}/_docs`, body, { contentType: 'application/x-ndjson' });
    if (added.added !== Math.min(n, at + BATCH) - at) throw new WrongAnswer(`lucene: POST /${index}/_docs added ${added.added} documents, expected ${Math.min(n, at + BATCH) - at}`);
  }
  const { body } = await esOk<{ segments: number[] }>(url, 'POST', `/${index}/_forcemerge`);
  return {
    segments: body.segments,
    ms: performance.now() - started,
    how: `NDJSON in batches of ${BATCH} to POST /${index}/_docs, each document on the shard deeppage routes its _id to, one writer thread per shard (LogDocMergePolicy, so index order is corpus order), then forceMerge(1) per shard`,
  };
}

export async function loadDeeppage(url: string, index: string, corpus: CatalogCorpus, shards: number): Promise<LoadedIndex> {
  const n = corpus.ids.length;
  const started = performance.now();
  await esOk(url, 'PUT', `/${index}`, JSON.stringify({ settings: { number_of_shards: shards, max_result_window: n, refresh_interval: '-1' }, mappings: corpus.mappings }));
  for (let at = 0; at < n; at += BATCH) {
    const to = Math.min(n, at + BATCH);
    await esBulk(url, '/_bulk', bulkBody(corpus, index, at, to), to - at);
    await esRefresh(url, index);
  }
  await esOk(url, 'POST', `/${index}/_forcemerge`);
  const ms = performance.now() - started;
  const count = await esCount(url, index);
  if (count !== n) throw new WrongAnswer(`deeppage: ${index} holds ${count} documents, expected ${n}`);
  const { body } = await esOk<{ indices?: Record<string, { shards?: Record<string, { segments?: { count?: number } }[]> }> }>(url, 'GET', `/${index}/_stats?level=shards`);
  const perShard = body.indices?.[index]?.shards ?? {};
  const segments = Array.from({ length: shards }, (_, s) => perShard[String(s)]?.[0]?.segments?.count ?? NaN);
  return {
    segments,
    ms,
    how: `_bulk in batches of ${BATCH}, POST /${index}/_refresh after each (refresh_interval -1), then POST /${index}/_forcemerge with no max_num_segments (waits for the merges deeppage's policy wants: at most 8 segments a shard)`,
  };
}
