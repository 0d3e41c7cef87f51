/**
 * What the server acknowledged, per document id, and the check that a node holds it: the oracle of
 * the crash and disk-full checks.
 *
 * Each id's acknowledged state is the one from the answer with the highest `_seq_no` (two clients'
 * writes on one id apply in the server's order, and one id lives in one shard, whose seqs only
 * grow). A write whose answer never came (the kill cut it off) may or may not be durable, as with
 * any write whose response is lost: its state is allowed, but only as newer than the acknowledged
 * one. A write refused with an error must have left nothing.
 *
 * Every source is `{ n, ... }` with `n` unique to the write that made it, so a source tells which
 * write left it, and sorting by `n` gives the order a search must page in.
 */
import { esOk, esRequest } from '../../bench/lib/es-client.ts';

export interface Source {
  /** Unique per write: which write left the document. */
  n: number;
  [field: string]: unknown;
}

interface Acked {
  /** null: deleted. */
  state: Source | null;
  seq: number;
  /** The `_version` the answer gave; unknown for a state adopted from a delete no answer covered. */
  version?: number;
}

export interface Verdict {
  /** Ids whose acknowledged state the node no longer shows (by GET, or by search). */
  lost: string[];
  /** Anything else wrong: a refused write that left something, a bad version, a page out of order. */
  problems: string[];
  /** Live documents after the check (the model now agrees with the node). */
  live: number;
  /** Ids read by GET, and search requests made. */
  gets: number;
  searches: number;
}

/** Result windows (ES's default `index.max_result_window`): from/size pages stop there. */
const MAX_WINDOW = 10_000;
const PAGE = 50;

export class WriteModel {
  readonly #acked = new Map<string, Acked>();
  /** Per id, the states unanswered writes may have left. */
  readonly #maybe = new Map<string, (Source | null)[]>();
  /** `n` of unanswered auto-id creates: their ids are unknown until a search finds them. */
  readonly #maybeAuto = new Set<number>();
  /** Ids written only by refused writes (so far). */
  readonly #refused = new Set<string>();
  acknowledged = 0;
  unanswered = 0;

  constructor(
    readonly index: string,
    /** The numeric field sources are sorted by. */
    readonly sortField = 'n',
  ) {}

  /** An acknowledged write: `state` null for a delete. */
  ack(id: string, state: Source | null, seq: number, version: number): void {
    this.acknowledged++;
    this.#refused.delete(id);
    const known = this.#acked.get(id);
    if (known && known.seq >= seq) return;
    // Unanswered writes on the id stay allowed, but only if newer than this (see #judge).
    this.#acked.set(id, { state, seq, version });
  }

  /** A write whose answer never came; `id` undefined for an auto-id create. */
  unanswer(id: string | undefined, state: Source | null): void {
    this.unanswered++;
    if (id === undefined) {
      this.#maybeAuto.add(state!.n);
      return;
    }
    const states = this.#maybe.get(id);
    if (states) states.push(state);
    else this.#maybe.set(id, [state]);
  }

  /** A write answered with an error: it must have changed nothing. */
  refuse(id: string): void {
    if (!this.#acked.has(id) && !this.#maybe.has(id)) this.#refused.add(id);
  }

  get live(): number {
    let live = 0;
    for (const { state } of this.#acked.values()) if (state) live++;
    return live;
  }

  /**
   * Checks the node at `url` against the model, then adopts what it holds (where allowed), so that
   * the next round builds on the node's state: every id by GET, then the whole index by a sorted
   * search_after walk, from/size pages at several depths, and `_count`.
   */
  async verify(url: string): Promise<Verdict> {
    const verdict: Verdict = { lost: [], problems: [], live: 0, gets: 0, searches: 0 };
    const lost = new Set<string>();
    await esOk(url, 'POST', `/${this.index}/_refresh`);
    // Auto-id creates that got no answer: found by their `n`, then checked like the rest.
    const found = await this.#walk(url, verdict);
    const known = new Set([...this.#acked.keys(), ...this.#maybe.keys(), ...this.#refused]);
    for (const { id, source } of found) {
      if (!known.has(id) && this.#maybeAuto.has(source.n)) this.#maybe.set(id, [source]);
    }
    this.#maybeAuto.clear();

    const ids = [...new Set([...this.#acked.keys(), ...this.#maybe.keys(), ...this.#refused])];
    await inParallel(ids, 16, async (id) => {
      verdict.gets++;
      const got = await esRequest(url, 'GET', `/${this.index}/_doc/${encodeURIComponent(id)}`);
      const body = got.json as { found?: boolean; _source?: Source; _seq_no?: number; _version?: number };
      if (got.status !== 200 && got.status !== 404) {
        verdict.problems.push(`GET ${id}: status ${got.status}: ${JSON.stringify(body).slice(0, 200)}`);
        return;
      }
      const problem = this.#judge(id, body.found ? { source: body._source!, seq: body._seq_no!, version: body._version! } : undefined);
      if (problem === 'lost') lost.add(id);
      else if (problem) verdict.problems.push(problem);
    });
    this.#maybe.clear();
    this.#refused.clear();

    // The search must show exactly the live documents, each once, in the model's order.
    const expected = [...this.#acked].filter(([, a]) => a.state).sort(([, a], [, b]) => (a.state![this.sortField] as number) - (b.state![this.sortField] as number));
    const seen = new Map<string, number>();
    for (const { id } of found) seen.set(id, (seen.get(id) ?? 0) + 1);
    for (const [id, times] of seen) if (times > 1) verdict.problems.push(`search: ${id} shows ${times} times`);
    const walked = found.map((hit) => hit.id);
    const shown = new Set(walked);
    // An acknowledged state search does not show (a live document missing, a deleted or an older
    // one showing) is lost as surely as one GET does not show.
    for (const [id] of expected) if (!shown.has(id)) lost.add(id);
    for (const { id, source } of found) {
      const acked = this.#acked.get(id);
      if (!acked) verdict.problems.push(`search: ${id} shows, which no write acknowledged or left unanswered`);
      else if (acked.state?.n !== source.n) lost.add(id);
    }
    const order = expected.map(([id]) => id);
    if (lost.size === 0 && walked.join() !== order.join()) verdict.problems.push(`search_after walk: order differs from the model's (${firstDifference(walked, order)})`);

    // from/size pages at several depths: slices of the model's order, no duplicates, no gaps.
    const depths = [0, 1, 7, 100, 333, 1_000, 2_500, order.length - PAGE, order.length - 3].filter((from, i, all) => from >= 0 && from + PAGE <= MAX_WINDOW && all.indexOf(from) === i);
    for (const from of depths) {
      verdict.searches++;
      const { body } = await esOk<SearchBody>(url, 'POST', `/${this.index}/_search`, JSON.stringify({ from, size: PAGE, sort: [{ [this.sortField]: 'asc' }], track_total_hits: true }));
      const page = body.hits.hits.map((h) => h._id);
      const want = order.slice(from, from + PAGE);
      if (page.join() !== want.join()) verdict.problems.push(`page from=${from} size=${PAGE}: ${firstDifference(page, want)}`);
      if (body.hits.total.value !== order.length) verdict.problems.push(`page from=${from}: total ${body.hits.total.value}, model ${order.length}`);
    }
    const { body: counted } = await esOk<{ count: number }>(url, 'GET', `/${this.index}/_count`);
    if (counted.count !== order.length) verdict.problems.push(`_count ${counted.count}, model ${order.length}`);
    verdict.lost = [...lost].sort();
    verdict.live = order.length;
    return verdict;
  }

  /**
   * One id's GET against the model: undefined when allowed, 'lost', or a problem. Either way the
   * model then takes what the node shows, so that a loss is counted in the round it happened only.
   */
  #judge(id: string, got: { source: Source; seq: number; version: number } | undefined): 'lost' | string | undefined {
    const acked = this.#acked.get(id);
    if (got === undefined) {
      if (acked) this.#acked.set(id, { ...acked, state: null });
      return acked?.state && !this.#maybe.get(id)?.includes(null) ? 'lost' : undefined;
    }
    this.#acked.set(id, { state: got.source, seq: got.seq, version: got.version });
    if (acked?.state && same(acked.state, got.source)) {
      return got.seq === acked.seq && got.version === acked.version ? undefined : `GET ${id}: _seq_no ${got.seq} _version ${got.version}, acknowledged ${acked.seq}/${acked.version}`;
    }
    // An unanswered write may show only as newer than every answered one on the id.
    if (this.#maybe.get(id)?.some((state) => state && same(state, got.source))) return acked && got.seq <= acked.seq ? 'lost' : undefined;
    if (acked) return 'lost';
    return `GET ${id}: shows ${JSON.stringify(got.source).slice(0, 120)}, which no write acknowledged or left unanswered (a refused write applied?)`;
  }

  /** Every document, sorted by the sort field, walked with search_after. */
  async #walk(url: string, verdict: Verdict): Promise<{ id: string; source: Source }[]> {
    const hits: { id: string; source: Source }[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      verdict.searches++;
      const { body } = await esOk<SearchBody>(url, 'POST', `/${this.index}/_search`, JSON.stringify({ size: 500, sort: [{ [this.sortField]: 'asc' }], ...(after && { search_after: after }) }));
      if (body.hits.hits.length === 0) return hits;
      for (const hit of body.hits.hits) hits.push({ id: hit._id, source: hit._source });
      after = body.hits.hits[body.hits.hits.length - 1].sort;
    }
  }
}

interface SearchBody {
  hits: { total: { value: number }; hits: { _id: string; _source: Source; sort: unknown[] }[] };
}

function same(a: Source, b: Source): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function firstDifference(got: string[], want: string[]): string {
  const at = got.findIndex((id, i) => id !== want[i]);
  const i = at === -1 ? Math.min(got.length, want.length) : at;
  return `at ${i}: got ${got[i] ?? 'nothing'} (${got.length} in all), expected ${want[i] ?? 'nothing'} (${want.length} in all)`;
}

/** Runs `work` on every item, `width` at a time. */
export async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}
