/** The ingest suite's summary: load speed, and what the documents cost in memory and on disk. */
import { count, table } from '../lib/format.ts';
import type { Row, Unit } from '../lib/results.ts';

export function ingestMarkdown(all: Row[], settleMs: number): string {
  const corpora = [...new Set(all.map((r) => String(r.params.corpus)))];
  return corpora.map((corpus) => loadMarkdown(all.filter((r) => r.params.corpus === corpus), corpus, settleMs)).join('\n');
}

function loadMarkdown(rows: Row[], corpus: string, settleMs: number): string {
  const find = (group: string, measure: string, unit: Unit) => rows.find((r) => r.group === group && r.params.measure === measure && r.unit === unit);
  const overall = find('ingest', 'overall', 'docs/s')!, batch = find('ingest', 'batch', 'docs/s')!;
  const { docs, batch: size, shards, in_flight: inFlight } = overall.params;
  const lines: string[][] = [
    ['overall', `${count(overall.median)} docs/s`, `${count(docs)} documents / the wall clock from the first batch sent to the final \`_refresh\` answered`],
    ['per batch', `${count(batch.median)} docs/s (${count(batch.min)}–${count(batch.max)})`, `median (min–max) over ${batch.samples} batch${batch.samples === 1 ? '' : 'es'} of ${count(size)} / the batch's round trip`],
  ];
  const retrieval = (measure: string, slices?: number) => rows.find((r) => r.group === 'retrieval' && r.params.measure === measure && (slices === undefined || r.params.slices === slices));
  const reindex = retrieval('reindex', 1), sliced = rows.filter((r) => r.group === 'retrieval' && r.params.measure === 'reindex')[1], walk = retrieval('pit_walk');
  if (reindex) lines.push(['`_reindex`', `${count(reindex.median)} docs/s`, `${count(docs)} documents copied into a new index, one slice, batches of 1,000 / the request's round trip (\`refresh=true\`)`]);
  if (sliced) lines.push(['`_reindex`, sliced', `${count(sliced.median)} docs/s`, `the same with \`slices=auto\` (${sliced.params.slices} slices, one per shard)`]);
  if (walk) lines.push(['PIT + `search_after`', `${count(walk.median)} docs/s (${count(walk.min)}–${count(walk.max)})`, `every document with its \`_source\`, ${count(Number(walk.params.size))} per request (${walk.params.requests} requests) / the walk's wall clock, answers parsed; median (min–max) of ${walk.samples} walks`]);
  const bytes = (measure: string, unit: Unit, label: string, meaning: string) => {
    const row = find('memory', measure, unit);
    if (row) lines.push([label, unit === 'bytes' ? mib(row.median) : `${count(row.median)} bytes`, meaning]);
  };
  bytes('rss_start', 'bytes', 'resident memory, empty', 'the server process just started, before the index is created');
  bytes('rss_end', 'bytes', 'resident memory, loaded', `after the load and \`_refresh\`, ${settleMs} ms later`);
  bytes('rss_peak', 'bytes', 'peak resident memory', 'the most the process held (VmHWM), parsing batches included');
  bytes('disk', 'bytes', 'data directory', 'blocks allocated under the data directory (LMDB: sources and metadata)');
  bytes('rss', 'bytes/doc', 'memory per document', '(loaded − empty) / documents: columns, ids, segments, and heap not yet returned');
  bytes('disk', 'bytes/doc', 'on disk per document', 'data directory / documents');
  bytes('ndjson', 'bytes/doc', 'NDJSON per document', 'the `_bulk` bodies sent / documents, action lines included');
  bytes('source', 'bytes/doc', '`_source` per document', 'the JSON of a document alone, for comparison');
  return [
    `## Ingest: ${corpus}`,
    '',
    `\`${corpus}\` (bench/lib/corpus.ts), ${shards} shards, over \`_bulk\` in batches of ${count(size)} with ${inFlight === 1 ? 'one batch' : `${inFlight} batches`} in flight;`,
    'the server is a child process started empty (DEEPPAGE_SEED=false). Every batch answered `errors: false` and `_count` matched.',
    '',
    table(['figure', 'value', 'what it means'], lines, 'lrl'),
    '',
  ].join('\n');
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
