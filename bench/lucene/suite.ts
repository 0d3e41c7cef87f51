/**
 * deeppage beside real Lucene 8.8 on the same documents over HTTP (issue 39's peer): the catalog
 * corpus loaded into a deeppage server (a child process, bench/lib/child-server.ts) and into the
 * Lucene peer (bench/lucene/*.java, Debian's liblucene8-java behind the JDK's HTTP server), at 5
 * and 32 shards; then, per index, new searches (each never asked before on either peer) and warm
 * ones (asked again and again), both peers interleaved sample by sample, medians and their ratio side
 * by side (bench/lucene/cases.ts, sampling.ts, check.ts).
 *
 * Skipped, with the reason, where there is no JDK or no Lucene jar (not a failure).
 */
import { execFileSync } from 'node:child_process';
import { startCommandLine } from '../../scripts/start-command.ts';
import { place, referenceOrder } from '../engine/placement.ts';
import { Connection } from '../front/client.ts';
import { REPO_ROOT, startDeeppage, withChild } from '../lib/child-server.ts';
import { catalog } from '../lib/corpus.ts';
import { esOk } from '../lib/es-client.ts';
import type { Mode, Suite, SuiteContext } from '../lib/suite.ts';
import { short } from '../http/data.ts';
import { catalogCases } from './cases.ts';
import { SCORE_FACTOR, SCORE_TOLERANCE, TOTAL_HITS_THRESHOLD, type Expected } from './check.ts';
import { loadDeeppage, loadLucene } from './load.ts';
import { findToolchain, startLucenePeer } from './peer-process.ts';
import { indexMarkdown, indexRows, type CaseResult, type IndexResult } from './report.ts';
import { sampleFloor, sampleNew, sampleWarm, warmUp, type Peer } from './sampling.ts';

interface Profile {
  docs: number;
  shards: number[];
  /** New searches asked and checked before the counted ones, per case. */
  newWarmup: number;
  newSamples: number;
  warmSamples: number;
}

const PROFILES: Record<Mode, Profile> = {
  full: { docs: 1_000_000, shards: [5, 32], newWarmup: 3, newSamples: 30, warmSamples: 50 },
  quick: { docs: 100_000, shards: [5, 32], newWarmup: 3, newSamples: 15, warmSamples: 20 },
  smoke: { docs: 3_000, shards: [5], newWarmup: 1, newSamples: 2, warmSamples: 2 },
};

export const luceneSuite: Suite = {
  name: 'lucene',
  summary: 'deeppage beside Lucene 8.8 (liblucene8-java behind the JDK HTTP server) over HTTP: new and warm match and filter searches, 5 and 32 shards',
  async run(ctx: SuiteContext) {
    const toolchain = findToolchain();
    if ('missing' in toolchain) {
      ctx.log(`lucene: skipped: ${toolchain.missing}`);
      return { rows: [], markdown: `Skipped: ${toolchain.missing}.\n`, charts: [], notes: { skipped: toolchain.missing } };
    }
    const profile = PROFILES[ctx.mode];
    const log = ctx.log;
    const corpus = catalog(profile.docs);
    const cases = catalogCases(corpus);
    const position = new Map(corpus.ids.map((id, i) => [id, i]));
    const lucene = await startLucenePeer(toolchain, log);
    try {
      return await withChild(startDeeppage({ seed: false, log }), async (server) => {
        const { body: luceneInfo } = await esOk<{ lucene: string; java: string; vm: string; processors: number; search_threads: number; max_heap_bytes: number }>(lucene.url, 'GET', '/');
        const { body: deeppageInfo } = await esOk<{ version?: { number?: string } }>(server.url, 'GET', '/');
        const deeppage = `${commit()} (answering as Elasticsearch ${deeppageInfo.version?.number ?? '?'})`;
        const results: IndexResult[] = [];
        for (const shards of profile.shards) {
          const label = `catalog ${short(profile.docs)} × ${shards} shards`;
          const index = `catalog-${shards}`;
          const placement = place(corpus, shards);
          const expected: Expected = { corpus, position, order: referenceOrder(placement) };
          log(`${label}: loading Lucene`);
          const luceneLoad = await loadLucene(lucene.url, index, placement);
          log(`  ${luceneLoad.segments.length} shards, segments ${luceneLoad.segments.join(' ')}, ${(luceneLoad.ms / 1000).toFixed(1)} s`);
          log(`${label}: loading deeppage`);
          const deeppageLoad = await loadDeeppage(server.url, index, corpus, shards);
          log(`  segments ${deeppageLoad.segments.join(' ')}, ${(deeppageLoad.ms / 1000).toFixed(1)} s`);
          const peers: Peer[] = [
            { name: 'lucene', url: lucene.url, connection: new Connection(lucene.url), index, pid: lucene.pid },
            { name: 'deeppage', url: server.url, connection: new Connection(server.url), index, pid: server.pid },
          ];
          try {
            log(`${label}: every warm search checked on both peers`);
            for (const kase of cases) await warmUp(peers, expected, kase);
            const fresh = [];
            for (const kase of cases) {
              const result = await sampleNew(peers, expected, kase, profile.newWarmup, profile.newSamples);
              fresh.push(result);
              log(`  new  ${describe(kase)}: ${result.timings.map((t) => `${t.peer} ${t.timing.median.toFixed(2)} ms`).join(', ')}`);
            }
            const caseResults: CaseResult[] = [];
            for (const [i, kase] of cases.entries()) {
              const warm = await sampleWarm(peers, expected, kase, profile.warmSamples);
              caseResults.push({ kase, fresh: fresh[i], warm });
              log(`  warm ${describe(kase)}: ${warm.timings.map((t) => `${t.peer} ${t.timing.median.toFixed(2)} ms`).join(', ')}`);
            }
            const floor = await sampleFloor(peers, profile.warmSamples);
            results.push({ label, docs: profile.docs, shards, loads: { lucene: luceneLoad, deeppage: deeppageLoad }, cases: caseResults, floor });
          } finally {
            for (const peer of peers) peer.connection.close();
          }
          await esOk(server.url, 'DELETE', `/${index}`);
        }
        return {
          rows: results.flatMap(indexRows),
          markdown: [intro(luceneInfo, deeppage, profile), ...results.map(indexMarkdown)].join('\n'),
          charts: [],
          notes: {
            versions: { lucene: luceneInfo.lucene, lucene_package: "Debian's liblucene8-java", jar: toolchain.jar, java: `${luceneInfo.vm} ${luceneInfo.java}`, javac: toolchain.javac, deeppage },
            corpus: `${corpus.name} (bench/lib/corpus.ts catalog): price (an integer, about four documents a price), shelf 0–99 each on exactly 1 % of the documents, title 2–6 words of a 300-word Zipf vocabulary; ids c<i>`,
            lucene: `bench/lucene/*.java compiled with javac into a temporary directory, run as \`java -Xms1g -Xmx1g -Dsun.net.httpserver.nodelay=true\` on com.sun.net.httpserver.HttpServer (127.0.0.1, one request handled at a time); each shard its own index in an MMapDirectory, force-merged to one segment; price DoublePoint + DoubleDocValuesField, shelf IntPoint + SortedNumericDocValuesField, title TextField with StandardAnalyzer without stop words, _id StringField stored; BM25Similarity(1.2, 0.75); IndexSearcher's default query cache (as Elasticsearch's node query cache); query phase on every shard as tasks of a pool of ${luceneInfo.search_threads} threads (Elasticsearch's search pool: ${luceneInfo.processors} processors × 3 / 2 + 1), TopFieldCollector.create(sort, from + size, ${TOTAL_HITS_THRESHOLD}) with SortField DOUBLE price and setCanUsePoints() for the filters, TopScoreDocCollector.create(from + size, ${TOTAL_HITS_THRESHOLD}) for the matches (block-max WAND), match as SHOULD TermQuery per analyzed word, term and range as IndexOrDocValuesQuery of IntPoint and doc values; TopDocs.merge(from, size) of the shards' hits; fetch: the page's _id from stored fields`,
            deeppage: `\`${startCommandLine()}\` as a child process on 127.0.0.1, an empty temporary data directory, no -E settings; price mapped long, shelf integer, title text (the catalog's mappings)`,
            loading: Object.fromEntries(results.map((r) => [r.label, { lucene: r.loads.lucene.how, lucene_segments: r.loads.lucene.segments, deeppage: r.loads.deeppage.how, deeppage_segments: r.loads.deeppage.segments }])),
            client: 'one kept-alive node:http connection per peer (bench/front/client.ts), one request at a time, POST /{index}/_search with the same JSON body to both peers (size 10, _source false); a sample is from writing the request to the answer\'s last byte; samples interleaved peer by peer, which peer goes first alternating',
            states: {
              new: `every sample a search never asked before of this index on either peer (the pools of bench/lucene/cases.ts, asked in a seeded order; the same search of both peers); ${profile.newWarmup} asked and checked first without being counted, then ${profile.newSamples} counted; before each sample deeppage has no background build pending; deeppage has already served the price sort and each kind of search (the warm searches were checked first), the Lucene JVM has run them too`,
              warm: `the case's one warm search: asked of deeppage until a pass leaves its sorted runs as they were (background builds waited for) and 20 times of Lucene, then ${profile.warmSamples} samples of each`,
            },
            cases: Object.fromEntries(cases.map((k) => [describe(k), { warm: JSON.stringify(k.warm.body), new_pool: k.fresh.length, new_first: JSON.stringify(k.fresh[0].body) }])),
            checks: `every answer, new and warm, before its time is counted (a wrong one refuses the report): no shard failed; hits.total the plain-JS count (${TOTAL_HITS_THRESHOLD} gte above ${TOTAL_HITS_THRESHOLD}); min(10, matches − from) hits, none twice, each a match by plain JS; filters: _ids and sort values equal the reference order (price desc, then shard, then index order: Lucene's TopDocs.merge rule and deeppage's, on the same routing) hit for hit on both peers; matches: scores non-increasing, the same _ids on both peers hit for hit, deeppage's score Lucene's × ${SCORE_FACTOR} within ${SCORE_TOLERANCE} relative; every warm sample's _ids those of the checked page`,
          },
        };
      });
    } finally {
      await lucene.stop();
    }
  },
};

/** The commit the deeppage server was built from, marked when the tree had changes. */
function commit(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return `at ${hash}${dirty ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'at an unknown commit';
  }
}

function describe(kase: { name: string; page: string }): string {
  return `${kase.name} ${kase.page} page`;
}

function intro(lucene: { lucene: string; java: string; vm: string; search_threads: number }, deeppage: string, profile: Profile): string {
  return [
    `## deeppage beside Lucene ${lucene.lucene}, over HTTP`,
    '',
    `The catalog corpus, ${profile.docs.toLocaleString('en-US')} documents, in indices of ${profile.shards.join(' and ')} shards on both peers: deeppage ${deeppage ?? ''} as \`npm start\` runs it, and Lucene ${lucene.lucene} (Debian's liblucene8-java, ${lucene.vm} ${lucene.java}) behind the JDK's HTTP server with TCP_NODELAY, each shard force-merged to one segment, Elasticsearch's query then fetch with the shards' query phases on a pool of ${lucene.search_threads} threads, the points-based sort optimization and block-max WAND on (a total-hits threshold of 10,000).`,
    'Every search is size 10 with `_source: false`, sent as the same JSON body to both, one request at a time on a kept-alive connection each, the two peers interleaved sample by sample.',
    '',
    "- **new**: each sample a search never asked before of that index on either peer, of the case's kind and about its selectivity (another word, another pair of words, another shelf, another ten shelves); deeppage idle before each (no background build pending), having served the price sort and each kind of search before.",
    '- **warm**: one search of the case asked again and again (deeppage: until its sorted runs stop changing).',
    '',
    'Every answer is checked against plain JS before its time counts; the filters\' pages are the same `_id`s on both peers, the matches\' scores are deeppage\'s = Lucene\'s × 2.2 (Elasticsearch\'s BM25 keeps the factor 1 + k1 that Lucene 8 dropped).',
    '',
  ].join('\n');
}
