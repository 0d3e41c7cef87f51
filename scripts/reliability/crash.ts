/**
 * The crash check, `npm run reliability -- crash [--cycles 20] [--seed N] [--out bench/results]`:
 * the real server under concurrent writes, flushes, merges and searches, killed
 * with SIGKILL at a random (seeded) moment, restarted on the same data directory and checked
 * against what it acknowledged ({@link WriteModel}), cycle after cycle.
 *
 * Per cycle: a `_bulk` writer (index, update and delete items), single-document writers (PUT, POST
 * with a generated id, `_create`, DELETE), a `_flush` caller and a reader walking a point in time
 * with search_after run against the node; small batches and a 50 ms refresh interval pile segments
 * up, so refreshes merge them. Then SIGKILL, a restart, and {@link WriteModel.verify}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../../bench/lib/data.ts';
import { esOk, esRequest } from '../../bench/lib/es-client.ts';
import { killServers, serverProcess } from '../../test/e2e/server-process.ts';
import { finish } from './summary.ts';
import { WriteModel, type Source } from './write-model.ts';

export interface CrashOptions {
  cycles: number;
  seed: number;
  /** The kill comes after a delay drawn uniformly from [min, max), in ms. */
  killAfterMs: readonly [min: number, max: number];
  /** How many document ids the writers share (so that ids are rewritten and deleted often). */
  ids: number;
  log(line: string): void;
}

export interface CycleRecord {
  cycle: number;
  killed_after_ms: number;
  acknowledged: number;
  unanswered: number;
  flushes: number;
  pit_walks: number;
  restart_ms: number;
  live: number;
  lost: number;
  problems: string[];
}

export interface CrashSummary {
  check: 'crash';
  seed: number;
  cycles: number;
  acknowledged: number;
  unanswered: number;
  /** The figure: acknowledged writes the node no longer shows after a restart (goal 0). */
  lost: number;
  lost_ids: string[];
  problems: string[];
  per_cycle: CycleRecord[];
}

const INDEX = 'crash';

/** The command line: returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { cycles: { type: 'string', default: '20' }, seed: { type: 'string' }, out: { type: 'string', default: 'bench/results' } } });
  const cycles = Number(values.cycles);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(cycles) || cycles < 1 || !Number.isInteger(seed)) {
    console.error('usage: npm run reliability -- crash [--cycles N] [--seed N] [--out DIR]  (N whole numbers)');
    return 2;
  }
  const log = (line: string) => console.error(`crash: ${line}`);
  const started = performance.now();
  log(`${cycles} cycles, seed ${seed} (--seed ${seed} draws the same kill moments and requests again)`);
  const summary = await crashCycles({ cycles, seed, killAfterMs: [500, 4_000], ids: 2_000, log });
  log(`${summary.acknowledged} writes acknowledged, ${summary.unanswered} cut off by the kills`);
  return finish(summary, values.out!, started, log);
}

export async function crashCycles(options: CrashOptions): Promise<CrashSummary> {
  const dir = mkdtempSync(join(tmpdir(), 'deeppage.crash-'));
  const model = new WriteModel(INDEX);
  const random = uniform(options.seed);
  const summary: CrashSummary = { check: 'crash', seed: options.seed, cycles: options.cycles, acknowledged: 0, unanswered: 0, lost: 0, lost_ids: [], problems: [], per_cycle: [] };
  let n = 0;
  try {
    let server = serverProcess(dir);
    let url = await server.url;
    await esOk(url, 'PUT', `/${INDEX}`, JSON.stringify({
      settings: { number_of_shards: 3, refresh_interval: '50ms' },
      mappings: { properties: { n: { type: 'long' }, by: { type: 'keyword' }, op: { type: 'keyword' } } },
    }));
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const before = { acknowledged: model.acknowledged, unanswered: model.unanswered };
      const load = new Load(url, model, options.ids, () => n++, uniform(options.seed * 1_000 + cycle));
      const killAfter = Math.round(options.killAfterMs[0] + random() * (options.killAfterMs[1] - options.killAfterMs[0]));
      const running = load.run();
      await sleep(killAfter);
      load.killed = true;
      server.child.kill('SIGKILL');
      await server.exited;
      await running;

      const started = performance.now();
      server = serverProcess(dir);
      url = await server.url;
      const restartMs = Math.round(performance.now() - started);
      const verdict = await model.verify(url);
      const record: CycleRecord = {
        cycle,
        killed_after_ms: killAfter,
        acknowledged: model.acknowledged - before.acknowledged,
        unanswered: model.unanswered - before.unanswered,
        flushes: load.flushes,
        pit_walks: load.walks,
        restart_ms: restartMs,
        live: verdict.live,
        lost: verdict.lost.length,
        problems: [...load.problems, ...verdict.problems],
      };
      summary.per_cycle.push(record);
      summary.lost += verdict.lost.length;
      summary.lost_ids.push(...verdict.lost);
      summary.problems.push(...record.problems.map((p) => `cycle ${cycle}: ${p}`));
      options.log(
        `cycle ${cycle}/${options.cycles}: SIGKILL after ${killAfter} ms; ${record.acknowledged} writes acknowledged, ${record.unanswered} cut off, ` +
          `${record.flushes} flushes, ${record.pit_walks} PIT walks; restarted in ${restartMs} ms; ${verdict.gets} ids read, ${verdict.live} live, ` +
          `${verdict.searches} searches; lost ${record.lost}${record.problems.length ? `; ${record.problems.length} problems: ${record.problems.slice(0, 3).join('; ')}` : ''}`,
      );
    }
    // The last node stops cleanly, as a node does after a crash.
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    if (code !== 0) summary.problems.push(`SIGTERM after the last cycle: exit code ${code}`);
  } finally {
    killServers();
    rmSync(dir, { recursive: true, force: true });
  }
  summary.acknowledged = model.acknowledged;
  summary.unanswered = model.unanswered;
  return summary;
}

/** One cycle's clients, until the kill. */
class Load {
  killed = false;
  flushes = 0;
  walks = 0;
  readonly problems: string[] = [];

  constructor(
    private readonly url: string,
    private readonly model: WriteModel,
    private readonly ids: number,
    private readonly nextN: () => number,
    private readonly random: () => number,
  ) {}

  run(): Promise<unknown> {
    return Promise.all([this.#bulkWriter('bulk'), this.#singleWriter('single-1'), this.#singleWriter('single-2'), this.#singleWriter('single-3'), this.#flusher(), this.#pitWalker()]);
  }

  #id(): string {
    return `d${Math.floor(this.random() * this.ids)}`;
  }

  #source(by: string, op: string): Source {
    return { n: this.nextN(), by, op };
  }

  /** A request; undefined once the kill cut it off (any failure before the kill is a problem). */
  async #request(method: string, path: string, body?: string, contentType?: string): Promise<{ status: number; json: any } | undefined> {
    try {
      return await esRequest(this.url, method, path, body, contentType);
    } catch (error) {
      if (!this.killed) this.problems.push(`${method} ${path}: ${(error as Error).message}`);
      return undefined;
    }
  }

  async #bulkWriter(by: string): Promise<void> {
    while (!this.killed) {
      const items = Array.from({ length: 10 + Math.floor(this.random() * 40) }, () => {
        const r = this.random(), id = this.#id();
        if (r < 0.6) return { action: 'index', id, state: this.#source(by, 'index') as Source | null };
        if (r < 0.8) return { action: 'update', id, state: this.#source(by, 'update') as Source | null };
        return { action: 'delete', id, state: null as Source | null };
      });
      const body = items
        .map(({ action, id, state }) => `{"${action}":{"_id":"${id}"}}\n` + (action === 'index' ? `${JSON.stringify(state)}\n` : action === 'update' ? `{"doc":${JSON.stringify(state)}}\n` : ''))
        .join('');
      const answer = await this.#request('POST', `/${INDEX}/_bulk`, body, 'application/x-ndjson');
      if (!answer) {
        for (const { id, state } of items) this.model.unanswer(id, state);
        return;
      }
      if (answer.status !== 200) {
        this.problems.push(`_bulk: status ${answer.status}: ${JSON.stringify(answer.json).slice(0, 200)}`);
        continue;
      }
      (answer.json.items as Record<string, { status: number; _seq_no: number; _version: number; error?: unknown }>[]).forEach((item, i) => {
        const { action, id, state } = items[i];
        const result = item[action];
        if (result.status < 300 || (action === 'delete' && result.status === 404)) this.model.ack(id, state, result._seq_no, result._version);
        // An update of a missing document writes nothing.
        else if (!(action === 'update' && result.status === 404)) this.problems.push(`_bulk ${action} ${id}: ${result.status} ${JSON.stringify(result.error)}`);
      });
    }
  }

  async #singleWriter(by: string): Promise<void> {
    while (!this.killed) {
      const r = this.random();
      if (r < 0.45) {
        const id = this.#id(), state = this.#source(by, 'index');
        const answer = await this.#request('PUT', `/${INDEX}/_doc/${id}`, JSON.stringify(state));
        if (!answer) return this.model.unanswer(id, state);
        this.#acked(answer, id, state, [200, 201]);
      } else if (r < 0.6) {
        const state = this.#source(by, 'create');
        const answer = await this.#request('POST', `/${INDEX}/_doc`, JSON.stringify(state));
        if (!answer) return this.model.unanswer(undefined, state);
        this.#acked(answer, answer.json._id, state, [201]);
      } else if (r < 0.75) {
        const id = this.#id(), state = this.#source(by, 'create');
        const answer = await this.#request('PUT', `/${INDEX}/_create/${id}`, JSON.stringify(state));
        if (!answer) return this.model.unanswer(id, state);
        // 409: the document exists, nothing written.
        if (answer.status !== 409) this.#acked(answer, id, state, [201]);
      } else {
        const id = this.#id();
        const answer = await this.#request('DELETE', `/${INDEX}/_doc/${id}`);
        if (!answer) return this.model.unanswer(id, null);
        this.#acked(answer, id, null, [200, 404]);
      }
    }
  }

  #acked(answer: { status: number; json: any }, id: string, state: Source | null, statuses: number[]): void {
    if (statuses.includes(answer.status)) this.model.ack(id, state, answer.json._seq_no, answer.json._version);
    else this.problems.push(`${id}: status ${answer.status}: ${JSON.stringify(answer.json).slice(0, 200)}`);
  }

  async #flusher(): Promise<void> {
    while (!this.killed) {
      const answer = await this.#request('POST', `/${INDEX}/_flush`);
      if (!answer) return;
      if (answer.status !== 200) this.problems.push(`_flush: status ${answer.status}: ${JSON.stringify(answer.json).slice(0, 200)}`);
      else this.flushes++;
      await sleep(50 + this.random() * 250);
    }
  }

  /** Walks a point in time with search_after: every document once, as many as its total. */
  async #pitWalker(): Promise<void> {
    while (!this.killed) {
      const opened = await this.#request('POST', `/${INDEX}/_pit?keep_alive=1m`);
      if (!opened) return;
      const pit = opened.json.id as string;
      const seen = new Set<string>();
      let after: unknown[] | undefined, total = -1;
      for (;;) {
        const page = await this.#request('POST', '/_search', JSON.stringify({ size: 200, pit: { id: pit, keep_alive: '1m' }, sort: [{ n: 'asc' }], track_total_hits: true, ...(after && { search_after: after }) }));
        if (!page) return;
        if (page.status !== 200) {
          this.problems.push(`PIT page: status ${page.status}: ${JSON.stringify(page.json).slice(0, 200)}`);
          break;
        }
        const hits = page.json.hits.hits as { _id: string; sort: unknown[] }[];
        if (total < 0) total = page.json.hits.total.value;
        for (const hit of hits) {
          if (seen.has(hit._id)) this.problems.push(`PIT walk: ${hit._id} twice`);
          seen.add(hit._id);
        }
        if (hits.length === 0) break;
        after = hits[hits.length - 1].sort;
      }
      if (seen.size !== total) this.problems.push(`PIT walk: ${seen.size} documents, total ${total}`);
      this.walks++;
      await this.#request('DELETE', '/_pit', JSON.stringify({ id: pit }));
    }
  }
}

/** Seeded doubles in [0, 1). */
export function uniform(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 2 ** 32;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
