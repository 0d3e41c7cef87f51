/**
 * Ingest suite: the real server, started empty as a child process, loads each corpus of {@link LOADS}
 * over `_bulk`; then what the documents cost in resident memory and on disk, and how fast they come
 * back out (`_reindex`, a point-in-time walk).
 *
 * Every batch must answer `errors: false` and `_count` must equal n after the final `_refresh`,
 * or the suite refuses to report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startCommandLine } from '../../scripts/start-command.ts';
import { items, products, type Corpus } from '../lib/corpus.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer, type Mode, type Suite, type SuiteContext } from '../lib/suite.ts';
import { startDeeppage, withChild } from '../lib/child-server.ts';
import { esCount, esCreateIndex } from '../lib/es-client.ts';
import { quantile } from '../lib/format.ts';
import { bulkLoad } from './bulk-load.ts';
import { diskOf, memoryOf } from './footprint.ts';
import { pitWalk, reindexAll } from './retrieval.ts';
import { ingestMarkdown } from './report.ts';

interface Profile {
  docs: number;
  /** How long to let the server settle before reading its memory, in ms. */
  settleMs: number;
}

const PROFILES: Record<Mode, Profile> = {
  full: { docs: 1_000_000, settleMs: 2000 },
  quick: { docs: 200_000, settleMs: 1000 },
  smoke: { docs: 2_000, settleMs: 100 },
};

/**
 * The loads measured, each on a server of its own: the products (a `text` name analyzed and
 * indexed, 5,000 a request, one in flight), and issue 11's case, documents of three small fields
 * (a double, a keyword, an integer) at 10,000 a request with two in flight.
 */
const LOADS: { corpus: (n: number) => Corpus; index: string; batch: number; inFlight: number }[] = [
  { corpus: products, index: 'products', batch: 5000, inFlight: 1 },
  { corpus: items, index: 'items', batch: 10_000, inFlight: 2 },
];

const SHARDS = 5;
/** Hits per request in the PIT walk (the largest page `index.max_result_window` allows by default). */
const WALK_SIZE = 10_000;
/** Walks of the whole index, one after the other. */
const WALKS = 3;

export const ingestSuite: Suite = {
  name: 'ingest',
  summary: 'bulk-load over HTTP into the real server (products with text; three-field items): docs/s, memory and disk per document, reindex and PIT walk',
  async run(ctx: SuiteContext) {
    const { docs, settleMs } = PROFILES[ctx.mode];
    const rows: Row[] = [];
    const notes: Record<string, unknown> = {};
    for (const load of LOADS) {
      const measured = await measureLoad(ctx, load, docs, settleMs);
      rows.push(...measured.rows);
      notes[measured.corpus] = measured.notes;
    }
    return { rows, markdown: ingestMarkdown(rows, settleMs), charts: [], notes };
  },
};

async function measureLoad(ctx: SuiteContext, spec: (typeof LOADS)[number], docs: number, settleMs: number): Promise<{ corpus: string; rows: Row[]; notes: Record<string, unknown> }> {
  const corpus = spec.corpus(docs);
  const { index: INDEX, batch: BATCH, inFlight } = spec;
  ctx.log(`deeppage (child process, started empty), ${corpus.name}, batches of ${BATCH}, ${inFlight} in flight`);
  return withChild(startDeeppage({ seed: false, log: ctx.log }), async (server) => {
    await sleep(settleMs);
    const empty = memoryOf(server.pid);
    await esCreateIndex(server.url, INDEX, SHARDS, corpus.mappings);
    const bar = ctx.progress(`ingest ${corpus.name}`, docs);
    const load = await bulkLoad(server.url, corpus, INDEX, BATCH, bar, inFlight).finally(() => bar.stop());
    const indexed = await esCount(server.url, INDEX);
    if (indexed !== docs) throw new WrongAnswer(`${INDEX}: _count is ${indexed} after loading ${docs} documents and refreshing`);
    await sleep(settleMs);
    const loaded = memoryOf(server.pid);
    const disk = diskOf(server.dataDir!);

    // Bulk retrieval from the loaded index: reindex (one slice, then a slice per shard), and a PIT walk.
    ctx.log('  bulk retrieval: _reindex, slices 1 and auto; PIT + search_after walk, size 10000');
    const copy = await reindexAll(server.url, INDEX, `${INDEX}-copy`, docs, 1);
    const sliced = await reindexAll(server.url, INDEX, `${INDEX}-sliced`, docs, 'auto');
    // The walk is cheap to repeat: its median of three, with min and max, says more than one run.
    const walks: Awaited<ReturnType<typeof pitWalk>>[] = [];
    for (let i = 0; i < WALKS; i++) walks.push(await pitWalk(server.url, INDEX, docs, WALK_SIZE));
    const walkRates = Float64Array.from(walks, (w) => (docs * 1000) / w.ms).sort();
    const walk = walks[0];

    let sourceBytes = 0;
    for (let i = 0; i < docs; i++) sourceBytes += Buffer.byteLength(JSON.stringify(corpus.source(i)));
    const rates = Float64Array.from(load.batches, (b) => (b.docs * 1000) / b.ms).sort();
    const overall = (docs * 1000) / load.ms;
    const c = { corpus: corpus.name };
    const params = { ...c, docs, batch: BATCH, shards: SHARDS, in_flight: inFlight };
    const one = (value: number) => ({ median: value, min: value, max: value, samples: 1 });
    const rows: Row[] = [
      { group: 'ingest', strategy: 'deeppage', params: { measure: 'overall', ...params }, unit: 'docs/s', ...one(overall) },
      { group: 'ingest', strategy: 'deeppage', params: { measure: 'batch', ...params }, unit: 'docs/s', median: quantile(rates, 0.5), min: rates[0], max: rates[rates.length - 1], samples: rates.length },
      { group: 'retrieval', strategy: 'deeppage', params: { measure: 'reindex', ...c, docs, shards: SHARDS, slices: 1, batch: 1000 }, unit: 'docs/s', ...one((docs * 1000) / copy.ms) },
      { group: 'retrieval', strategy: 'deeppage', params: { measure: 'reindex', ...c, docs, shards: SHARDS, slices: SHARDS, batch: 1000 }, unit: 'docs/s', ...one((docs * 1000) / sliced.ms) },
      { group: 'retrieval', strategy: 'deeppage', params: { measure: 'pit_walk', ...c, docs, shards: SHARDS, size: WALK_SIZE, requests: walk.requests }, unit: 'docs/s', median: quantile(walkRates, 0.5), min: walkRates[0], max: walkRates[walkRates.length - 1], samples: walkRates.length },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'rss_start', ...c, docs }, unit: 'bytes', ...one(empty.rss) },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'rss_end', ...c, docs }, unit: 'bytes', ...one(loaded.rss) },
      ...(loaded.peak ? [{ group: 'memory', strategy: 'deeppage', params: { measure: 'rss_peak', ...c, docs }, unit: 'bytes' as const, ...one(loaded.peak) }] : []),
      { group: 'memory', strategy: 'deeppage', params: { measure: 'disk', ...c, docs }, unit: 'bytes', ...one(disk.allocated) },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'rss', ...c, docs }, unit: 'bytes/doc', ...one((loaded.rss - empty.rss) / docs) },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'disk', ...c, docs }, unit: 'bytes/doc', ...one(disk.allocated / docs) },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'ndjson', ...c, docs }, unit: 'bytes/doc', ...one(load.bytes / docs) },
      { group: 'memory', strategy: 'deeppage', params: { measure: 'source', ...c, docs }, unit: 'bytes/doc', ...one(sourceBytes / docs) },
    ];
    ctx.log(`  reindex ${Math.round((docs * 1000) / copy.ms)} docs/s (slices auto: ${Math.round((docs * 1000) / sliced.ms)}), PIT walk ${Math.round(quantile(walkRates, 0.5))} docs/s (median of ${WALKS})`);
    ctx.log(`  ${Math.round(overall)} docs/s overall, batches ${Math.round(rates[0])}–${Math.round(rates[rates.length - 1])} docs/s; RSS ${mb(empty.rss)} → ${mb(loaded.rss)} MB, disk ${mb(disk.allocated)} MB`);
    return {
      corpus: corpus.name,
      rows,
      notes: {
        data: `${corpus.name}: bench/lib/corpus.ts, ids ${corpus.ids[0]}…, mappings ${JSON.stringify(corpus.mappings)}`,
        server: `\`${startCommandLine()}\` as a child process (npm start without npm), DEEPPAGE_SEED=false, an empty temporary data directory (removed afterwards); default refresh interval`,
        load: `POST /_bulk, NDJSON (application/x-ndjson), batches of ${BATCH}, ${inFlight} in flight (answers awaited in order), the next body built while they are; wall clock ${(load.ms / 1000).toFixed(2)} s including the final _refresh`,
        memory: `resident set size of the server process (/proc/<pid>/status VmRSS, or ps), read ${settleMs} ms after start and ${settleMs} ms after the load; peak is VmHWM`,
        disk: `data directory after the load, blocks allocated ${disk.allocated} bytes (apparent size ${disk.apparent} bytes)`,
        retrieval: `after the load and the memory reading: POST /_reindex?refresh=true&slices=1 into ${INDEX}-copy, then slices=auto into ${INDEX}-sliced, each timed from the request to its answer; then a point in time over ${INDEX} walked with search_after on _shard_doc, size ${WALK_SIZE}, _source included, track_total_hits false, timed from the first search to the last answer parsed (the client parses every answer), ${WALKS} walks one after the other (median, min, max)`,
        checks: [
          'every batch answered errors:false with one item per document',
          `_count of ${INDEX} equals ${docs} after the final _refresh`,
          'each reindex created every document without failures, and _count of the copy matches',
          'the PIT walk returned every document once, each with its _source',
        ],
      },
    };
  });
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
