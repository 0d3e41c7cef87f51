/**
 * Front suite (issue 38): deeppage as a front of a cluster, against the cluster asked directly.
 *
 * The cluster is a stand-in, a deeppage server with `-E search.paging=top_k` (bench/front/servers.ts),
 * loaded with the products (bench/lib/corpus.ts: an integer price with about four documents a
 * value, a keyword category of 8 values) into an index of 5 shards and one of 32, over `_bulk`. Then,
 * per index and sort, on a front of its own (bench/front/sweep.ts): a page of 10 at from = 0 … the
 * last page, the cluster directly (refused past its window of 10,000; and the one `search_after` a
 * warm page asks of it, asked directly), the front warm and cold,
 * with the cluster requests per page and the rank index's size and build rate; the cluster's own
 * walk of the sort keys beside it (bench/front/key-walk.ts); and what the front adds to requests it
 * passes through (bench/front/pass-through.ts). The issue's targets are judged from the same run.
 *
 * Until the front accelerates, its columns read "not available" and the rest is measured.
 * Every process is stopped, and its data removed, whatever happens.
 */
import { startCommandLine } from '../../scripts/start-command.ts';
import { withChild } from '../lib/child-server.ts';
import { products, type Corpus } from '../lib/corpus.ts';
import { esCount, esCreateIndex } from '../lib/es-client.ts';
import { WrongAnswer, type Mode, type Suite, type SuiteContext } from '../lib/suite.ts';
import { bulkLoad } from '../ingest/bulk-load.ts';
import { withConnection } from './client.ts';
import { withFront } from './front-process.ts';
import { closePit, walkKeys, walkKeysSliced, type Positions } from './key-walk.ts';
import type { SortKey } from './pages.ts';
import { measureProbes, probes, SCRATCH_INDEX, type ProbeResult } from './pass-through.ts';
import { frontChart, frontMarkdown, frontRows, walkKey, type ClusterWalks } from './report.ts';
import type { RoundBudget } from './rounds.ts';
import { startCluster, startPlainProxy } from './servers.ts';
import { sweepFront, type SweepResult } from './sweep.ts';

interface Profile {
  docs: number;
  /** The depths asked below the last page (docs − 10, added). */
  froms: number[];
  /** One index per shard count. */
  shards: number[];
  /** Also sweep the keyword sort, on the first index. */
  keyword: boolean;
  pages: RoundBudget;
  coldSamples: number;
  /** Past this long on a depth's cold pages (ms), the depth gets no more. */
  coldBudgetMs: number;
  probes: RoundBudget;
  bulk: RoundBudget;
  bulkDocs: number;
  buildTimeoutMs: number;
}

/** The depths asked, those below the last page kept; the last page (docs − 10) is added. */
const FROMS = [0, 10, 100, 1_000, 9_990, 10_000, 100_000, 500_000];
const SIZE = 10;

const PROFILES: Record<Mode, Profile> = {
  full: { docs: 1_000_000, froms: FROMS, shards: [5, 32], keyword: true, pages: { rounds: 5, perRound: 10 }, coldSamples: 3, coldBudgetMs: 45_000, probes: { rounds: 5, perRound: 20 }, bulk: { rounds: 5, perRound: 2 }, bulkDocs: 10_000, buildTimeoutMs: 600_000 },
  quick: { docs: 100_000, froms: FROMS, shards: [5, 32], keyword: true, pages: { rounds: 3, perRound: 5 }, coldSamples: 2, coldBudgetMs: 15_000, probes: { rounds: 3, perRound: 10 }, bulk: { rounds: 3, perRound: 1 }, bulkDocs: 10_000, buildTimeoutMs: 120_000 },
  // More documents than the window, so that pages past it are asked; few depths, as each cold page starts a front.
  smoke: { docs: 12_000, froms: [0, 10, 9_990, 10_000], shards: [5], keyword: false, pages: { rounds: 1, perRound: 2 }, coldSamples: 1, coldBudgetMs: 0, probes: { rounds: 1, perRound: 2 }, bulk: { rounds: 1, perRound: 1 }, bulkDocs: 500, buildTimeoutMs: 60_000 },
};

const BATCH = 10_000;
/** As many as the front's walk asks for at most (src/front/rank/walk.ts). */
const SLICES = 8;

export const frontSuite: Suite = {
  name: 'front',
  summary: 'deeppage as a front of a stand-in cluster (search.paging=top_k): a page at any from, direct vs front warm and cold, rank index build rate and bytes/doc, pass-through overhead',
  async run(ctx: SuiteContext) {
    const profile = PROFILES[ctx.mode];
    const log = ctx.log;
    const corpus = products(profile.docs);
    const last = profile.docs - SIZE;
    const froms = [...profile.froms.filter((f) => f < last), last];
    const keys = sortKeys(corpus);
    log(`the stand-in cluster (child process, -E search.paging=top_k)`);
    return withChild(startCluster(log), async (cluster) => {
      const indices = profile.shards.map((shards) => ({ shards, name: shards === 5 ? 'products' : `products-${shards}shards` }));
      const loading: Record<string, string> = {};
      for (const { name, shards } of indices) {
        await esCreateIndex(cluster.url, name, shards, corpus.mappings);
        const loaded = await bulkLoad(cluster.url, corpus, name, BATCH, ctx.progress(`loading ${name}`, profile.docs), 2);
        const docs = await esCount(cluster.url, name);
        if (docs !== profile.docs) throw new WrongAnswer(`${name}: _count is ${docs} after loading ${profile.docs}`);
        loading[name] = `${profile.docs} documents over POST /_bulk, ${BATCH} a request, 2 in flight, then one _refresh: ${(loaded.ms / 1000).toFixed(1)} s`;
        log(`  ${name}: ${loading[name]}`);
      }
      const jobs = indices.flatMap(({ name, shards }, i) =>
        [keys.price, ...(profile.keyword && i === 0 ? [keys.category] : [])].map((key) => ({ index: name, shards, key, positions: undefined as Positions | undefined })),
      );
      return withConnection(cluster.url, async (direct) => {
        const walks = new Map<string, ClusterWalks>();
        for (const job of jobs) {
          const { walk: single, positions } = await walkKeys(cluster.url, job.index, job.key, froms);
          job.positions = positions;
          const sliced = await walkKeysSliced(cluster.url, job.index, job.key, SLICES);
          walks.set(walkKey(job), { single, sliced });
          const slicedLine = 'docs' in sliced ? `${sliced.docs} in ${sliced.ms.toFixed(0)} ms in ${SLICES} slices` : `slices refused: ${sliced.refused}`;
          log(`  the cluster's walk of ${job.index} by ${job.key.label}: ${single.docs} documents in ${single.ms.toFixed(0)} ms (${single.requests} requests); ${slicedLine}`);
        }
        const sweeps: SweepResult[] = [];
        for (const job of jobs) {
          log(`sweep: ${job.index} (${job.shards} shards), sort ${job.key.label}, on a new front`);
          sweeps.push(await sweepFront({ clusterUrl: cluster.url, cluster: direct, ...job, froms, size: SIZE, rounds: profile.pages, coldSamples: profile.coldSamples, coldBudgetMs: profile.coldBudgetMs, buildTimeoutMs: profile.buildTimeoutMs, log }));
        }
        // The walks' points in time served the direct search_after pages; the cluster stops with the run in any case.
        for (const job of jobs) if (job.positions) await closePit(cluster.url, job.positions.pit);
        log('pass-through: direct and through a new front');
        await esCreateIndex(cluster.url, SCRATCH_INDEX, 5, corpus.mappings);
        const probeResults: ProbeResult[] = await withChild(startPlainProxy(cluster.url, log), (proxy) =>
          withConnection(proxy.url, (plain) =>
            withFront(cluster.url, log, (front) => measureProbes(direct, front.connection, plain, probes(indices[0].name, profile.docs, profile.bulkDocs, profile.probes, profile.bulk), log)),
          ),
        );
        const outcome = { sweeps, walks, probes: probeResults };
        const clusterCommand = `${startCommandLine()} -E search.paging=top_k`;
        const command = `npm run bench -- front${ctx.mode === 'full' ? '' : ` --${ctx.mode}`}`;
        return {
          rows: frontRows(outcome),
          markdown: frontMarkdown(outcome, { command, clusterCommand, mode: ctx.mode }),
          charts: [frontChart(sweeps)],
          notes: {
            cluster: `${clusterCommand}, a child process on 127.0.0.1 with an empty temporary data directory (DEEPPAGE_SEED=false); indices at the default index.max_result_window (10,000)`,
            fronts: `${startCommandLine()} ${sweeps[0]?.frontSettings.join(' ') ?? '-E front.hosts=<cluster>'}: a new front process for each index and sort, and one for the pass-through probes`,
            data: { corpus: `${corpus.name} (bench/lib/corpus.ts): price an integer uniform in [0, ${Math.floor(profile.docs / 4)}), about four documents a value; category a keyword of 8 values, document i has the (i mod 8)-th`, loading },
            requests: `POST /{index}/_search with {"from": F, "size": ${SIZE}, "sort": [{key: order}]}, over one kept-alive connection per server (node:http), latency from writing the request to the answer's last byte`,
            rounds: { pages: profile.pages, probes: profile.probes, bulk: profile.bulk, how: 'in each round every contender in turn, the order turning round by round, one untimed request then perRound timed ones' },
            cold: { samples_per_depth: profile.coldSamples, budget_ms_per_depth: profile.coldBudgetMs, methods: Object.fromEntries(sweeps.map((s) => [s.label, s.coldMethod])) },
            unavailable: Object.fromEntries(sweeps.filter((s) => s.unavailable).map((s) => [s.label, s.unavailable])),
            states: 'each front row carries state (X-Deeppage-Page of its timed answers, none when absent) and cluster_requests (the largest X-Deeppage-Cluster-Requests)',
            checks: [
              'every page of the cluster: status 200 and the data set\'s sort values at ranks from… exactly, or past the window its 400 "Result window is too large"',
              "every page of the front: the same, and within the window the cluster's very _ids in the same order; a wrong page is not timed and its cell says why",
              "every timed page names its checked page's first and last _id",
              "the cluster's key walk: every document once, in the data set's order; sliced: each slice in order, as many documents over the slices as there are",
              'pass-through probes: GET / has cluster_name, _count the document count, _bulk errors:false, _search 1,000 hits; the front\'s answers carry no X-Deeppage-Page',
            ],
          },
        };
      });
    });
  },
};

function sortKeys(corpus: Corpus): { price: SortKey; category: SortKey } {
  const categories = Array.from({ length: corpus.keys.length }, (_, i) => corpus.source(i).category as string).sort();
  return {
    price: { label: `${corpus.field} desc`, field: corpus.field, order: 'desc', ranked: corpus.keys.slice().sort().reverse() },
    category: { label: 'category asc', field: 'category', order: 'asc', ranked: categories },
  };
}
