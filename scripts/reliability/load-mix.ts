/**
 * The load check's requests: one autocannon run over a cities index with a mix of searches and
 * writes, each connection walking {@link CYCLE} in order and starting again at its end.
 *
 * A cycle: shallow and deep sorted pages (`from` up to the index's `max_result_window`), `q=` and
 * DSL queries (filters, `match`), `_count`, a point in time walked with `search_after` and closed,
 * a scroll continued and cleared, a real-time GET, a single-document PUT and a small `_bulk`. The
 * point in time and the scroll are the connection's own: autocannon's per-connection `context`
 * carries their ids from one request to the next, and is emptied at each new cycle.
 *
 * Every answer is classified: the expected statuses (404 only for a GET of a document the load has
 * not written yet), and a body check where a 200 can still carry a failure (`_shards.failed`,
 * `_bulk`'s `errors`). Writes go to ids `load-0`…`load-{LOAD_IDS - 1}` with `country` "ZZ" (no
 * city has it) and a population below 500, so the pages of large cities never change under load;
 * every acknowledged write is recorded with its `_seq_no`, so what the index must hold afterwards
 * is known ({@link WriteLedger}).
 */
import autocannon from 'autocannon';
import { mulberry32 } from '../../bench/lib/data.ts';

/** The ids the load writes: few enough that documents are overwritten (deletes in segments, merges). */
export const LOAD_IDS = 5_000;
export const LOAD_COUNTRY = 'ZZ';
const BULK_DOCS = 20;

export interface MixTarget {
  /** Base URL, no path. */
  url: string;
  index: string;
  /** The index's `max_result_window`: deep pages reach up to it. */
  window: number;
}

/** What a request of the mix is, for counting and latency by kind. */
export type Kind = 'shallow' | 'deep' | 'deep-other-sort' | 'q' | 'dsl-filter' | 'dsl-match' | 'count' | 'pit-open' | 'pit-page' | 'pit-after' | 'pit-close' | 'scroll-start' | 'scroll-next' | 'scroll-clear' | 'get' | 'put' | 'bulk';

export interface MixFigures {
  /** Answers, and unexpected ones (a status not expected, or a body that failed its check), by kind. */
  answers: Record<string, number>;
  unexpected: Record<string, number>;
  /** The first few unexpected answers, for the report. */
  samples: string[];
  /** Connection errors (timeouts included) and timeouts, from autocannon. */
  connectionErrors: number;
  timeouts: number;
  /** Latency in ms of every answer, in arrival order, and its kind. */
  latencies: Float64Array;
  kinds: Kind[];
  /** When each answer came, in ms from the start of the run. */
  at: Float64Array;
  seconds: number;
}

/**
 * Acknowledged writes by id: the `_seq_no` of the last one the server answered, and whether it left
 * the document live. One id always goes to one shard, so its seqs are ordered. A write sent but
 * never answered (the run ended with it in flight) may or may not have happened: its ids are
 * uncertain for good, since it may have been applied after any later acknowledged one.
 */
export class WriteLedger {
  readonly #last = new Map<string, { seq: number; live: boolean }>();
  readonly #uncertain = new Set<string>();

  record(id: string, seq: number, live: boolean): void {
    const known = this.#last.get(id);
    if (!known || known.seq < seq) this.#last.set(id, { seq, live });
  }

  unanswered(ids: Iterable<string>): void {
    for (const id of ids) this.#uncertain.add(id);
  }

  /** Ids whose last acknowledged write left them live, uncertain ones left out. */
  live(): string[] {
    return [...this.#last].filter(([id, last]) => last.live && !this.#uncertain.has(id)).map(([id]) => id);
  }

  /** Ids a write without an answer touched. */
  uncertain(): string[] {
    return [...this.#uncertain];
  }

  /** Ids written (acknowledged or not). */
  get size(): number {
    return new Set([...this.#last.keys(), ...this.#uncertain]).size;
  }
}

type Context = Record<string, unknown>;
interface Step {
  kind: Kind;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path and body for this cycle, and the ids it writes; undefined skips the rest of the cycle (its state is missing). */
  make(context: Context, next: () => number): { path: string; body?: unknown; ndjson?: string; writes?: string[] } | undefined;
  /** Statuses that are not errors (default 200, 201). */
  expect?: readonly number[];
  /** A 2xx answer must pass this too. */
  check?(body: string): boolean;
  /** Reads what the next steps need (ids, positions) and records writes. */
  read?(body: string, context: Context, ledger: WriteLedger): void;
}

const SORTS = ['name.keyword:asc', 'country:asc,population:desc', 'location.lat:desc', 'admin_code:asc,name.keyword:desc'];
const Q = ['name:paris', 'country:FR AND population:>100000', 'name:san*', 'new york', 'feature_code:PPLC', 'country:(DE OR AT) AND population:[5000 TO 20000]'];
const COUNTRIES = ['US', 'IT', 'MX', 'FR', 'DE', 'ES', 'RU', 'GB', 'IN', 'BR', 'JP'];
/**
 * Filters come from small sets, as real traffic repeats its queries: each distinct query keeps a
 * sorted run per segment (the run cache, up to its budget), so values drawn from a wide range would
 * make memory grow for as long as the run lasts, by design, and hide a leak.
 */
const POPULATIONS = [0, 1000, 5000, 20_000, 100_000];
const WORDS = ['san jose', 'saint', 'new', 'port', 'lake', 'santa maria', 'villa', 'north', 'bad'];

const pick = <T>(list: readonly T[], next: () => number): T => list[next() % list.length];
const searchOk = (body: string) => body.includes('"failed":0');

/** Search steps answer 200 with every shard successful. */
function search(kind: Kind, make: Step['make'], extra: Partial<Step> = {}): Step {
  return { kind, method: kind.startsWith('dsl') || kind.startsWith('pit') || kind.startsWith('scroll') ? 'POST' : 'GET', make, check: searchOk, ...extra };
}

function loadDoc(id: number, next: () => number): Record<string, unknown> {
  return { name: `Loadtown ${id}`, country: LOAD_COUNTRY, feature_code: 'PPL', admin_code: String(next() % 100), population: next() % 500, location: { lat: (next() % 18000) / 100 - 90, lon: (next() % 36000) / 100 - 180 } };
}

/** One connection's cycle. */
function cycle({ index, window }: MixTarget): Step[] {
  const pitBody = (context: Context, after?: unknown) => ({ size: 100, pit: { id: context.pit, keep_alive: '1m' }, sort: [{ population: 'desc' }], ...(after !== undefined && { search_after: after }) });
  const readAfter = (body: string, context: Context) => {
    const hits = (JSON.parse(body) as { hits: { hits: { sort: unknown[] }[] } }).hits.hits;
    context.after = hits.at(-1)?.sort;
  };
  return [
    search('shallow', (_, next) => ({ path: `/${index}/_search?size=10&from=${next() % 100}&sort=population:desc` })),
    search('deep', (_, next) => ({ path: `/${index}/_search?size=10&from=${next() % (window - 10)}&sort=population:desc` })),
    search('q', (_, next) => ({ path: `/${index}/_search?size=10&q=${encodeURIComponent(pick(Q, next))}` })),
    search('deep-other-sort', (_, next) => ({ path: `/${index}/_search?size=10&from=${next() % (window - 10)}&sort=${pick(SORTS, next)}` })),
    search('dsl-filter', (_, next) => ({
      path: `/${index}/_search`,
      body: { from: next() % 1000, size: 10, query: { bool: { filter: [{ term: { country: pick(COUNTRIES, next) } }, { range: { population: { gte: pick(POPULATIONS, next) } } }] } }, sort: [{ population: 'desc' }] },
    })),
    search('shallow', (_, next) => ({ path: `/${index}/_search?size=20&from=${next() % 1000}&sort=population:desc` })),
    search('dsl-match', (_, next) => ({ path: `/${index}/_search`, body: { from: next() % 100, size: 10, query: { match: { name: pick(WORDS, next) } } } })),
    { kind: 'count', method: 'POST', make: (_, next) => ({ path: `/${index}/_count`, body: { query: { term: { country: pick(COUNTRIES, next) } } } }), check: searchOk },
    {
      kind: 'pit-open',
      method: 'POST',
      make: () => ({ path: `/${index}/_pit?keep_alive=1m` }),
      read: (body, context) => (context.pit = (JSON.parse(body) as { id: string }).id),
    },
    search('pit-page', (context) => (context.pit ? { path: '/_search', body: pitBody(context) } : undefined), { read: readAfter }),
    search('pit-after', (context) => (context.pit && context.after ? { path: '/_search', body: pitBody(context, context.after) } : undefined), { read: readAfter }),
    { kind: 'pit-close', method: 'DELETE', make: (context) => (context.pit ? { path: '/_pit', body: { id: context.pit } } : undefined), check: (body) => body.includes('"succeeded":true') },
    search('scroll-start', (_, next) => ({ path: `/${index}/_search?scroll=1m&size=100`, body: { query: { term: { country: pick(COUNTRIES, next) } }, sort: ['_doc'] } }), {
      read: (body, context) => (context.scroll = (JSON.parse(body) as { _scroll_id: string })._scroll_id),
    }),
    search('scroll-next', (context) => (context.scroll ? { path: '/_search/scroll', body: { scroll: '1m', scroll_id: context.scroll } } : undefined)),
    { kind: 'scroll-clear', method: 'DELETE', make: (context) => (context.scroll ? { path: '/_search/scroll', body: { scroll_id: context.scroll } } : undefined), check: (body) => body.includes('"succeeded":true') },
    { kind: 'get', method: 'GET', make: (_, next) => ({ path: `/${index}/_doc/load-${next() % LOAD_IDS}` }), expect: [200, 404] },
    {
      kind: 'put',
      method: 'PUT',
      make: (_, next) => {
        const id = next() % LOAD_IDS;
        return { path: `/${index}/_doc/load-${id}`, body: loadDoc(id, next), writes: [`load-${id}`] };
      },
      read: (body, _, ledger) => {
        const result = JSON.parse(body) as { _id: string; _seq_no: number };
        ledger.record(result._id, result._seq_no, true);
      },
    },
    {
      kind: 'bulk',
      method: 'POST',
      make: (_, next) => {
        const lines: string[] = [];
        const writes: string[] = [];
        for (let i = 0; i < BULK_DOCS; i++) {
          const id = next() % LOAD_IDS;
          writes.push(`load-${id}`);
          // One in ten a delete: segments get deletes, and merges have something to drop.
          if (i % 10 === 9) lines.push(JSON.stringify({ delete: { _index: index, _id: `load-${id}` } }));
          else lines.push(JSON.stringify({ index: { _index: index, _id: `load-${id}` } }), JSON.stringify(loadDoc(id, next)));
        }
        return { path: '/_bulk', ndjson: lines.join('\n') + '\n', writes };
      },
      check: (body) => body.includes('"errors":false'),
      read: (body, _, ledger) => {
        for (const item of (JSON.parse(body) as { items: Record<string, { _id: string; _seq_no: number; result: string }>[] }).items) {
          const [action, result] = Object.entries(item)[0];
          // A delete of a missing id (`not_found`) still takes a seq, and leaves the id missing.
          ledger.record(result._id, result._seq_no, action !== 'delete');
        }
      },
    },
  ];
}

export interface MixOptions {
  connections: number;
  seconds: number;
  /** Seed of the random choices (pages, queries, ids). */
  seed: number;
  ledger: WriteLedger;
  /** Seconds for one request before it counts as timed out. */
  timeoutSeconds?: number;
}

/** Runs the mix against `target` for `seconds` at `connections`; resolves with what came back. */
export async function runMix(target: MixTarget, options: MixOptions): Promise<MixFigures> {
  const next = mulberry32(options.seed);
  const steps = cycle(target);
  const answers: Record<string, number> = {};
  const unexpected: Record<string, number> = {};
  const samples: string[] = [];
  const latencies: number[] = [];
  const kinds: Kind[] = [];
  const at: number[] = [];
  /** The kind of the answer autocannon reports next: it calls a request's onResponse just before it emits that answer's latency. */
  let answered: Kind | undefined;
  /** Per connection (its context), the ids of the write it has in flight. */
  const inFlight = new Map<Context, string[]>();

  const requests = steps.map((step): autocannon.Request => ({
    method: step.method,
    // A falsy answer makes autocannon start the cycle again (its type does not say so).
    setupRequest: (request, context) => {
      const made = step.make(context as Context, next);
      if (!made) return undefined as unknown as autocannon.Request;
      if (made.writes) inFlight.set(context as Context, made.writes);
      request.path = made.path;
      if (made.ndjson !== undefined) {
        request.body = made.ndjson;
        request.headers = { 'content-type': 'application/x-ndjson' };
      } else if (made.body !== undefined) {
        request.body = JSON.stringify(made.body);
        request.headers = { 'content-type': 'application/json' };
      } else {
        request.body = undefined;
        request.headers = {};
      }
      return request;
    },
    onResponse: (status, body, context) => {
      answered = step.kind;
      answers[step.kind] = (answers[step.kind] ?? 0) + 1;
      const text = String(body ?? '');
      const expected = (step.expect ?? [200, 201]).includes(status);
      const is2xx = status >= 200 && status < 300;
      let ok = expected && (!is2xx || !step.check || step.check(text));
      if (ok && is2xx && step.read) {
        try {
          step.read(text, context as Context, options.ledger);
        } catch {
          ok = false;
        }
      }
      const writes = inFlight.get(context as Context);
      inFlight.delete(context as Context);
      if (!ok) {
        // A write answered with a failure may still have happened.
        if (writes) options.ledger.unanswered(writes);
        unexpected[step.kind] = (unexpected[step.kind] ?? 0) + 1;
        if (samples.length < 10) samples.push(`${step.kind} ${step.method}: ${status} ${text.slice(0, 300)}`);
      }
    },
  }));

  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: target.url, connections: options.connections, duration: options.seconds, timeout: options.timeoutSeconds ?? 10, requests },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => {
      if (answered === undefined) return;
      latencies.push(ms);
      kinds.push(answered);
      at.push(performance.now() - started);
      answered = undefined;
    });
  });
  for (const writes of inFlight.values()) options.ledger.unanswered(writes);
  return {
    answers,
    unexpected,
    samples,
    connectionErrors: result.errors,
    timeouts: result.timeouts,
    latencies: Float64Array.from(latencies),
    kinds,
    at: Float64Array.from(at),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Unexpected answers plus connection errors (timeouts among them). */
export function errorCount(figures: MixFigures): number {
  return Object.values(figures.unexpected).reduce((n, c) => n + c, 0) + figures.connectionErrors;
}
