/**
 * The load check's bulk loader: beside the mix's connections, one client sends `_bulk` requests of
 * {@link DEFAULT_BULK_DOCS} cities (or as many as asked) back to back (one in flight) into an index of their own, going round the
 * cities again and again. Each refresh then seals thousands of documents per shard, every round
 * replaces the last (deletes in large segments), and merges of large segments follow: the long work
 * a refresh and a merge do, under the mix's searches.
 */
import { quantile } from '../../bench/lib/format.ts';
import { bulkBody, cities } from '../../bench/lib/corpus.ts';
import { esCount, esCreateIndex, esOk } from '../../bench/lib/es-client.ts';

export const INGEST_INDEX = 'ingest';
export const DEFAULT_BULK_DOCS = 1000;
const SHARDS = 5;

export interface IngestFigures {
  bulks: number;
  docs: number;
  docs_per_second: number;
  /** Bulk requests answered with anything but 200 and `errors: false`, and the first reason. */
  failed: number;
  first_failure?: string;
  latency: { p50_ms: number; p99_ms: number; max_ms: number };
}

export interface IngestStream {
  /** The figures since the last call (or the start). */
  figures(): IngestFigures;
  /** Stops after the bulk in flight. */
  stop(): Promise<void>;
  /** Distinct cities written so far (acknowledged): what the index holds once every round is in. */
  readonly written: number;
}

/** Creates the index and starts sending `bulkDocs` cities a request. */
export async function startIngest(url: string, bulkDocs = DEFAULT_BULK_DOCS): Promise<IngestStream> {
  const corpus = cities();
  await esCreateIndex(url, INGEST_INDEX, SHARDS, corpus.mappings);
  let stopped = false, at = 0, written = 0;
  let bulks = 0, docs = 0, failed = 0, firstFailure: string | undefined;
  let latencies: number[] = [];
  let since = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const from = at, to = Math.min(from + bulkDocs, corpus.ids.length);
      at = to === corpus.ids.length ? 0 : to;
      const started = performance.now();
      try {
        const { body } = await esOk<{ errors: boolean; items: unknown[] }>(url, 'POST', '/_bulk', bulkBody(corpus, INGEST_INDEX, from, to), { contentType: 'application/x-ndjson' });
        if (body.errors !== false || body.items.length !== to - from) throw new Error(`errors: ${body.errors}, ${body.items.length} items for ${to - from}`);
        bulks++;
        docs += to - from;
        written = Math.max(written, to);
      } catch (error) {
        failed++;
        firstFailure ??= String(error).slice(0, 300);
      }
      latencies.push(performance.now() - started);
    }
  })();
  return {
    figures() {
      const seconds = (performance.now() - since) / 1000;
      const sorted = Float64Array.from(latencies).sort();
      const round = (ms: number) => Math.round(ms * 10) / 10;
      const figures: IngestFigures = {
        bulks,
        docs,
        docs_per_second: Math.round(docs / seconds),
        failed,
        ...(firstFailure !== undefined && { first_failure: firstFailure }),
        latency: sorted.length === 0 ? { p50_ms: NaN, p99_ms: NaN, max_ms: NaN } : { p50_ms: round(quantile(sorted, 0.5)), p99_ms: round(quantile(sorted, 0.99)), max_ms: round(sorted[sorted.length - 1]) },
      };
      bulks = docs = failed = 0;
      firstFailure = undefined;
      latencies = [];
      since = performance.now();
      return figures;
    },
    async stop() {
      stopped = true;
      await loop;
    },
    get written() {
      return written;
    },
  };
}

/** After the stream stopped: the index holds every city written, once. */
export async function checkIngest(url: string, stream: IngestStream): Promise<string[]> {
  await esOk(url, 'POST', `/${INGEST_INDEX}/_refresh`);
  const count = await esCount(url, INGEST_INDEX);
  return count === stream.written ? [] : [`${INGEST_INDEX} holds ${count} documents, but ${stream.written} distinct cities were written to it`];
}
