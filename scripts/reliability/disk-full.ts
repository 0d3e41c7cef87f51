/**
 * The disk-full check, `npm run reliability -- disk-full [--storage auto|tmpfs|injected] [--out
 * bench/results]`: the real server with its data directory on a small tmpfs, filled with a
 * ballast file. Writes that do not fit must fail as Elasticsearch fails writes past its flood-stage
 * watermark (429 `cluster_block_exception`, per item in a `_bulk`), never as a crash, a bare 500 or a
 * half-applied batch; reads go on; once the ballast goes, writes succeed again without a restart; and
 * after a restart every acknowledged write is there and no refused one ({@link WriteModel}).
 *
 * Where this process may not mount a tmpfs, a fault-injecting store stands in for the full disk
 * (every commit refused as lmdb refuses it on a full disk, in a server in this process), and the
 * summary says so: that checks the engine and HTTP sides, not lmdb's.
 */
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { esOk, esRequest } from '../../bench/lib/es-client.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import type { DocStore } from '../../src/store/doc-store.ts';
import { StorageError } from '../../src/store/storage-error.ts';
import { killServers, serverProcess, type ServerProcess } from '../../test/e2e/server-process.ts';
import { finish } from './summary.ts';
import { WriteModel, type Source } from './write-model.ts';
import { tmpfsAllowed, withTmpfs } from './tmpfs.ts';

export type DiskStorage = 'tmpfs' | 'fault-injecting store';

export interface DiskFullOptions {
  /** `auto` (the default): a tmpfs where mounting one is allowed, else the fault-injecting store. */
  storage?: 'auto' | 'tmpfs' | 'injected';
  log(line: string): void;
}

export interface DiskFullSummary {
  check: 'disk-full';
  storage: DiskStorage;
  /** Why the fault-injecting store stood in for a real full disk. */
  fallback_reason?: string;
  acknowledged: number;
  /** Writes refused with the flood-stage 429. */
  refused: number;
  /** The figure: acknowledged writes missing after the restarts (goal 0). */
  lost: number;
  lost_ids: string[];
  problems: string[];
  steps: string[];
}

/** The node under test, on storage that can be filled and freed. */
interface DiskNode {
  readonly storage: DiskStorage;
  url: string;
  start(): Promise<void>;
  /** SIGKILL or SIGTERM (a node in this process closes either way); a problem if a SIGTERM does not end it cleanly. */
  stop(how: 'kill' | 'term'): Promise<string | undefined>;
  /** What {@link stop} does, for the log. */
  readonly stops: Record<'kill' | 'term', string>;
  /** Leaves (next to) no space for the store. */
  fill(): void;
  free(): void;
  alive(): boolean;
  /** If the node died on its own: how (its last lines). */
  death(): Promise<string | undefined>;
}

const INDEX = 'full';
const TMPFS_BYTES = 64 << 20;
/** What the ballast leaves free: a few batches' worth. */
const HEADROOM_BYTES = 2 << 20;
/** The largest document written: more than a full disk has room for. */
const BIG_BYTES = 2 << 20;
const BLOCK_REASON = `index [${INDEX}] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];`;
const STOP_MS = 30_000;

/** The command line: returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { storage: { type: 'string', default: 'auto' }, out: { type: 'string', default: 'bench/results' } } });
  const storage = values.storage as DiskFullOptions['storage'];
  if (!['auto', 'tmpfs', 'injected'].includes(storage!)) {
    console.error('usage: npm run reliability -- disk-full [--storage auto|tmpfs|injected] [--out DIR]');
    return 2;
  }
  const log = (line: string) => console.error(`disk-full: ${line}`);
  const started = performance.now();
  const summary = await diskFullCheck({ storage, log });
  log(`on ${summary.storage}${summary.fallback_reason ? ` (no tmpfs: ${summary.fallback_reason})` : ''}: ${summary.acknowledged} writes acknowledged, ${summary.refused} refused with 429`);
  return finish(summary, values.out!, started, log);
}

export async function diskFullCheck(options: DiskFullOptions): Promise<DiskFullSummary> {
  const storage = options.storage ?? 'auto';
  const mount = storage === 'injected' ? { allowed: false as const, why: 'asked for (--storage injected)' } : tmpfsAllowed();
  if (storage === 'tmpfs' && !mount.allowed) throw new Error(`cannot check on a tmpfs: ${mount.why}`);
  if (mount.allowed) {
    return withTmpfs(TMPFS_BYTES, async (dir) => {
      try {
        return await new DiskFullRun(tmpfsNode(dir), options.log).run();
      } finally {
        // Before the unmount: nothing may hold a file there.
        killServers();
      }
    });
  }
  options.log(`no tmpfs (${mount.why}); a fault-injecting store stands in for the full disk`);
  const dir = mkdtempSync(join(tmpdir(), 'deeppage.disk-full-'));
  try {
    const summary = await new DiskFullRun(injectedNode(dir), options.log).run();
    return { ...summary, fallback_reason: mount.why };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

class DiskFullRun {
  readonly #model = new WriteModel(INDEX);
  readonly #summary: DiskFullSummary;
  #n = 0;

  constructor(
    private readonly node: DiskNode,
    private readonly log: (line: string) => void,
  ) {
    this.#summary = { check: 'disk-full', storage: node.storage, acknowledged: 0, refused: 0, lost: 0, lost_ids: [], problems: [], steps: [] };
  }

  async run(): Promise<DiskFullSummary> {
    try {
      await this.#steps();
    } catch (error) {
      const death = await this.node.death();
      this.#problem(`stopped: ${(error as Error).message}${death ? `; the server died: ${death}` : ''}`);
    }
    this.#summary.acknowledged = this.#model.acknowledged;
    return this.#summary;
  }

  async #steps(): Promise<void> {
    const { node } = this;
    await node.start();
    await esOk(node.url, 'PUT', `/${INDEX}`, JSON.stringify({ settings: { number_of_shards: 2 }, mappings: { dynamic: false, properties: { n: { type: 'long' } } } }));
    for (let i = 0; i < 5; i++) await this.#bulk(100, 1_000);
    this.#step(`${node.storage}: ${this.#model.acknowledged} documents written`);

    node.fill();
    const rounds = await this.#writeUntilRefused();
    this.#step(`filled: the first refusal after ${rounds} bulk${rounds === 1 ? '' : 's'} of 100 documents`);
    await this.#whileFull();

    node.free();
    await this.#big(201);
    if ((await this.#bulk(100, 2_000)) !== 'acknowledged') this.#problem('after the ballast went: a bulk was not acknowledged in full');
    await this.#flush([200]);
    this.#step('space freed: writes succeed again, no restart');
    await this.#restart('kill');

    // A clean stop with the disk full: its last flush may be refused; the store must still close.
    node.fill();
    await this.#writeUntilRefused();
    const unclean = await node.stop('term');
    if (unclean) this.#problem(unclean);
    else this.#step(`${node.stops.term} with the disk full: stopped cleanly`);
    node.free();
    await node.start();
    await this.#verify('restart after a full-disk shutdown');
    const last = await node.stop('term');
    if (last) this.#problem(last);
  }

  /** Bulks until one is refused; how many it took. */
  async #writeUntilRefused(): Promise<number> {
    for (let round = 1; round <= 2_000; round++) {
      if ((await this.#bulk(100, 2_000)) === 'refused') return round;
    }
    this.#problem('the disk never filled: no write was refused');
    return 0;
  }

  /** What must hold while the disk is full. */
  async #whileFull(): Promise<void> {
    const { node } = this;
    await this.#big(429);
    // One batch: refused as a whole (or, should the store find room after all, written as a whole).
    const outcome = await this.#bulk(8, BIG_BYTES / 4);
    if (outcome === 'mixed') this.#problem('while full: a bulk was applied in part');
    await this.#flush([200, 429]);
    const some = (await esOk<{ hits: { hits: { _id: string; _source: Source }[] } }>(node.url, 'POST', `/${INDEX}/_search`, JSON.stringify({ size: 5, sort: [{ n: 'desc' }] }))).body.hits.hits;
    if (some.length !== 5) this.#problem(`while full: a search found ${some.length} documents`);
    for (const hit of some) {
      const got = await esRequest(node.url, 'GET', `/${INDEX}/_doc/${hit._id}`);
      if (got.status !== 200) this.#problem(`while full: GET ${hit._id}: ${got.status}`);
    }
    await esOk(node.url, 'POST', `/${INDEX}/_refresh`);
    const { body } = await esOk<{ count: number }>(node.url, 'GET', `/${INDEX}/_count`);
    if (body.count !== this.#model.live) this.#problem(`while full: _count ${body.count}, acknowledged ${this.#model.live} live`);
    if (!node.alive()) this.#problem('the server died with the disk full');
    this.#step('while full: single and bulk writes refused with 429 cluster_block_exception, reads and _count answer, the server runs');
  }

  /** A bulk of `count` new documents with `pad` bytes each; how it went, every item checked. */
  async #bulk(count: number, pad: number): Promise<'acknowledged' | 'refused' | 'mixed'> {
    const docs = Array.from({ length: count }, () => this.#doc(pad));
    const body = docs.map(({ id, source }) => `{"index":{"_id":"${id}"}}\n${JSON.stringify(source)}\n`).join('');
    const answer = await esRequest(this.node.url, 'POST', `/${INDEX}/_bulk`, body, 'application/x-ndjson');
    if (answer.status !== 200) {
      this.#problem(`_bulk: status ${answer.status}: ${JSON.stringify(answer.json).slice(0, 300)}`);
      docs.forEach(({ id }) => this.#model.refuse(id));
      return 'refused';
    }
    const items = (answer.json as { items: { index: { status: number; _seq_no: number; _version: number; error?: { type: string; reason: string } } }[] }).items;
    let acked = 0;
    items.forEach(({ index: item }, i) => {
      const { id, source } = docs[i];
      if (item.status < 300) {
        acked++;
        this.#model.ack(id, source, item._seq_no, item._version);
        return;
      }
      this.#refused(`_bulk item ${id}`, item.status, item.error);
      this.#model.refuse(id);
    });
    return acked === items.length ? 'acknowledged' : acked === 0 ? 'refused' : 'mixed';
  }

  /** A single PUT of a document larger than a full disk has room for, which must answer `status`. */
  async #big(status: 201 | 429): Promise<void> {
    const { id, source } = this.#doc(BIG_BYTES);
    const answer = await esRequest(this.node.url, 'PUT', `/${INDEX}/_doc/${id}`, JSON.stringify(source));
    const body = answer.json as { _seq_no: number; _version: number; error?: unknown };
    if (answer.status === 201 && status === 201) return this.#model.ack(id, source, body._seq_no, body._version);
    this.#model.refuse(id);
    if (status === 201) return this.#problem(`PUT of ${BIG_BYTES} bytes with space free: ${answer.status} ${JSON.stringify(body).slice(0, 300)}`);
    // ES's error body, exactly.
    const expected = { error: { root_cause: [{ type: 'cluster_block_exception', reason: BLOCK_REASON }], type: 'cluster_block_exception', reason: BLOCK_REASON }, status: 429 };
    if (answer.status !== 429 || JSON.stringify(body) !== JSON.stringify(expected)) this.#problem(`PUT of ${BIG_BYTES} bytes on a full disk: ${answer.status} ${JSON.stringify(body).slice(0, 300)}`);
    else this.#summary.refused++;
  }

  async #flush(allowed: number[]): Promise<void> {
    const answer = await esRequest(this.node.url, 'POST', `/${INDEX}/_flush`);
    if (answer.status === 429) this.#refused('_flush', 429, (answer.json as { error: { type: string; reason: string } }).error);
    else if (!allowed.includes(answer.status)) this.#problem(`_flush: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
  }

  /** A refusal must be the flood-stage block, to the letter. */
  #refused(what: string, status: number, error?: { type: string; reason: string }): void {
    if (status === 429 && error?.type === 'cluster_block_exception' && error.reason === BLOCK_REASON) this.#summary.refused++;
    else this.#problem(`${what}: ${status} ${JSON.stringify(error).slice(0, 300)}`);
  }

  async #restart(how: 'kill' | 'term'): Promise<void> {
    const problem = await this.node.stop(how);
    if (problem) this.#problem(problem);
    await this.node.start();
    await this.#verify(`restart after ${this.node.stops[how]}`);
  }

  async #verify(what: string): Promise<void> {
    const verdict = await this.#model.verify(this.node.url);
    this.#summary.lost += verdict.lost.length;
    this.#summary.lost_ids.push(...verdict.lost);
    for (const p of verdict.problems) this.#problem(`${what}: ${p}`);
    this.#step(`${what}: ${verdict.gets} ids read, ${verdict.live} live, lost ${verdict.lost.length}`);
  }

  #doc(pad: number): { id: string; source: Source } {
    const n = this.#n++;
    return { id: `f${n}`, source: { n, pad: 'x'.repeat(pad) } };
  }

  #step(line: string): void {
    this.#summary.steps.push(line);
    this.log(line);
  }

  #problem(line: string): void {
    this.#summary.problems.push(line);
    this.log(`PROBLEM: ${line}`);
  }
}

function tmpfsNode(mount: string): DiskNode {
  const dataDir = join(mount, 'data');
  const ballast = join(mount, 'ballast');
  let server: ServerProcess | undefined;
  return {
    storage: 'tmpfs',
    stops: { kill: 'SIGKILL', term: 'SIGTERM' },
    url: '',
    async start() {
      server = serverProcess(dataDir);
      this.url = await server.url;
    },
    async stop(how) {
      const current = server!;
      current.child.kill(how === 'kill' ? 'SIGKILL' : 'SIGTERM');
      const timer = setTimeout(() => current.child.kill('SIGKILL'), STOP_MS);
      const { code, signal, stderr } = await current.exited.finally(() => clearTimeout(timer));
      if (how === 'kill' || code === 0) return undefined;
      return `SIGTERM: ended with ${signal ?? `exit code ${code}`}${signal === 'SIGKILL' ? ` (still running ${STOP_MS / 1000} s after SIGTERM)` : ''}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`;
    },
    fill() {
      const { bavail, bsize } = statfsSync(mount);
      writeFileSync(ballast, Buffer.alloc(Math.max(0, bavail * bsize - HEADROOM_BYTES)));
    },
    free() {
      rmSync(ballast, { force: true });
    },
    alive() {
      return server !== undefined && server.child.exitCode === null && server.child.signalCode === null;
    },
    async death() {
      if (!server || this.alive()) return undefined;
      const { code, signal, stderr } = await server.exited;
      return `${signal ?? `exit code ${code}`}: ${stderr.trim().split('\n').slice(-8).join(' | ')}`;
    },
  };
}

/** A server in this process whose store refuses every commit while "full", as lmdb does on a full disk. */
function injectedNode(dataDir: string): DiskNode {
  let running: RunningServer | undefined;
  let full = false;
  const refuse = (store: DocStore) => {
    for (const name of ['write', 'commitShard', 'deleteIndex', 'putTask', 'removeTask'] as const) {
      const original = store[name].bind(store) as (...args: unknown[]) => Promise<void>;
      (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
        full ? Promise.reject(new StorageError('No space left on device (injected)', true, 28)) : original(...args);
    }
  };
  return {
    storage: 'fault-injecting store',
    stops: { kill: 'a close (in process)', term: 'a close (in process)' },
    url: '',
    async start() {
      running = await startServer({ dataDir, port: 0 });
      refuse(running.engine.store);
      this.url = running.url;
    },
    async stop() {
      await running!.close();
      return undefined;
    },
    fill() {
      full = true;
    },
    free() {
      full = false;
    },
    alive() {
      return true;
    },
    async death() {
      return undefined;
    },
  };
}
