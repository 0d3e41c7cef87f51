/**
 * Searches with a query over HTTP, on the cities the server holds, after their from/size sweep:
 * `POST /{index}/_search` with a JSON body, one request at a time on one connection.
 *
 * - `filter`: `bool.filter` `term country: C`, by population desc, C the country with the most
 *   cities (the US in the full cities: 16,677 of 135,233, 12 %);
 * - `match`: `match name: san`, by `_score` (BM25).
 *
 * Each at from 0, 1,000 and its last page (matches − 10), size 10, `_source` included, in three
 * series: `deeppage` (the default paging, warm: the searches asked before, no run build pending,
 * see runs-state.ts `warmRuns`), `deeppage-top-k` (`?paging=top_k`) and `deeppage-cold` (each
 * request right after `_cache/clear`).
 *
 * Checked before timing: `_count` with the query equals the count in plain JS; every page of every
 * series, and the default's page after it: status 200, no shard failed, min(10, matches − from)
 * hits, each a match by its `_source` (the country; the name, analyzed, holds the word), no hit
 * twice; the filter's populations equal the plain-JS order's at every rank; the match's scores
 * non-increasing, on into the next page, which shares no hit; the three series the same `_id`s and
 * sort values or scores, hit for hit. Every timed answer names its page's first and last `_id`.
 */
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import { CITY_WORD } from '../lib/corpus.ts';
import { esOk } from '../lib/es-client.ts';
import type { Timing } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Loaded } from './data.ts';
import type { OneRequest } from './load.ts';
import { assertSamePage, pageVerifier, type Page } from './page.ts';
import { timeCold, timeWarm, type PageBudget } from './page-timing.ts';
import { clearRuns, settled, warmRuns } from './runs-state.ts';
import { PAGE, SERIES } from './sweep.ts';

export const QUERY_GROUP = 'query';
const FROMS = [0, 1_000];

interface HttpSearch {
  name: string;
  /** The body's `query` and `sort`, without `from` and `size`. */
  request: Record<string, unknown>;
  /** Whether the document with this `_source` matches. */
  matches(source: Record<string, unknown>): boolean;
  count: number;
  /** By a field: the sort values of every match, in page order. By `_score`: absent. */
  ranked?: Float64Array;
}

export interface QuerySweepResult {
  label: string;
  rows: Row[];
  searches: { name: string; request: string; matches: number }[];
  checks: string;
  state: string;
}

interface Answer {
  _shards?: { failed?: number };
  hits?: { hits?: { _id?: unknown; _score?: unknown; _source?: Record<string, unknown>; sort?: unknown[] }[] };
}

export async function querySweep(loaded: Loaded, budget: PageBudget, coldBudget: PageBudget, log: (line: string) => void): Promise<QuerySweepResult> {
  const { url, index } = loaded.target;
  const searches = citySearches(loaded);
  const rows: Row[] = [];
  for (const search of searches) {
    const { body: counted } = await esOk<{ count?: number }>(url, 'POST', `/${encodeURIComponent(index)}/_count`, JSON.stringify({ query: search.request.query }));
    if (counted.count !== search.count) throw new WrongAnswer(`${search.name}: _count is ${counted.count}, expected ${search.count}`);
    const last = Math.max(0, search.count - PAGE);
    const froms = [...FROMS.filter((from) => from < last), last];
    const request = (from: number, topK = false): OneRequest => ({
      method: 'POST',
      path: `/${encodeURIComponent(index)}/_search${topK ? '?paging=top_k' : ''}`,
      body: JSON.stringify({ ...search.request, from, size: PAGE }),
    });
    const ask = (from: number, series: string, topK = false) => checkedQueryPage(loaded, search, from, request(from, topK), series);

    // Every page of every series, checked; then the warm state, whose pages must be the same again.
    const pages = new Map<number, Page>();
    for (const from of froms) {
      const page = await ask(from, SERIES.local);
      pages.set(from, page);
      const next = await ask(from + PAGE, SERIES.local);
      checkFollows(search, from, page, next);
      assertSamePage(`${SERIES.topK}: ${search.name} at from=${from}`, await ask(from, SERIES.topK, true), SERIES.local, page, true);
      await settled(url);
      await clearRuns(url, index);
      assertSamePage(`${SERIES.cold}: ${search.name} at from=${from}`, await ask(from, SERIES.cold), SERIES.local, page, true);
    }
    const warm = () =>
      warmRuns(url, index, async (pass) => {
        for (const from of froms) assertSamePage(`${SERIES.local}: ${search.name} at from=${from} (warming, pass ${pass + 1})`, await ask(from, SERIES.local), 'the first answer', pages.get(from)!, true);
      });

    const params = (from: number) => ({ corpus: loaded.label, index, search: search.name, request: JSON.stringify(search.request), matches: search.count, from, depth: from === last ? 'last' : String(from), size: PAGE });
    for (const from of froms) {
      const verify = pageVerifier(pages.get(from)!);
      await warm();
      const series: [string, () => Promise<Timing>][] = [
        [SERIES.local, () => timeWarm(url, request(from), budget, verify)],
        [SERIES.topK, () => timeWarm(url, request(from, true), budget, verify)],
        [SERIES.cold, () => timeCold(url, index, request(from), coldBudget, verify)],
      ];
      for (const [strategy, time] of series) {
        const timing = await time();
        rows.push({ group: QUERY_GROUP, strategy, params: params(from), unit: 'ms', ...timing });
        log(`  ${search.name} from=${String(from).padEnd(6)} ${strategy.padEnd(16)} p50 ${timing.median.toFixed(3)} ms (min ${timing.min.toFixed(3)}, max ${timing.max.toFixed(3)}, ${timing.samples} requests)`);
      }
    }
  }
  return {
    label: loaded.label,
    rows,
    searches: searches.map((s) => ({ name: s.name, request: JSON.stringify(s.request), matches: s.count })),
    checks:
      '_count with the query equals the plain-JS count; every page of every series and the default\'s next page: status 200, no shard failed, min(10, matches − from) hits, each a match by its _source, none twice; ' +
      "the filter's populations equal the plain-JS order's at every rank; the match's scores non-increasing, into the next page, which shares no hit; top-k and cold the same _ids and values as the default; every timed answer names the page's first and last _id",
    state:
      `${SERIES.local} and ${SERIES.topK}: before each page's series, the search's pages asked with the default paging and no run build pending, until a pass built nothing; ` +
      `${SERIES.cold}: before each timed request no build pending, POST /${index}/_cache/clear, 0 runs left, then on a new connection an untimed GET / and the timed request`,
  };
}

/** The filter on the country with the most cities, and the match on the word, with what plain JS says they find. */
function citySearches({ corpus }: Loaded): HttpSearch[] {
  const n = corpus.ids.length;
  const sources = Array.from({ length: n }, (_, i) => corpus.source(i));
  const perCountry = new Map<string, number>();
  for (const { country } of sources) perCountry.set(String(country), (perCountry.get(String(country)) ?? 0) + 1);
  const [country] = [...perCountry].reduce((a, b) => (b[1] > a[1] ? b : a));
  const inCountry = (source: Record<string, unknown>) => source.country === country;
  const named = (source: Record<string, unknown>) => typeof source.name === 'string' && analyze(source.name).includes(CITY_WORD);
  const ranked = Float64Array.from(sources.filter(inCountry), (s) => Number(s[corpus.field])).sort().reverse();
  return [
    {
      name: `filter country ${country}`,
      request: { query: { bool: { filter: [{ term: { country } }] } }, sort: [{ [corpus.field]: 'desc' }] },
      matches: inCountry,
      count: ranked.length,
      ranked,
    },
    {
      name: `match name ${CITY_WORD}`,
      request: { query: { match: { name: CITY_WORD } } },
      matches: named,
      count: sources.filter(named).length,
    },
  ];
}

/** One page of `search`, checked; its values are the sort values, or the scores. */
async function checkedQueryPage({ target }: Loaded, search: HttpSearch, from: number, request: OneRequest, series: string): Promise<Page> {
  const what = `${series}: ${search.name} at from=${from} (${request.method} ${request.path})`;
  const { body } = await esOk<Answer>(target.url, request.method!, request.path, request.body);
  if (body._shards?.failed !== 0) throw new WrongAnswer(`${what}: _shards.failed is ${body._shards?.failed}`);
  const hits = body.hits?.hits;
  if (!Array.isArray(hits)) throw new WrongAnswer(`${what}: no hits.hits in the answer`);
  const want = Math.min(PAGE, Math.max(0, search.count - from));
  if (hits.length !== want) throw new WrongAnswer(`${what}: ${hits.length} hits, expected ${want} (of ${search.count} matches)`);
  const ids: string[] = [], values: number[] = [];
  for (const [i, hit] of hits.entries()) {
    const value = search.ranked ? hit.sort?.[0] : hit._score;
    if (typeof hit._id !== 'string' || typeof value !== 'number') throw new WrongAnswer(`${what}: hit ${i} has _id ${JSON.stringify(hit._id)}, value ${JSON.stringify(value)}`);
    if (!hit._source || !search.matches(hit._source)) throw new WrongAnswer(`${what}: hit ${i} (${hit._id}) does not match: ${JSON.stringify(hit._source)}`);
    if (ids.includes(hit._id)) throw new WrongAnswer(`${what}: ${hit._id} appears twice`);
    if (search.ranked && value !== search.ranked[from + i]) throw new WrongAnswer(`${what}: rank ${from + i} has sort value ${value}, expected ${search.ranked[from + i]}`);
    if (i > 0 && value > values[i - 1]) throw new WrongAnswer(`${what}: values rise at hit ${i}: ${values[i - 1]} then ${value}`);
    ids.push(hit._id);
    values.push(value);
  }
  return { ids, values };
}

/** The page after `page` shares no hit with it and goes on in order. */
function checkFollows(search: HttpSearch, from: number, page: Page, next: Page): void {
  const shared = next.ids.find((id) => page.ids.includes(id));
  if (shared) throw new WrongAnswer(`${search.name}: ${shared} is on the page at from=${from} and again at from=${from + PAGE}`);
  if (page.values.length > 0 && next.values.length > 0 && next.values[0] > page.values[page.values.length - 1]) {
    throw new WrongAnswer(`${search.name}: the page at from=${from + PAGE} starts at ${next.values[0]}, above the ${page.values[page.values.length - 1]} that ends the page before it`);
  }
}
