/**
 * `search_after` by Elasticsearch's algorithm (`paging: top_k`, what a node with `search.paging:
 * top_k` does for every search): each shard's best `size` after the position, found by a scan of its
 * matches, merged at the coordinator. Walked page by page, with and without a point in time, it gives
 * the same hits, in the same order, with the same sort values as sorted runs, and as one top-k page of
 * everything; and it reads no sorted run and builds none, even where the segments keep runs already
 * (but for a numeric range's field run, which stands for the field's points).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest, type Paging, type SortClause } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';

const field = (name: string, order: 'asc' | 'desc', missing: '_first' | '_last'): SortClause => ({ kind: 'field', field: name, order, missing });

const SORTS: SortClause[][] = [
  [field('n', 'asc', '_last')],
  // A number first with ties, then another key: a scan may pass over a document on the first key only when it is strictly worse.
  [field('n', 'asc', '_last'), field('tag', 'desc', '_first')],
  [field('n', 'desc', '_first'), field('tag', 'asc', '_last')],
  [field('tag', 'desc', '_last'), field('n', 'asc', '_first')],
  [field('at', 'asc', '_first'), field('n', 'desc', '_last')],
  [{ kind: 'score', order: 'desc' }, field('n', 'asc', '_last')],
];

const QUERIES: Query[] = [
  { kind: 'match_all', boost: 1 },
  { kind: 'term', field: 'tag', value: 'a', caseInsensitive: false, boost: 1 },
  { kind: 'range', field: 'n', gte: 1, boost: 1 },
  // Reads the clock: never kept as a query run, under either paging.
  { kind: 'range', field: 'at', lte: 'now', boost: 1 },
];

/** Heavy ties (four values a field) and missing values. */
const docArb = fc.record(
  {
    n: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    tag: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
    at: fc.option(fc.constantFrom('2020-01-01', '2021-06-01', '2022-01-01'), { nil: undefined }),
  },
  { requiredKeys: [] },
);

const mappings = { properties: { tag: { type: 'keyword' }, n: { type: 'long' }, at: { type: 'date' } } };

/** The figures that move when a search reads or builds a sorted run. */
const runFigures = (engine: Engine) => {
  const { count, hit_count, miss_count, background_builds, pending_builds } = engine.runStats();
  return { count, hit_count, miss_count, background_builds, pending_builds };
};

describe('search_after by top_k paging', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  it('walks the same pages as sorted runs, with and without a point in time, reading no run', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 120, size: 'max' }),
        fc.array(fc.nat({ max: 59 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(...SORTS),
        fc.constantFrom(...QUERIES),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        // Segments of 11 documents, or one per shard: a page that is a small share of a segment is collected in a heap.
        fc.constantFrom(11, 1_000),
        async (docs, deletes, shards, sort, query, size, warm, segmentDocs) => {
          const name = `after-${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: shards, refresh_interval: -1 }, mappings });
          try {
            // Several segments per shard, some with deletes.
            for (const [i, doc] of docs.entries()) {
              await engine.write([{ action: 'index', index: name, id: `d${i}`, source: doc }]);
              if (i % segmentDocs === segmentDocs - 1) engine.refresh(name);
            }
            const gone = [...new Set(deletes)].filter((i) => i < docs.length);
            if (gone.length > 0) await engine.write(gone.map((i) => ({ action: 'delete' as const, index: name, id: `d${i}` })));
            engine.refresh(name);
            if (warm) {
              // The segments' own runs and the query's runs kept: top_k must still not read them.
              engine.search(name, searchRequest({ sort, from: 1_000, size: 1 }));
              engine.search(name, searchRequest({ query, sort, from: 1_000, size: 1 }));
              await engine.runs.settled();
            }
            const ranged = query.kind === 'range';
            const pit = { id: engine.openPointInTime(name, 60_000).id };
            const walk = (paging: Paging, inPit: boolean) => {
              const hits: { _id?: string; sort?: unknown[] }[] = [];
              let after: unknown[] | undefined;
              // Bounded: a walk that does not advance fails instead of spinning.
              for (let step = 0; step <= docs.length; step++) {
                const page = engine.search(inPit ? undefined : name, searchRequest({ query, sort, size, paging, ...(inPit && { pit }), ...(after && { after }) })).hits.hits;
                if (page.length === 0) return hits;
                hits.push(...page.map(({ _id, sort }) => ({ _id, sort })));
                after = page[page.length - 1].sort;
              }
              throw new Error(`the ${paging} walk did not end`);
            };
            for (const inPit of [true, false]) {
              const label = JSON.stringify({ inPit, shards, sort, query, size, warm, segmentDocs });
              // A numeric range finds its matches in the field's ascending run, as Elasticsearch finds
              // them in the field's points: built here first (again for segments a background merge
              // made since), so that the walk builds nothing.
              for (let tries = 0; ranged && tries < 5; tries++) {
                const { miss_count } = runFigures(engine);
                engine.search(inPit ? undefined : name, searchRequest({ query, sort, size: 1, paging: 'top_k', ...(inPit && { pit }) }));
                if (runFigures(engine).miss_count === miss_count) break;
                await engine.runs.settled();
              }
              const before = runFigures(engine);
              const topK = walk('top_k', inPit);
              // Only a range's field run is read (a hit); no run is missed, built or scheduled.
              const after = runFigures(engine);
              expect({ ...after, hit_count: 0 }, label).toEqual({ ...before, hit_count: 0 });
              if (!ranged) expect(after.hit_count, label).toBe(before.hit_count);
              expect(walk('sorted_runs', inPit), label).toEqual(topK);
              await engine.runs.settled();
              expect(walk('sorted_runs', inPit), `${label}, runs built`).toEqual(topK);
              if (inPit) {
                // In a point in time every hit is unique (`_shard_doc`): the walk is the whole order.
                const whole = engine.search(undefined, searchRequest({ query, sort, size: docs.length, paging: 'top_k', pit })).hits.hits;
                expect(topK, label).toEqual(whole.map(({ _id, sort }) => ({ _id, sort })));
              }
            }
            engine.cursors.closePits([pit.id]);
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
