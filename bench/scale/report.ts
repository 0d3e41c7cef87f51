/** The scale suite's summary: ingest, disk, memory, restart and page costs at depth. */
import { count, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';

export function scaleMarkdown(rows: Row[], corpus: string): string {
  const find = (group: string, measure: string, unit: Row['unit']) => rows.find((r) => r.group === group && r.params.measure === measure && r.unit === unit);
  const value = (group: string, measure: string, unit: Row['unit']) => find(group, measure, unit)?.median ?? NaN;
  const docs = Number(rows[0]?.params.docs);
  const lines: string[][] = [
    ['ingest', `${count(value('ingest', 'overall', 'docs/s'))} docs/s`, '`_bulk`, batches of 10,000, one in flight, to the final `_refresh`'],
    ['on disk', `${count(value('disk', 'allocated', 'bytes/doc'))} bytes/doc`, `${mib(value('disk', 'allocated', 'bytes'))} MiB: stored documents, segments, metadata`],
    ['memory, empty', `${mib(value('memory', 'rss_anon_empty', 'bytes'))} MiB`, 'RssAnon of the server just started'],
    ['memory, loaded', `${count(value('memory', 'rss_anon_loaded', 'bytes/doc'))} bytes/doc`, `RssAnon ${mib(value('memory', 'rss_anon_loaded', 'bytes'))} MiB after the load, the server idle (what V8's young generation still holds included)`],
    ['memory, restarted', `${count(value('memory', 'rss_anon_restarted', 'bytes/doc'))} bytes/doc`, `RssAnon ${mib(value('memory', 'rss_anon_restarted', 'bytes'))} MiB after the restart`],
    ['restart: listening', `${(value('restart', 'listening', 'ms') / 1000).toFixed(2)} s`, 'from spawning the server on the loaded data directory'],
    ['restart: `GET /`', `${(value('restart', 'root', 'ms') / 1000).toFixed(2)} s`, 'the same clock, to the first answer'],
    ['restart: deepest page', `${(value('restart', 'deepest_page', 'ms') / 1000).toFixed(2)} s`, `the same clock, to a checked page at from ${count(docs - 10)}`],
  ];
  const pages = rows.filter((r) => r.group === 'page' && !r.params.first);
  const first = (when: unknown, from: unknown) => rows.find((r) => r.group === 'page' && r.params.first && r.params.when === when && r.params.from === from)?.median ?? NaN;
  const pageLines = pages.map((r) => [String(r.params.when), count(Number(r.params.from)), ms(first(r.params.when, r.params.from)), `${ms(r.median)} (${ms(r.min)}–${ms(r.max)})`]);
  return [
    '## Scale',
    '',
    `\`${corpus}\` (bench/lib/corpus.ts) into \`items\`, 5 shards; the server is a child process; every page was checked against the corpus order.`,
    '',
    table(['figure', 'value', 'what it means'], lines, 'lrl'),
    '',
    'Page of 10 sorted by `price` desc, over HTTP (ms): the first answer after the load or the restart, then the median (min–max) of the repeats.',
    '',
    table(['when', 'from', 'first', 'then'], pageLines, 'lrrr'),
    '',
  ].join('\n');
}

const mib = (bytes: number) => count(Math.round(bytes / 2 ** 20));
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
