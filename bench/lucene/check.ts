/**
 * What both peers' answers must be, before their times count (a wrong answer refuses the report):
 *
 * - every answer: no shard failed; `hits.total` is the plain-JS match count when at most 10,000
 *   (`eq`), else 10,000 `gte` (the default `track_total_hits`); min(10, matches − from) hits, none
 *   twice, each a match of the search by plain JS;
 * - sorted by price (the filters): the page's `_id`s and sort values are the placement's reference
 *   order (bench/engine/placement.ts: price desc, then shard, then index order) restricted to the
 *   matches, hit for hit, on both peers: their tie-breaks are the same rule;
 * - by score (the matches): scores non-increasing; the same `_id`s on both peers hit for hit, and
 *   deeppage's score Lucene's × 2.2 within 1e-6 relative (Elasticsearch's BM25 keeps Lucene's
 *   legacy factor 1 + k1; Lucene 8 drops it).
 */
import { WrongAnswer } from '../lib/suite.ts';
import type { CatalogCorpus } from '../lib/corpus.ts';
import { PAGE, type Search } from './cases.ts';

export const TOTAL_HITS_THRESHOLD = 10_000;
/** Elasticsearch's legacy BM25 multiplies Lucene 8's score by 1 + k1. */
export const SCORE_FACTOR = 2.2;
export const SCORE_TOLERANCE = 1e-6;

export interface SearchAnswer {
  _shards?: { failed?: number };
  hits?: { total?: { value?: number; relation?: string }; hits?: { _id?: unknown; _score?: unknown; sort?: unknown[] }[] };
}

/** A checked page: its `_id`s, and its sort values or scores. */
export interface Page {
  ids: string[];
  values: number[];
}

export interface Expected {
  corpus: CatalogCorpus;
  /** Position of each `_id` in the corpus. */
  position: Map<string, number>;
  /** Every document in page order by price (bench/engine/placement.ts referenceOrder). */
  order: Uint32Array;
}

/** One peer's answer to `search` at `from`, held to what plain JS knows; `matches` is the plain-JS count. */
export function checkAnswer(what: string, expected: Expected, search: Search, matches: number, from: number, answer: SearchAnswer): Page {
  if (answer._shards?.failed !== 0) throw new WrongAnswer(`${what}: _shards.failed is ${answer._shards?.failed}`);
  const total = answer.hits?.total;
  const want = matches > TOTAL_HITS_THRESHOLD ? { value: TOTAL_HITS_THRESHOLD, relation: 'gte' } : { value: matches, relation: 'eq' };
  if (total?.value !== want.value || total.relation !== want.relation) {
    throw new WrongAnswer(`${what}: hits.total is ${JSON.stringify(total)}, expected ${JSON.stringify(want)} (${matches} matches)`);
  }
  const hits = answer.hits?.hits;
  if (!Array.isArray(hits)) throw new WrongAnswer(`${what}: no hits.hits`);
  const size = Math.min(PAGE, Math.max(0, matches - from));
  if (hits.length !== size) throw new WrongAnswer(`${what}: ${hits.length} hits, expected ${size}`);
  const page: Page = { ids: [], values: [] };
  for (const [i, hit] of hits.entries()) {
    const value = search.sorted ? hit.sort?.[0] : hit._score;
    if (typeof hit._id !== 'string' || typeof value !== 'number') throw new WrongAnswer(`${what}: hit ${i} has _id ${JSON.stringify(hit._id)} and value ${JSON.stringify(value)}`);
    const doc = expected.position.get(hit._id);
    if (doc === undefined || !search.matches(doc)) throw new WrongAnswer(`${what}: hit ${i} (${hit._id}) does not match`);
    if (page.ids.includes(hit._id)) throw new WrongAnswer(`${what}: ${hit._id} appears twice`);
    if (i > 0 && value > page.values[i - 1]) throw new WrongAnswer(`${what}: values rise at hit ${i}: ${page.values[i - 1]} then ${value}`);
    page.ids.push(hit._id);
    page.values.push(value);
  }
  if (search.sorted) {
    const docs = referencePage(expected.order, search, from, size);
    for (let i = 0; i < size; i++) {
      const id = expected.corpus.ids[docs[i]], price = expected.corpus.keys[docs[i]];
      if (page.ids[i] !== id || page.values[i] !== price) {
        throw new WrongAnswer(`${what}: hit ${from + i} is ${page.ids[i]} sort [${page.values[i]}], expected ${id} sort [${price}] (price desc, then shard, then index order)`);
      }
    }
  }
  return page;
}

/** Lucene's and deeppage's pages of one scored search: the same `_id`s, and deeppage's scores 2.2 × Lucene's. */
export function checkScores(what: string, lucene: Page, deeppage: Page): number {
  let worst = 0;
  for (let i = 0; i < lucene.ids.length; i++) {
    const want = lucene.values[i] * SCORE_FACTOR;
    const error = Math.abs(deeppage.values[i] - want) / want;
    if (lucene.ids[i] !== deeppage.ids[i] || !(error <= SCORE_TOLERANCE)) {
      throw new WrongAnswer(`${what}: hit ${i} is ${deeppage.ids[i]} _score ${deeppage.values[i]} on deeppage, ${lucene.ids[i]} _score ${lucene.values[i]} (× ${SCORE_FACTOR} = ${want}) on Lucene`);
    }
    worst = Math.max(worst, error);
  }
  return worst;
}

/** Corpus positions of the page [from, from + size) of `search` in the reference order. */
function referencePage(order: Uint32Array, search: Search, from: number, size: number): number[] {
  const docs: number[] = [];
  for (let r = 0, seen = 0; r < order.length && docs.length < size; r++) {
    if (!search.matches(order[r])) continue;
    if (seen++ >= from) docs.push(order[r]);
  }
  return docs;
}
