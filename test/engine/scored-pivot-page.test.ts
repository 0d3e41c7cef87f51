/**
 * Pages of a new `match` query by score: a first page from the core's best matches (one call per
 * segment), a deep one by pivots on the scores (search/scored-pivot-page.ts), so no run is sorted
 * for the page. Every page must equal the same page of the equivalent `bool` of `term` clauses by
 * Elasticsearch's algorithm (`paging: top_k`), whose disjunction is summed by the plain path
 * (query/matches.ts), ids, scores, totals and max_score alike: on a cold node, and with some segments holding the query's run (built between
 * requests) beside new segments without one. Titles come from a small vocabulary, so scores tie
 * often and the tie-break (shard, then document) decides many places.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { parseQueryDsl } from '../../src/engine/request/query-dsl.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
const titleArb = fc.array(fc.constantFrom(...WORDS, 'alpha', 'alpha', 'beta'), { minLength: 0, maxLength: 6 }).map((words) => words.join(' '));
const queryArb = fc.record({
  words: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  minimum: fc.option(fc.constantFrom('1', '2', '50%'), { nil: undefined }),
});

describe('deep pages of a scored query by pivots', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made), { pivotMinDocs: 1 });

  it('equal top_k pages at any depth, cold and beside kept runs', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(titleArb, { minLength: 50, maxLength: 1500 }),
        fc.array(titleArb, { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 40, max: 500 }),
        fc.array(fc.nat({ max: 1499 }), { maxLength: 60 }),
        fc.array(fc.tuple(queryArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 5 }),
        async (titles, later, shards, segmentDocs, deletes, pages) => {
          const name = `scored-pivot-${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: shards, refresh_interval: -1, max_result_window: 100_000 }, mappings: { properties: { title: { type: 'text' } } } });
          const write = async (batch: string[], first: number) => {
            for (let at = 0; at < batch.length; at += segmentDocs) {
              await engine.write(batch.slice(at, at + segmentDocs).map((title, i) => ({ action: 'index' as const, index: name, id: `d${first + at + i}`, source: { title } })));
              engine.refresh(name);
            }
          };
          try {
            await write(titles, 0);
            const gone = [...new Set(deletes)].filter((i) => i < titles.length);
            if (gone.length > 0) await engine.write(gone.map((i) => ({ action: 'delete' as const, index: name, id: `d${i}` })));
            engine.refresh(name);
            const check = (label: string) => {
              for (const [{ words, minimum }, depth, size] of pages) {
                const query = parseQueryDsl({ match: { title: minimum === undefined ? words.join(' ') : { query: words.join(' '), minimum_should_match: minimum } } });
                const total = engine.count(name, query).count;
                const from = Math.min(total, Math.floor(depth * total));
                const should = words.map((word) => ({ term: { title: word } }));
                // A one-word match is a term query: minimum_should_match does not apply to it.
                const plain = parseQueryDsl({ bool: minimum === undefined || words.length === 1 ? { should } : { should, minimum_should_match: minimum } });
                const got = engine.search(name, searchRequest({ query, from, size, source: false }));
                const want = engine.search(name, searchRequest({ query: plain, from, size, source: false, paging: 'top_k' }));
                const where = `${label} ${JSON.stringify({ words, minimum, from, size, shards, total })}`;
                expect(got.hits.hits.map(({ _id, _score }) => ({ _id, _score })), where).toEqual(want.hits.hits.map(({ _id, _score }) => ({ _id, _score })));
                expect(got.hits.total, where).toEqual(want.hits.total);
                expect(got.hits.max_score, where).toBe(want.hits.max_score);
              }
            };
            engine.clearCaches(name);
            check('cold');
            // The pages past the first asked for their runs: built now, then a segment without one.
            await engine.runs.settled();
            await write(later, titles.length);
            check('beside kept runs');
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 180_000);
});
