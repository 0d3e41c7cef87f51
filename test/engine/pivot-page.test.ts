/**
 * Deep pages of a new sort found by pivots (search/pivot-page.ts): after `_cache/clear`, with no
 * sorted run anywhere, a page at any depth equals the same page by Elasticsearch's algorithm
 * (`paging: top_k`, every segment's top `from + size` merged), an independent path through the
 * engine. Values are spread (so the pivots cut between distinct values) or clustered, with -0 and
 * +0, infinities, missing values and stand-ins; several shards and segments, some deletes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { parseQueryDsl } from '../../src/engine/request/query-dsl.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';

const field = (name: string, order: 'asc' | 'desc', missing: '_last' | '_first' | number): SortClause => ({ kind: 'field', field: name, order, missing });

const SORTS: SortClause[][] = [
  [field('x', 'asc', '_last')],
  [field('x', 'desc', '_last')],
  [field('x', 'asc', '_first')],
  [field('x', 'desc', 0)],
  [field('n', 'asc', '_last'), field('x', 'desc', '_first')],
  [field('tag', 'asc', '_last')],
  [field('tag', 'desc', '_first'), field('x', 'asc', '_last')],
  [{ kind: 'doc', order: 'desc' }],
];

const specials = [0, -0, Infinity, -Infinity, 1e300, -1e300];

const docArb = (kind: 'spread' | 'clustered') =>
  fc.record(
    {
      x: fc.oneof(
        { weight: 8, arbitrary: kind === 'spread' ? fc.double({ min: -1e6, max: 1e6, noNaN: true }) : fc.integer({ min: -20, max: 20 }).map((v) => v / 4) },
        { weight: 1, arbitrary: fc.constantFrom(...specials) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      n: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      tag: fc.option(fc.integer({ min: 0, max: 300 }).map((v) => `t${v}`), { nil: undefined }),
    },
    { requiredKeys: [] },
  );

const mappings = { properties: { x: { type: 'double' }, n: { type: 'long' }, tag: { type: 'keyword' } } };

/** An index of `docs` in segments of `segmentDocs`, then `deletes` (positions in `docs`) deleted; returns the live count. */
async function load(engine: Engine, name: string, docs: Record<string, unknown>[], shards: number, segmentDocs: number, deletes: number[]): Promise<number> {
  await engine.createIndex(name, { settings: { number_of_shards: shards, refresh_interval: -1, max_result_window: 100_000 }, mappings });
  for (let at = 0; at < docs.length; at += segmentDocs) {
    await engine.write(docs.slice(at, at + segmentDocs).map((source, i) => ({ action: 'index' as const, index: name, id: `d${at + i}`, source })));
    engine.refresh(name);
  }
  const gone = [...new Set(deletes)].filter((i) => i < docs.length);
  if (gone.length > 0) await engine.write(gone.map((i) => ({ action: 'delete' as const, index: name, id: `d${i}` })));
  engine.refresh(name);
  return docs.length - gone.length;
}

describe('deep pages by pivots', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made), { pivotMinDocs: 1 });

  it('equal top_k pages at any depth, with no run kept', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('spread' as const, 'clustered' as const).chain((kind) => fc.array(docArb(kind), { minLength: 50, maxLength: 2500 })),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 50, max: 700 }),
        fc.array(fc.nat({ max: 2499 }), { maxLength: 60 }),
        fc.array(fc.tuple(fc.constantFrom(...SORTS), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 30 })), { minLength: 1, maxLength: 8 }),
        async (docs, shards, segmentDocs, deletes, pages) => {
          const name = `pivot-${round++}`;
          try {
            const live = await load(engine, name, docs, shards, segmentDocs, deletes);
            for (const [sort, depth, size] of pages) {
              const from = Math.min(live, Math.floor(depth * live));
              engine.clearCaches(name);
              const before = engine.runStats().hit_count;
              const got = engine.search(name, searchRequest({ sort, from, size, source: false }));
              // No run was read: the page came from the pivots.
              expect(engine.runStats().hit_count).toBe(before);
              const want = engine.search(name, searchRequest({ sort, from, size, source: false, paging: 'top_k' }));
              const label = JSON.stringify({ sort, from, size, shards, live });
              expect(got.hits.hits.map(({ _id, sort }) => ({ _id, sort })), label).toEqual(want.hits.hits.map(({ _id, sort }) => ({ _id, sort })));
            }
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('deep pages of a new filter by pivots', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made), { pivotMinDocs: 1 });

  it('equal top_k pages at any depth, with the sort runs kept and with none', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('spread' as const, 'clustered' as const).chain((kind) => fc.array(docArb(kind), { minLength: 50, maxLength: 2000 })),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 50, max: 600 }),
        fc.array(fc.nat({ max: 1999 }), { maxLength: 60 }),
        fc.boolean(),
        fc.array(
          fc.tuple(
            fc.constantFrom(...SORTS),
            fc.oneof(
              fc.integer({ min: 0, max: 5 }).map((lo) => ({ range: { n: { gte: lo, lte: lo + 2 } } })),
              fc.integer({ min: 0, max: 300 }).map((v) => ({ range: { tag: { gte: `t${v}` } } })),
              fc.integer({ min: -20, max: 20 }).map((v) => ({ range: { x: { lt: v / 4 } } })),
            ),
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.integer({ min: 1, max: 30 }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        async (docs, shards, segmentDocs, deletes, warm, pages) => {
          const name = `filter-pivot-${round++}`;
          try {
            await load(engine, name, docs, shards, segmentDocs, deletes);
            engine.clearCaches(name);
            for (const [sort, filter, depth, size] of pages) {
              const query = parseQueryDsl({ bool: { filter: [filter] } });
              if (warm) {
                // The sort's runs and the filter field's run held, as on a node that has served both.
                engine.search(name, searchRequest({ sort, from: docs.length, size: 1, source: false }));
                engine.search(name, searchRequest({ query, sort, size: 1, source: false }));
                await engine.runs.settled();
              }
              const total = engine.count(name, query).count;
              const from = Math.min(total, Math.floor(depth * total));
              const got = engine.search(name, searchRequest({ query, sort, from, size, source: false }));
              const want = engine.search(name, searchRequest({ query, sort, from, size, source: false, paging: 'top_k' }));
              const label = JSON.stringify({ sort, filter, from, size, shards, total, warm });
              expect(got.hits.hits.map(({ _id, sort }) => ({ _id, sort })), label).toEqual(want.hits.hits.map(({ _id, sort }) => ({ _id, sort })));
              expect(got.hits.total, label).toEqual(want.hits.total);
              engine.clearCaches(name);
            }
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      // Shrinking an index of 2,000 documents per step outlasts the timeout: a failure is reported as found.
      { numRuns: 25, endOnFailure: true },
    );
  }, 180_000);
});
