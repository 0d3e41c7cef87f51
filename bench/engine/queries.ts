/**
 * Searches with a query, in process: what a page of a filter or of a scored `match` costs at any
 * depth, against a `match_all` first page, on the catalog corpus (bench/lib/corpus.ts) loaded once
 * (bench/engine/engine-index.ts). Group `query`.
 *
 * The searches, size 10, `_source: false`:
 * - `match_all` by price desc, at from 0 only: the baseline;
 * - `filter 10%`: `bool.filter` `range shelf < 10`, by price desc;
 * - `filter 1%`: `bool.filter` `term shelf 42`, by price desc;
 * - `match`: `match` on `title` of two of the vocabulary's words, by `_score` (BM25).
 * Each at from 0, 1,000 and 100,000 (those before its last page) and its last page (matches − 10).
 *
 * States, per search and page:
 * - `deeppage`: paging by sorted runs, warm: the same search asked before, its runs built (the
 *   background builds waited for): what a later page of a search costs;
 * - `deeppage-cold`: the same right after `clearCaches` (no run of any kind): a new search on a cold node;
 * - `deeppage-new-query`: every sample a search never asked before, a filter of the same selectivity
 *   (`range shelf` over another ten shelves, `term` another shelf) or a `match` of the 3rd word and
 *   another (20 % to 29 % of the titles; timed at the pages before the search's last), on a node
 *   that has served the sort and this kind of search (see {@link freshPages}): a new search on a busy node;
 * - `deeppage-top-k`: Elasticsearch's algorithm on the same engine (`paging: top_k`), which keeps nothing.
 *
 * Every page of every strategy and state is checked against the reference (bench/engine/query-check.ts)
 * before it is timed, as is the page after it; the new-query samples, each a different search, are
 * checked after timing, and a wrong one refuses the report all the same.
 */
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest, type Paging, type SortClause } from '../../src/engine/search/request.ts';
import type { SearchResponse } from '../../src/engine/search/search.ts';
import { parseQueryDsl } from '../../src/engine/request/query-dsl.ts';
import { catalog, SHELVES, type CatalogCorpus } from '../lib/corpus.ts';
import { measure, type Budget } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer, type Mode, type SuiteContext } from '../lib/suite.ts';
import { openEngineIndex } from './engine-index.ts';
import { place, referenceOrder, type Placement } from './placement.ts';
import { checkQueryPage, fieldSort, filteredReference, scoredReference, type QueryReference } from './query-check.ts';

export const QUERY_GROUP = 'query';
export const STATES = { warm: 'deeppage', cold: 'deeppage-cold', fresh: 'deeppage-new-query', topK: 'deeppage-top-k' } as const;
export const BASELINE = 'match_all';

const PAGE = 10;
const FRESH_WARMUP = 3;

interface Profile {
  docs: number;
  shards: number;
  /** Pages asked before the last one, where below it. */
  froms: number[];
  /**
   * New-query samples per page, after FRESH_WARMUP: each a search never asked before, so that
   * (FRESH_WARMUP + fresh) × pages stays within the 90 ten-shelf ranges.
   */
  fresh: number;
}

const PROFILES: Record<Mode, Profile> = {
  full: { docs: 1_000_000, shards: 5, froms: [0, 1_000, 100_000], fresh: 17 },
  quick: { docs: 100_000, shards: 5, froms: [0, 1_000, 100_000], fresh: 10 },
  smoke: { docs: 3_000, shards: 5, froms: [0, 10, 100], fresh: 1 },
};

/** How long to sample: `budget`, or `slowBudget` for a page whose check took more than `slowMs`. */
export interface Budgets {
  budget: Budget;
  slowBudget: Budget;
  slowMs: number;
}

export interface QuerySearch {
  name: string;
  /** The request's `query` and `sort` as JSON, as the report shows them. */
  request: string;
  query: Query;
  sort: SortClause[];
  reference: QueryReference;
  /** Asked at from 0 only. */
  baseline?: boolean;
  /**
   * The `deeppage-new-query` state: `count` searches like this one (the same selectivity), none of
   * them this one; `make(i)` is the i-th, with its reference.
   */
  fresh?: {
    count: number;
    make(i: number): { query: Query; reference: () => QueryReference };
    /** The samples match as many documents as the search (the filters), so its last page is theirs too; else they are timed at the pages before it. */
    lastPage: boolean;
  };
}

export interface QueryResult {
  rows: Row[];
  notes: Record<string, unknown>;
}

export async function querySearches(ctx: SuiteContext, budgets: Budgets): Promise<QueryResult> {
  const profile = PROFILES[ctx.mode];
  const corpus = catalog(profile.docs);
  const placement = place(corpus, profile.shards);
  const t0 = performance.now();
  const opened = await openEngineIndex(corpus, profile.shards, ctx, 'queries');
  const loaded = `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  try {
    const searches = catalogSearches(opened.engine, opened.index, placement);
    const rows: Row[] = [];
    const plan = { group: QUERY_GROUP, froms: profile.froms, fresh: profile.fresh, budgets };
    for (const search of searches) rows.push(...(await searchRows(ctx, plan, opened.engine, opened.index, placement, search)));
    return {
      rows,
      notes: {
        corpus: `${corpus.name} on ${profile.shards} shards (bench/lib/corpus.ts catalog): price as the products', shelf 0…99 each on exactly 1 % of the documents (seeded shuffle), title 2–6 words of a 300-word Zipf vocabulary`,
        load: `${loaded}: batches of 10,000 through Engine.write, a refresh after each, refresh_interval -1`,
        searches: Object.fromEntries(searches.map((s) => [s.name, { request: s.request, matches: s.reference.docs.length }])),
        states: {
          [STATES.warm]: 'sorted_runs, the same search asked before and its runs built (background builds waited for)',
          [STATES.cold]: 'sorted_runs, engine.clearCaches(index) before every sample (outside the timed call)',
          [STATES.fresh]: `sorted_runs, every sample a search never asked before (range shelf over another ten shelves / term on another shelf, same selectivity / match of the 3rd word and another of the 4th to 100th, 20 to 29 % of the titles, at the pages before the timed match's last), on a node that has served the sort and this kind of filter: after clearCaches, a match_all last page by price (builds every segment's run) and the timed search's own first page (what the engine keeps for a field it has filtered on, such as a range's field run, is then built), background builds waited for; ${profile.fresh} samples a page after ${FRESH_WARMUP} of warm-up, no build run between them`,
          [STATES.topK]: 'paging: top_k (keeps nothing between searches)',
        },
        checks:
          'before timing: _count equals the plain-JS match count; every page and the page after it, of each strategy and state, equals its slice of the reference (filters: the reference order of bench/engine/placement.ts restricted to the matches; match: the engine\'s whole answer at once, checked to be exactly the matching documents, each once, scores non-increasing, ties by shard then index order), ids and scores; new-query samples checked the same way after timing',
      },
    };
  } finally {
    await opened.close();
  }
}

/** The searches on the catalog, with their references. */
function catalogSearches(engine: Engine, index: string, placement: Placement): QuerySearch[] {
  const corpus = placement.corpus as CatalogCorpus;
  const { shelf } = corpus;
  const order = referenceOrder(placement);
  const sort = fieldSort(corpus.field);
  const sortJson = `"sort":[{"${corpus.field}":"desc"}]`;
  const filter = (clause: object) => ({ bool: { filter: [clause] } });
  const shelves = (lo: number) => filter({ range: { shelf: lo === 0 ? { lt: 10 } : { gte: lo, lt: lo + 10 } } });
  const onShelf = (k: number) => filter({ term: { shelf: k } });
  const request = (query: object, sorted: boolean) => `{"query":${JSON.stringify(query)}${sorted ? `,${sortJson}` : ''}}`;
  // The fresh filters: other shelves, never the timed search's own (shelves 0…9, shelf 42).
  const otherShelves = Array.from({ length: SHELVES - 10 }, (_, i) => i + 1);
  const otherShelf = Array.from({ length: SHELVES }, (_, k) => k).filter((k) => k !== 42);
  // The 3rd and 12th most frequent words: in about 19 % and 5 % of the titles.
  const words = [2, 11];
  const titled = (pair: number[]) => (doc: number) => corpus.titleWords.subarray(corpus.titleStarts[doc], corpus.titleStarts[doc + 1]).some((w) => pair.includes(w));
  const matchOf = (pair: number[]) => ({ match: { title: pair.map((w) => corpus.vocabulary[w]).join(' ') } });
  const match = matchOf(words);
  // The new match queries: the 3rd word with another of the 4th to 100th (never the 12th), in 20 % to 29 % of the titles.
  const otherPairs = Array.from({ length: 97 }, (_, i) => i + 3).filter((w) => w !== 11).map((w) => [2, w]);
  return [
    { name: BASELINE, request: request({ match_all: {} }, true), query: parseQueryDsl({ match_all: {} }), sort, reference: { docs: order }, baseline: true },
    {
      name: 'filter 10%',
      request: request(shelves(0), true),
      query: parseQueryDsl(shelves(0)),
      sort,
      reference: filteredReference(order, (doc) => shelf[doc] < 10),
      fresh: { count: otherShelves.length, make: (i) => ({ query: parseQueryDsl(shelves(otherShelves[i])), reference: () => filteredReference(order, (doc) => shelf[doc] >= otherShelves[i] && shelf[doc] < otherShelves[i] + 10) }), lastPage: true },
    },
    {
      name: 'filter 1%',
      request: request(onShelf(42), true),
      query: parseQueryDsl(onShelf(42)),
      sort,
      reference: filteredReference(order, (doc) => shelf[doc] === 42),
      fresh: { count: otherShelf.length, make: (i) => ({ query: parseQueryDsl(onShelf(otherShelf[i])), reference: () => filteredReference(order, (doc) => shelf[doc] === otherShelf[i]) }), lastPage: true },
    },
    {
      name: 'match',
      request: request(match, false),
      query: parseQueryDsl(match),
      sort: [],
      reference: scoredReference(engine, index, parseQueryDsl(match), placement, titled(words), 'match on the catalog'),
      fresh: {
        count: otherPairs.length,
        make: (i) => ({ query: parseQueryDsl(matchOf(otherPairs[i])), reference: () => scoredReference(engine, index, parseQueryDsl(matchOf(otherPairs[i])), placement, titled(otherPairs[i]), `new match ${i} on the catalog`) }),
        lastPage: false,
      },
    },
  ];
}

/** The pages asked of a search with `matches` matches: the profile's froms before its last page, and the last page. */
export function queryFroms(froms: number[], matches: number): number[] {
  const last = Math.max(0, matches - PAGE);
  return [...froms.filter((from) => from < last), last];
}

/** Where a search's rows go and how it is sampled. */
export interface SearchPlan {
  group: string;
  /** The pages asked before the last one (those below it). */
  froms: number[];
  /** New-query samples per page. */
  fresh: number;
  budgets: Budgets;
}

/** One search's pages checked, then timed in every state (see the top of this file); params.depth is the from, or `last`. */
export async function searchRows(ctx: SuiteContext, plan: SearchPlan, engine: Engine, index: string, placement: Placement, search: QuerySearch): Promise<Row[]> {
  const { corpus, shards } = placement;
  const { budgets } = plan;
  const matches = search.reference.docs.length;
  const counted = engine.count(index, search.query).count;
  if (counted !== matches) throw new WrongAnswer(`${search.name} on ${corpus.name}: _count is ${counted}, expected ${matches}`);
  const froms = search.baseline ? [0] : queryFroms(plan.froms, matches);
  const last = froms[froms.length - 1];
  const ask = (query: Query, from: number, paging: Paging) => engine.search(index, searchRequest({ query, sort: search.sort, from, size: PAGE, source: false, paging }));
  const where = (state: string, from: number) => `${search.name} (${state}) on ${corpus.name}, from=${from}`;
  const check = (state: string, from: number, answer: SearchResponse, reference = search.reference) => checkQueryPage(where(state, from), placement, reference, from, PAGE, answer);
  const settle = () => engine.runs.settled();

  // Correctness first: each state's page and the page after it; how long each took picks its budget.
  const slow = new Set<string>();
  const timed = (key: string, run: () => SearchResponse) => {
    const t0 = performance.now();
    const answer = run();
    if (performance.now() - t0 > budgets.slowMs) slow.add(key);
    return answer;
  };
  for (const from of froms) {
    engine.clearCaches(index);
    check(STATES.cold, from, timed(`${STATES.cold} ${from}`, () => ask(search.query, from, 'sorted_runs')));
    check(STATES.cold, from + PAGE, ask(search.query, from + PAGE, 'sorted_runs'));
    await settle();
    check(STATES.warm, from, timed(`${STATES.warm} ${from}`, () => ask(search.query, from, 'sorted_runs')));
    check(STATES.topK, from, timed(`${STATES.topK} ${from}`, () => ask(search.query, from, 'top_k')));
    check(STATES.topK, from + PAGE, ask(search.query, from + PAGE, 'top_k'));
  }
  const budgetFor = (state: string, from: number) => (slow.has(`${state} ${from}`) ? budgets.slowBudget : budgets.budget);

  const rows: Row[] = [];
  const params = (from: number) => ({ corpus: corpus.name, docs: corpus.ids.length, shards, search: search.name, request: search.request, matches, from, depth: !search.baseline && from === last ? 'last' : String(from), size: PAGE });
  const push = (strategy: string, from: number, timing: ReturnType<typeof measure>) => rows.push({ group: plan.group, strategy, params: params(from), unit: 'ms', ...timing });

  // Warm: every page asked once more (its runs may have gone with a later page's clearCaches), builds waited for.
  for (const from of froms) check(STATES.warm, from, ask(search.query, from, 'sorted_runs'));
  await settle();
  for (const from of froms) push(STATES.warm, from, measure(budgetFor(STATES.warm, from), () => ask(search.query, from, 'sorted_runs').hits.hits));
  for (const from of froms) push(STATES.topK, from, measure(budgetFor(STATES.topK, from), () => ask(search.query, from, 'top_k').hits.hits));

  if (search.fresh) rows.push(...(await freshPages(plan, engine, index, placement, search, froms, params, check)));

  for (const from of froms) {
    push(STATES.cold, from, measure(budgetFor(STATES.cold, from), () => ask(search.query, from, 'sorted_runs').hits.hits, () => void engine.clearCaches(index)));
    await settle();
  }
  const line = (state: string) => `${state} ${froms.map((from) => `${from} ${rows.find((r) => r.strategy === state && r.params.from === from)?.median.toPrecision(3)}`).join(', ')}`;
  ctx.log(`  ${search.name} on ${corpus.name} (${matches} matches; from ms): ${[STATES.warm, STATES.cold, ...(search.fresh ? [STATES.fresh] : []), STATES.topK].map(line).join('; ')}`);
  return rows;
}

/**
 * The new-query state: a node that has served the sort and this kind of filter (the segments' runs
 * for the sort built by a `match_all` last page, on the request; the search's own first page asked,
 * which builds what the engine keeps for a field it has filtered on; builds waited for), then at
 * each page `plan.fresh` samples after FRESH_WARMUP more, each a search never asked before,
 * checked once timing is done. The samples run back to back, so no build runs between them.
 */
async function freshPages(
  plan: SearchPlan,
  engine: Engine,
  index: string,
  placement: Placement,
  search: QuerySearch,
  froms: number[],
  params: (from: number) => Row['params'],
  check: (state: string, from: number, answer: SearchResponse, reference: QueryReference) => void,
): Promise<Row[]> {
  const fresh = search.fresh!;
  const n = placement.corpus.ids.length;
  engine.clearCaches(index);
  // A search by score has no sort whose runs a node would hold: its own first page is what it has served.
  if (search.sort.length > 0) engine.search(index, searchRequest({ sort: search.sort, from: Math.max(0, n - PAGE), size: PAGE, source: false }));
  engine.search(index, searchRequest({ query: search.query, sort: search.sort, size: PAGE, source: false }));
  await engine.runs.settled();
  const target = engine.resolveOne(index);
  const held = engine.runsHeld([target]).count, segments = target.segments().length;
  if (search.sort.length > 0 && held < segments) throw new Error(`${search.name}: ${held} runs held for ${segments} segments before the new-query samples; the sort's runs should all be built`);

  const rows: Row[] = [];
  let next = 0;
  for (const from of fresh.lastPage ? froms : froms.slice(0, -1)) {
    const answers: { i: number; answer: SearchResponse }[] = [];
    const budget: Budget = { time: 0, iterations: plan.fresh, warmupTime: 0, warmupIterations: FRESH_WARMUP };
    const timing = measure(budget, () => {
      const i = next++;
      if (i >= fresh.count) throw new Error(`${search.name}: more new-query samples than the ${fresh.count} searches of its kind`);
      const answer = engine.search(index, searchRequest({ query: fresh.make(i).query, sort: search.sort, from, size: PAGE, source: false }));
      answers.push({ i, answer });
      return answer.hits.hits;
    });
    // The runs the samples left to build, built before the next page's samples.
    await engine.runs.settled();
    for (const { i, answer } of answers) check(`${STATES.fresh} #${i}`, from, answer, fresh.make(i).reference());
    rows.push({ group: plan.group, strategy: STATES.fresh, params: params(from), unit: 'ms', ...timing });
  }
  return rows;
}
