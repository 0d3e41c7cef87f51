/**
 * deeppage's sorted runs as the HTTP API shows them, for putting a server in a known state before
 * timing: `GET /_nodes/stats` (node-wide counters, including runs built in the background),
 * `GET /{index}/_stats` (the runs an index holds) and `POST /{index}/_cache/clear` (drops them).
 */
import { esOk } from '../lib/es-client.ts';
import { WrongAnswer } from '../lib/suite.ts';

/** `indices.sorted_runs` of `GET /_nodes/stats` or `_all.primaries.sorted_runs` of `GET /{index}/_stats`. */
export interface RunStats {
  count: number;
  memory_size_in_bytes: number;
  limit_size_in_bytes?: number;
  evictions?: number;
  background_builds?: number;
  /** Builds queued on the server (deeppage reports it; absent on older servers). */
  pending_builds?: number;
}

/** The node's run counters (deeppage is one node). */
export async function nodeRuns(url: string): Promise<RunStats> {
  const { body } = await esOk<{ nodes?: Record<string, { indices?: { sorted_runs?: RunStats } }> }>(url, 'GET', '/_nodes/stats');
  const runs = Object.values(body.nodes ?? {})[0]?.indices?.sorted_runs;
  if (typeof runs?.count !== 'number' || typeof runs.background_builds !== 'number') {
    throw new WrongAnswer(`GET /_nodes/stats: no nodes.<id>.indices.sorted_runs with count and background_builds: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return runs;
}

/** The runs `index` holds. */
export async function indexRuns(url: string, index: string): Promise<RunStats> {
  const path = `/${encodeURIComponent(index)}/_stats`;
  const { body } = await esOk<{ _all?: { primaries?: { sorted_runs?: RunStats } } }>(url, 'GET', path);
  const runs = body._all?.primaries?.sorted_runs;
  if (typeof runs?.count !== 'number') throw new WrongAnswer(`GET ${path}: no _all.primaries.sorted_runs.count: ${JSON.stringify(body).slice(0, 300)}`);
  return runs;
}

const POLL_MS = 20;
const SETTLE_LIMIT_MS = 300_000;

/**
 * Resolves once no run is being built in the background: the server reports no queued build, and
 * two reads of the node's counters POLL_MS apart agree.
 */
export async function settled(url: string): Promise<RunStats> {
  const started = performance.now();
  let before = await nodeRuns(url);
  for (;;) {
    await sleep(POLL_MS);
    const now = await nodeRuns(url);
    if (!now.pending_builds && now.background_builds === before.background_builds && now.count === before.count) return now;
    if (performance.now() - started > SETTLE_LIMIT_MS) throw new WrongAnswer(`${url}: sorted runs still being built after ${SETTLE_LIMIT_MS / 1000} s`);
    before = now;
  }
}

/** `POST /{index}/_cache/clear`, then checks that the index holds no run. */
export async function clearRuns(url: string, index: string): Promise<void> {
  await esOk(url, 'POST', `/${encodeURIComponent(index)}/_cache/clear`);
  const left = await indexRuns(url, index);
  if (left.count !== 0) throw new WrongAnswer(`POST /${index}/_cache/clear: the index still holds ${left.count} sorted runs`);
}

const WARM_PASSES = 5;

/**
 * Puts `index` in the warm state: `askAll` (the searches to be timed, each asked and checked), then
 * no background build pending; again until a whole pass leaves the index's runs as they were.
 * Returns the runs.
 */
export async function warmRuns(url: string, index: string, askAll: (pass: number) => Promise<void>): Promise<RunStats> {
  let last: RunStats | undefined;
  for (let pass = 0; pass < WARM_PASSES; pass++) {
    await askAll(pass);
    await settled(url);
    const now = await indexRuns(url, index);
    if (last && now.count === last.count && now.memory_size_in_bytes === last.memory_size_in_bytes) return now;
    last = now;
  }
  throw new WrongAnswer(`${index}: the sorted runs still change after ${WARM_PASSES} passes over the searches (${last!.count} runs): no warm state to measure`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
