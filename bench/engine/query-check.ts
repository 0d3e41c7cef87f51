/**
 * What a search with a query must answer, before it is timed: its matches in page order (corpus
 * positions), with their scores when the search is scored, and the check of a page against them.
 *
 * - A filter sorted by the corpus's field: the placement's reference order (bench/engine/placement.ts)
 *   restricted to the matches, computed in plain JS.
 * - A scored `match`: plain JS gives the set of matches but not BM25, so the order is the engine's
 *   own answer holding every match (one page, `paging: top_k`), held to what can be checked without
 *   recomputing scores: exactly the matching documents, each once, scores non-increasing, and equal
 *   scores by shard, then index order (the tie-break of every page). Each timed page, of either
 *   strategy, must then be its slice, ids and scores.
 *
 * A page equal to its slice of a reference without repeats cannot overlap the next page's slice,
 * so consecutive pages never share a document.
 */
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import type { SearchResponse } from '../../src/engine/search/search.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Placement } from './placement.ts';
import { positions } from './strategies/deeppage.ts';

export interface QueryReference {
  /** Every match, in page order. */
  docs: Uint32Array;
  /** `scores[r]`: the score of the match at rank r, for a scored search. */
  scores?: Float64Array;
}

/** The matches of a filter: `order` (every document in page order) restricted to those `matches` keeps. */
export function filteredReference(order: Uint32Array, matches: (doc: number) => boolean): QueryReference {
  return { docs: order.filter(matches) };
}

/** The reference of a scored search over `placement`'s index, whose matches are the documents `matches` keeps. */
export function scoredReference(engine: Engine, index: string, query: Query, placement: Placement, matches: (doc: number) => boolean, what: string): QueryReference {
  const { corpus, shardOf } = placement;
  let expected = 0;
  for (let i = 0; i < corpus.ids.length; i++) if (matches(i)) expected++;
  const answer = engine.search(index, searchRequest({ query, from: 0, size: Math.max(expected, 1), source: false, paging: 'top_k' }));
  checkShards(answer, `${what}, every match at once`);
  const position = positions(corpus);
  const hits = answer.hits.hits;
  if (hits.length !== expected) throw new WrongAnswer(`${what}: ${hits.length} hits for every match at once, expected ${expected}`);
  const docs = new Uint32Array(hits.length);
  const scores = new Float64Array(hits.length);
  const seen = new Uint8Array(corpus.ids.length);
  for (let r = 0; r < hits.length; r++) {
    const doc = position.get(hits[r]._id!);
    const score = hits[r]._score;
    if (doc === undefined || !matches(doc)) throw new WrongAnswer(`${what}: hit ${r} is ${hits[r]._id}, which does not match`);
    if (seen[doc]) throw new WrongAnswer(`${what}: ${hits[r]._id} appears twice`);
    if (typeof score !== 'number' || !(score > 0)) throw new WrongAnswer(`${what}: hit ${r} (${hits[r]._id}) has _score ${score}`);
    seen[doc] = 1;
    docs[r] = doc;
    scores[r] = score;
    if (r === 0) continue;
    const prev = docs[r - 1];
    const inOrder = scores[r - 1] > score || (scores[r - 1] === score && (shardOf[prev] < shardOf[doc] || (shardOf[prev] === shardOf[doc] && prev < doc)));
    if (!inOrder) {
      throw new WrongAnswer(`${what}: hit ${r} (${hits[r]._id}, shard ${shardOf[doc]}, _score ${score}) follows ${corpus.ids[prev]} (shard ${shardOf[prev]}, _score ${scores[r - 1]}) out of order`);
    }
  }
  return { docs, scores };
}

/** A search's page against its slice of the reference: the same documents in the same order, and the same scores when scored. */
export function checkQueryPage(where: string, placement: Placement, reference: QueryReference, from: number, size: number, answer: SearchResponse): void {
  checkShards(answer, where);
  const { corpus } = placement;
  const position = positions(corpus);
  const hits = answer.hits.hits;
  const want = reference.docs.subarray(Math.min(from, reference.docs.length), Math.min(from + size, reference.docs.length));
  if (hits.length !== want.length) throw new WrongAnswer(`${where}: ${hits.length} hits, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    const doc = position.get(hits[i]._id!);
    if (doc !== want[i]) throw new WrongAnswer(`${where}: hit ${from + i} is ${hits[i]._id}, expected ${corpus.ids[want[i]]}`);
    if (reference.scores && hits[i]._score !== reference.scores[from + i]) {
      throw new WrongAnswer(`${where}: hit ${from + i} (${hits[i]._id}) has _score ${hits[i]._score}, expected ${reference.scores[from + i]}`);
    }
  }
}

/** A sort by the corpus's field, descending, as every filtered search here asks. */
export function fieldSort(field: string): SortClause[] {
  return [{ kind: 'field', field, order: 'desc', missing: '_last' }];
}

function checkShards(answer: SearchResponse, where: string): void {
  const { failed, total } = answer._shards;
  if (failed > 0) throw new WrongAnswer(`${where}: ${failed} of ${total} shards failed: ${JSON.stringify(answer._shards.failures).slice(0, 300)}`);
}
