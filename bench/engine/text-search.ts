/**
 * Full-text search on the cities' names, in process: deeppage's `match` on `name` (BM25, by
 * `_score`) beside @orama/orama's `search` of the same word on the same names, the Node developer's
 * search engine. Group `text`.
 *
 * deeppage: the cities loaded into an index of 5 shards (bench/engine/engine-index.ts), and the
 * search measured as every query search is (bench/engine/queries.ts: warm, cold, top-k, each page
 * checked first). Orama: the names inserted into a database with schema `{ name: 'string' }`, each
 * page one `search(db, { term, properties: ['name'], offset, limit })`, which keeps nothing between
 * searches. The two tokenize differently (Orama splits on fewer characters, strips diacritics and,
 * by default, matches every word that starts with the term), so they find different numbers of
 * cities; both counts are reported, and each is paged at from 0, 100, 1,000 and its own last page.
 *
 * Orama's pages are checked before timing: its count equals the cities whose name, split by Orama's
 * own tokenizer, has a word starting with the term; each page holds min(10, count − from) hits,
 * every one of them such a city, none twice, scores non-increasing, none on the next page too.
 */
import { create, insertMultiple, search } from '@orama/orama';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import { parseQueryDsl } from '../../src/engine/request/query-dsl.ts';
import { cities, CITY_WORD, type Corpus } from '../lib/corpus.ts';
import { measure, measureAsync, type Timing } from '../lib/measure.ts';
import type { Row } from '../lib/results.ts';
import { WrongAnswer, type Mode, type SuiteContext } from '../lib/suite.ts';
import { openEngineIndex } from './engine-index.ts';
import { place } from './placement.ts';
import { scoredReference } from './query-check.ts';
import { queryFroms, searchRows, type Budgets, type QueryResult, type QuerySearch } from './queries.ts';

export const TEXT_GROUP = 'text';
export const ORAMA = 'orama';

const SHARDS = 5;
const PAGE = 10;
const FROMS = [0, 100, 1_000];
const LIMITS: Record<Mode, number> = { full: Infinity, quick: Infinity, smoke: 3_000 };
const BATCH = 5_000;

type OramaDb = ReturnType<typeof createDb>;
type OramaAnswer = Awaited<ReturnType<typeof oramaPage>>;

export async function textSearch(ctx: SuiteContext, budgets: Budgets): Promise<QueryResult> {
  const corpus = cities(LIMITS[ctx.mode]);
  const names = Array.from({ length: corpus.ids.length }, (_, i) => String(corpus.source(i).name));
  const placement = place(corpus, SHARDS);
  const db = await oramaDb(ctx, corpus, names);
  const oramaCount = countOrama(db, names);
  const opened = await openEngineIndex(corpus, SHARDS, ctx, 'match');
  try {
    const request = { match: { name: CITY_WORD } };
    const query = parseQueryDsl(request);
    const reference = scoredReference(opened.engine, opened.index, query, placement, (doc) => analyze(names[doc]).includes(CITY_WORD), `match name ${CITY_WORD} on the cities`);
    const matches = reference.docs.length;
    // The same depths of both, each also at its own last page.
    const froms = FROMS.filter((from) => from < Math.min(matches, oramaCount) - PAGE);
    const match: QuerySearch = { name: `match name ${CITY_WORD}`, request: JSON.stringify({ query: request }), query, sort: [], reference };
    const rows = await searchRows(ctx, { group: TEXT_GROUP, froms, fresh: 0, budgets }, opened.engine, opened.index, placement, match);
    rows.push(...(await oramaRows(ctx, budgets, db, names, oramaCount, froms, { corpus: corpus.name, docs: corpus.ids.length, shards: SHARDS, search: match.name })));
    return {
      rows,
      notes: {
        corpus: `${corpus.name}: ${corpus.ids.length} names`,
        deeppage: `${match.request} on the cities in ${SHARDS} shards (name: text, standard analyzer); ${matches} matches; states as in the query searches`,
        orama: `@orama/orama search(db, { term: '${CITY_WORD}', properties: ['name'], offset, limit: ${PAGE} }) on create({ schema: { name: 'string' } }) with the cities' names, ids as the documents' id; ${oramaCount} matches (every word starting with '${CITY_WORD}', Orama's default tokenizer)`,
        checks: `deeppage: as the query searches; orama: count equals the names with an Orama token starting with '${CITY_WORD}', every page and the page after it: hit count, every hit such a name, no hit twice, scores non-increasing, no overlap between the two pages`,
      },
    };
  } finally {
    await opened.close();
  }
}

function createDb() {
  return create({ schema: { name: 'string' } as const });
}

/** One page of Orama's answer: the timed call. */
function oramaPage(db: OramaDb, from: number) {
  return search(db, { term: CITY_WORD, properties: ['name'], offset: from, limit: PAGE });
}

async function oramaDb(ctx: SuiteContext, corpus: Corpus, names: string[]): Promise<OramaDb> {
  const db = createDb();
  const bar = ctx.progress(`orama: inserting ${corpus.name} names`, names.length);
  for (let at = 0; at < names.length; at += BATCH) {
    const batch = [];
    for (let i = at; i < Math.min(at + BATCH, names.length); i++) batch.push({ id: corpus.ids[i], name: names[i] });
    await insertMultiple(db, batch, BATCH);
    bar.update(Math.min(at + BATCH, names.length));
  }
  bar.stop();
  return db;
}

/** The names Orama should find: a word, as its tokenizer splits and normalizes the name, starting with CITY_WORD. */
function oramaMatches(db: OramaDb, name: string): boolean {
  return db.tokenizer.tokenize(name, undefined, 'name', false).some((token) => token.startsWith(CITY_WORD));
}

function countOrama(db: OramaDb, names: string[]): number {
  let count = 0;
  for (const name of names) if (oramaMatches(db, name)) count++;
  return count;
}

async function oramaRows(ctx: SuiteContext, budgets: Budgets, db: OramaDb, names: string[], count: number, froms: number[], params: Row['params']): Promise<Row[]> {
  const page = (from: number) => oramaPage(db, from);
  const points = queryFroms(froms, count);
  const last = points[points.length - 1];
  const rows: Row[] = [];
  for (const from of points) {
    const t0 = performance.now();
    const first = await page(from);
    const budget = performance.now() - t0 > budgets.slowMs ? budgets.slowBudget : budgets.budget;
    checkOramaPage(db, from, count, first);
    const next = await page(from + PAGE);
    checkOramaPage(db, from + PAGE, count, next);
    const ids = new Set(first.hits.map((hit) => hit.id));
    const again = next.hits.find((hit) => ids.has(hit.id));
    if (again) throw new WrongAnswer(`${ORAMA}: ${again.id} is on the page at from=${from} and again at from=${from + PAGE}`);
    // Orama's search is synchronous or not depending on its components: timed as it is.
    const probe = page(from);
    await probe;
    const timing: Timing = probe instanceof Promise ? await measureAsync(budget, async () => (await page(from)).hits) : measure(budget, () => (page(from) as OramaAnswer).hits);
    rows.push({ group: TEXT_GROUP, strategy: ORAMA, params: { ...params, matches: count, from, depth: from === last ? 'last' : String(from), size: PAGE }, unit: 'ms', ...timing });
  }
  ctx.log(`  ${ORAMA} ${CITY_WORD} on the names (${count} matches; from ms): ${rows.map((r) => `${r.params.from} ${r.median.toPrecision(3)}`).join(', ')}`);
  return rows;
}

function checkOramaPage(db: OramaDb, from: number, count: number, answer: OramaAnswer): void {
  const where = `${ORAMA} '${CITY_WORD}' at from=${from}`;
  if (answer.count !== count) throw new WrongAnswer(`${where}: count ${answer.count}, expected ${count}`);
  const hits = answer.hits;
  const want = Math.min(PAGE, Math.max(0, count - from));
  if (hits.length !== want) throw new WrongAnswer(`${where}: ${hits.length} hits, expected ${want}`);
  const seen = new Set<string>();
  for (const [i, hit] of hits.entries()) {
    const name = hit.document.name;
    if (!oramaMatches(db, name)) throw new WrongAnswer(`${where}: hit ${from + i} is ${hit.id} (${name}), which has no word starting with '${CITY_WORD}'`);
    if (seen.has(hit.id)) throw new WrongAnswer(`${where}: ${hit.id} appears twice`);
    seen.add(hit.id);
    if (i > 0 && hit.score > hits[i - 1].score) throw new WrongAnswer(`${where}: scores rise at hit ${from + i}: ${hits[i - 1].score} then ${hit.score}`);
  }
}
