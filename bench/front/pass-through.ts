/**
 * What the front adds to a request it does not accelerate: each probe sent to the cluster directly,
 * through the front and through a plain Node proxy (plain-proxy-server.ts: what one more Node process
 * on the way costs here, the floor), in rounds side by side (bench/front/rounds.ts), after untimed
 * requests that warm every process up. Every answer is checked, and the front's must carry no
 * `X-Deeppage-Page` (it passed through).
 */
import { bulkBody, products } from '../lib/corpus.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Answer, Call, Connection } from './client.ts';
import { frontMark } from './pages.ts';
import { inRounds, type Measured, type RoundBudget } from './rounds.ts';

export interface Probe {
  name: string;
  /** What it is, for the report. */
  what: string;
  call: Call;
  verify(answer: Answer): boolean;
  rounds: RoundBudget;
  /** Untimed requests each contender gets first, so that no process is timed before it is warm. */
  warmup: number;
}

export interface ProbeResult {
  probe: Probe;
  direct: Measured;
  front: Measured;
  /** Through the plain Node proxy. */
  plain: Measured;
}

/** The scratch index the `_bulk` probe writes into. */
export const SCRATCH_INDEX = 'front-scratch';

export function probes(index: string, docs: number, bulkDocs: number, budget: RoundBudget, bulkBudget: RoundBudget): Probe[] {
  const bulk = bulkBody(products(bulkDocs), SCRATCH_INDEX, 0, bulkDocs);
  const searchSize = Math.min(1000, docs);
  return [
    {
      name: 'GET /',
      what: 'the node\'s info (`GET /`): the smallest request there is',
      call: { method: 'GET', path: '/' },
      verify: (a) => a.status === 200 && a.body.includes('"cluster_name"'),
      rounds: budget,
      warmup: WARMUP,
    },
    {
      name: '_count',
      what: `\`GET /${index}/_count\` of all ${docs.toLocaleString('en-US')} documents`,
      call: { method: 'GET', path: `/${index}/_count` },
      verify: (a) => a.status === 200 && a.body.includes(`"count":${docs}`),
      rounds: budget,
      warmup: WARMUP,
    },
    {
      name: `_bulk ${bulkDocs.toLocaleString('en-US')}`,
      what: `\`POST /_bulk\` of ${bulkDocs.toLocaleString('en-US')} products (${(Buffer.byteLength(bulk) / 2 ** 20).toFixed(1)} MiB of NDJSON) into the scratch index \`${SCRATCH_INDEX}\` (5 shards), the same ids every time, so each request after the first overwrites them`,
      call: { method: 'POST', path: '/_bulk', body: bulk, contentType: 'application/x-ndjson' },
      verify: (a) => a.status === 200 && a.body.startsWith('{"errors":false,'),
      rounds: bulkBudget,
      warmup: 2,
    },
    {
      name: `_search size ${searchSize}`,
      what: `\`POST /${index}/_search\` \`{"size": ${searchSize}}\`: no sort, so the front passes it through (the stand-in refuses aggregations), ${searchSize} hits with their \`_source\``,
      call: { method: 'POST', path: `/${index}/_search`, body: JSON.stringify({ size: searchSize }) },
      verify: (a) => a.status === 200 && countOf(a.body, '"_id":') === searchSize,
      rounds: budget,
      warmup: WARMUP,
    },
  ];
}

/** Untimed requests per contender before a small probe is timed. */
const WARMUP = 300;

export async function measureProbes(cluster: Connection, front: Connection, plain: Connection, list: Probe[], log: (line: string) => void): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const probe of list) {
    const passedThrough = (a: Answer) => probe.verify(a) && frontMark(a.headers).page === undefined;
    const first = await front.send(probe.call);
    if (!passedThrough(first)) throw new WrongAnswer(`the front: ${probe.call.method} ${probe.call.path}: status ${first.status}, X-Deeppage-Page ${frontMark(first.headers).page}: ${first.body.slice(0, 300)}`);
    const contenders = [
      { name: 'direct', connection: cluster, call: probe.call, verify: probe.verify },
      { name: 'front', connection: front, call: probe.call, verify: passedThrough },
      { name: 'plain', connection: plain, call: probe.call, verify: probe.verify },
    ];
    for (let i = 0; i < probe.warmup; i++) {
      for (const { connection, call, verify, name } of contenders) {
        const answer = await connection.send(call);
        if (!verify(answer)) throw new WrongAnswer(`${name}: ${call.method} ${call.path} answered ${answer.status} and failed its check while warming up: ${answer.body.slice(0, 300)}`);
      }
    }
    const measured = await inRounds(contenders, probe.rounds);
    const result = { probe, direct: measured.get('direct')!, front: measured.get('front')!, plain: measured.get('plain')! };
    log(`  ${probe.name.padEnd(18)} direct p50 ${result.direct.timing.median.toFixed(3)} ms · front p50 ${result.front.timing.median.toFixed(3)} ms · plain proxy p50 ${result.plain.timing.median.toFixed(3)} ms`);
    results.push(result);
  }
  return results;
}

function countOf(text: string, what: string): number {
  let n = 0;
  for (let at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length)) n++;
  return n;
}
