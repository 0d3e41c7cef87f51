/**
 * Timing both peers over HTTP with the same client: one kept-alive connection each
 * (bench/front/client.ts), one request at a time, each sample's time from writing the request to the
 * answer's last byte. Samples are interleaved peer by peer, the first to be asked alternating, so a
 * slow spell of the shared machine lands on both.
 *
 * - `new`: every sample a search never asked before of this index on either peer (the case's pool
 *   in order; the first `warmup` of them asked and checked but not counted), both peers the same
 *   search; before each, deeppage has no background build pending (an idle node), so one peer's
 *   leftover work never runs under the other's sample. Each answer is checked right after its
 *   sample, outside the timed region. The CPU time both processes spend over the case (from
 *   /proc/<pid>/stat, background work included) is reported per 100 new searches.
 * - `warm`: the case's warm search asked until deeppage's runs for it stop changing (and as often
 *   of Lucene), then sampled; every timed answer must be the checked page again.
 */
import { readFileSync } from 'node:fs';
import type { Connection } from '../front/client.ts';
import { quantile } from '../lib/format.ts';
import type { Timing } from '../lib/measure.ts';
import { WrongAnswer } from '../lib/suite.ts';
import { settled, warmRuns } from '../http/runs-state.ts';
import { PAGE, countMatches, type Case, type Search } from './cases.ts';
import { checkAnswer, checkScores, type Expected, type Page, type SearchAnswer } from './check.ts';

export type PeerName = 'lucene' | 'deeppage';
export const PEERS: PeerName[] = ['lucene', 'deeppage'];

export interface Peer {
  name: PeerName;
  url: string;
  connection: Connection;
  index: string;
  pid: number;
}

export interface CaseTiming {
  peer: PeerName;
  timing: Timing;
  /** `new` only: CPU seconds of the peer's process per 100 new searches. */
  cpuPer100?: number;
}

export interface NewResult {
  timings: CaseTiming[];
  /** Plain-JS match counts of the counted searches: the smallest and the largest. */
  matches: [number, number];
  /** The worst relative score error seen (scored cases). */
  scoreError?: number;
}

/** `from` of the case's page for a search with `matches` matches. */
export function pageFrom(kase: Case, matches: number): number {
  return kase.page === 'first' ? 0 : Math.max(0, matches - PAGE);
}

export async function sampleNew(peers: Peer[], expected: Expected, kase: Case, warmup: number, samples: number): Promise<NewResult> {
  const n = expected.corpus.ids.length;
  if (kase.fresh.length < warmup + samples) throw new Error(`${kase.name} ${kase.page}: ${kase.fresh.length} new searches, ${warmup + samples} needed`);
  const deeppage = peers.find((p) => p.name === 'deeppage')!;
  const times = new Map<PeerName, number[]>(peers.map((p) => [p.name, []]));
  const cpuBefore = new Map(peers.map((p) => [p.name, cpuSeconds(p.pid)]));
  let low = Infinity, high = 0, scoreError = 0;
  for (let s = 0; s < warmup + samples; s++) {
    const search = kase.fresh[s];
    const matches = countMatches(search, n);
    const from = pageFrom(kase, matches);
    await settled(deeppage.url);
    const pages = new Map<PeerName, Page>();
    for (const peer of s % 2 === 0 ? peers : [...peers].reverse()) {
      const { ms, answer } = await ask(peer, search, from);
      if (s >= warmup) times.get(peer.name)!.push(ms);
      pages.set(peer.name, checkAnswer(`${peer.name}: new ${kase.name} #${s} ${JSON.stringify(search.body)} from=${from}`, expected, search, matches, from, answer));
    }
    if (!search.sorted) scoreError = Math.max(scoreError, checkScores(`new ${kase.name} #${s} ${JSON.stringify(search.body)}`, pages.get('lucene')!, pages.get('deeppage')!));
    if (s >= warmup) [low, high] = [Math.min(low, matches), Math.max(high, matches)];
  }
  await settled(deeppage.url);
  const asked = warmup + samples;
  return {
    timings: peers.map((p) => ({ peer: p.name, timing: summary(times.get(p.name)!), cpuPer100: ((cpuSeconds(p.pid) - cpuBefore.get(p.name)!) / asked) * 100 })),
    matches: [low, high],
    ...(!kase.warm.sorted && { scoreError }),
  };
}

export interface WarmResult {
  timings: CaseTiming[];
  matches: number;
  scoreError?: number;
}

/** How often Lucene is asked a warm search before it is sampled (its JIT and query cache warm). */
const LUCENE_WARMING = 20;

/**
 * The case's warm search asked of both peers until warm (deeppage: until a pass leaves its runs as
 * they were; Lucene: LUCENE_WARMING times), every answer checked and the same each time; returns the
 * checked pages. Run for every case before anything is timed, and again before each warm sample run.
 */
export async function warmUp(peers: Peer[], expected: Expected, kase: Case): Promise<{ pages: Map<PeerName, Page>; matches: number; from: number; scoreError?: number }> {
  const search = kase.warm;
  const matches = countMatches(search, expected.corpus.ids.length);
  const from = pageFrom(kase, matches);
  const pages = new Map<PeerName, Page>();
  const checkedAsk = async (peer: Peer) => {
    const page = checkAnswer(`${peer.name}: warm ${kase.name} ${JSON.stringify(search.body)} from=${from}`, expected, search, matches, from, (await ask(peer, search, from)).answer);
    const before = pages.get(peer.name);
    if (before && !samePage(before, page)) throw new WrongAnswer(`${peer.name}: warm ${kase.name} from=${from} answered ${page.ids.join(',')}, before ${before.ids.join(',')}`);
    pages.set(peer.name, page);
  };
  for (const peer of peers) {
    if (peer.name === 'deeppage') await warmRuns(peer.url, peer.index, () => checkedAsk(peer));
    else for (let i = 0; i < LUCENE_WARMING; i++) await checkedAsk(peer);
  }
  const scoreError = search.sorted ? undefined : checkScores(`warm ${kase.name}`, pages.get('lucene')!, pages.get('deeppage')!);
  return { pages, matches, from, ...(scoreError !== undefined && { scoreError }) };
}

export async function sampleWarm(peers: Peer[], expected: Expected, kase: Case, samples: number): Promise<WarmResult> {
  const { pages, matches, from, scoreError } = await warmUp(peers, expected, kase);
  await settled(peers.find((p) => p.name === 'deeppage')!.url);
  const times = new Map<PeerName, number[]>(peers.map((p) => [p.name, []]));
  for (let s = 0; s < samples; s++) {
    for (const peer of s % 2 === 0 ? peers : [...peers].reverse()) {
      const { ms, answer } = await ask(peer, kase.warm, from);
      times.get(peer.name)!.push(ms);
      const ids = answer.hits?.hits?.map((hit) => hit._id);
      if (JSON.stringify(ids) !== JSON.stringify(pages.get(peer.name)!.ids)) throw new WrongAnswer(`${peer.name}: warm ${kase.name} sample ${s}: ${JSON.stringify(ids)}, the checked page is ${pages.get(peer.name)!.ids.join(',')}`);
    }
  }
  return { timings: peers.map((p) => ({ peer: p.name, timing: summary(times.get(p.name)!) })), matches, ...(scoreError !== undefined && { scoreError }) };
}

/** The floor of each peer's HTTP: `GET /` (a small JSON about the server), interleaved as the searches are. */
export async function sampleFloor(peers: Peer[], samples: number): Promise<CaseTiming[]> {
  const times = new Map<PeerName, number[]>(peers.map((p) => [p.name, []]));
  for (let s = 0; s < samples; s++) {
    for (const peer of s % 2 === 0 ? peers : [...peers].reverse()) {
      const answered = await peer.connection.send({ method: 'GET', path: '/' });
      if (answered.status !== 200) throw new WrongAnswer(`${peer.name}: GET /: status ${answered.status}`);
      times.get(peer.name)!.push(answered.ms);
    }
  }
  return peers.map((p) => ({ peer: p.name, timing: summary(times.get(p.name)!) }));
}

async function ask(peer: Peer, search: Search, from: number): Promise<{ ms: number; answer: SearchAnswer }> {
  const body = JSON.stringify({ ...search.body, from, size: PAGE, _source: false });
  const answered = await peer.connection.send({ method: 'POST', path: `/${encodeURIComponent(peer.index)}/_search`, body });
  if (answered.status !== 200) throw new WrongAnswer(`${peer.name}: POST /${peer.index}/_search ${body}: status ${answered.status}: ${answered.body.slice(0, 300)}`);
  return { ms: answered.ms, answer: JSON.parse(answered.body) as SearchAnswer };
}

function samePage(a: Page, b: Page): boolean {
  return a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i] && a.values[i] === b.values[i]);
}

function summary(samples: number[]): Timing {
  const sorted = Float64Array.from(samples).sort();
  const round = (ms: number) => Math.round(ms * 1e4) / 1e4;
  return { median: round(quantile(sorted, 0.5)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]), samples: sorted.length };
}

/** User plus system CPU time of a process so far, in seconds (Linux /proc; clock ticks at 100 Hz). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
