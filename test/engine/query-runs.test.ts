/**
 * Query runs: a query's sorted matches kept per segment so that later pages cost what a first page
 * costs. Whatever state the run cache is in (cold, runs scheduled, built, taken from a segment's
 * own run, filtered after deletes), pages by sorted runs equal Elasticsearch's algorithm
 * (`paging: top_k`) on the same snapshot, scores included; and `min_score` leaves out what scores
 * less, as Elasticsearch's count/30_min_score test expects.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest, type SearchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';
import { docArb, queryArb, sourceOf, type Doc } from './query-reference.ts';

const SORTS: { sort: SortClause[]; trackScores?: boolean }[] = [
  { sort: [] },
  { sort: [{ kind: 'field', field: 'n', order: 'asc', missing: '_last' }] },
  { sort: [{ kind: 'field', field: 'n', order: 'desc', missing: '_first' }], trackScores: true },
  { sort: [{ kind: 'field', field: 'tag', order: 'asc', missing: '_last' }, { kind: 'score', order: 'desc' }] },
  { sort: [{ kind: 'score', order: 'asc' }, { kind: 'field', field: 'n', order: 'desc', missing: '_last' }] },
];

const mappings = { properties: { body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, at: { type: 'date' } } };

describe('query runs', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  /** Every hit of the search as [id, score], page after page of `size`. */
  const paged = (index: string, request: Partial<SearchRequest>, total: number, size: number) => {
    const out: [string, number | null][] = [];
    for (let from = 0; from < total; from += size) out.push(...engine.search(index, searchRequest({ ...request, from, size })).hits.hits.map((h): [string, number | null] => [h._id!, h._score]));
    return out;
  };

  it("page as Elasticsearch's algorithm does, cold, warm, from a segment's run and after deletes", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat({ max: 39 }), { maxLength: 8 }),
        queryArb,
        fc.constantFrom(...SORTS),
        fc.integer({ min: 1, max: 7 }),
        async (raw, deletes, query, { sort, trackScores = false }, size) => {
          const name = `r${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings });
          try {
            const docs: Doc[] = raw.map((d, i) => ({ id: `d${i}`, ...d }));
            // Three refreshes: several segments per shard.
            for (const part of [docs.slice(0, 10), docs.slice(10, 25), docs.slice(25)]) {
              await engine.write(part.map((d) => ({ action: 'index', index: name, id: d.id, source: sourceOf(d) })));
              engine.refresh(name);
            }
            const request = { query, sort, trackScores };
            const check = async (what: string) => {
              const expected = engine.search(name, searchRequest({ ...request, size: 100, paging: 'top_k' })).hits;
              const total = (expected.total as { value: number }).value;
              const truth = expected.hits.map((h) => [h._id, h._score]);
              // Cold: the first pages answer by top-k and schedule runs; deep ones build them.
              expect(paged(name, request, total, size), `${what}, cold`).toEqual(truth);
              await engine.runs.settled();
              // The query's own runs are kept by now (none when nothing matches).
              if (total > 0) expect(engine.runsHeld([engine.resolveOne(name)]).count, what).toBeGreaterThan(0);
              expect(paged(name, request, total, size), `${what}, warm`).toEqual(truth);
              const whole = engine.search(name, searchRequest({ ...request, size: 100 })).hits;
              expect([whole.total, whole.max_score], what).toEqual([expected.total, expected.max_score]);
            };
            await check('fresh');
            // The segments' own runs for the sort, then the query again: filters take from them.
            engine.clearCaches(name);
            if (sort.length > 0) engine.search(name, searchRequest({ sort, from: 90, size: 10 }));
            await check('from the segments runs');
            await engine.write([...new Set(deletes)].filter((i) => i < docs.length).map((i) => ({ action: 'delete', index: name, id: `d${i}` })));
            engine.refresh(name);
            await check('after deletes');
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('walk a point in time with search_after as the top-k walk does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docArb, { minLength: 1, maxLength: 30 }), queryArb, fc.integer({ min: 1, max: 5 }), async (raw, query, size) => {
        await engine.createIndex('walk', { settings: { number_of_shards: 3, refresh_interval: -1 }, mappings });
        try {
          for (const [i, d] of raw.entries()) {
            await engine.write([{ action: 'index', index: 'walk', id: `d${i}`, source: sourceOf({ id: '', ...d }) }]);
            if (i % 7 === 6) engine.refresh('walk');
          }
          engine.refresh('walk');
          const pit = { id: engine.openPointInTime('walk', 60_000).id };
          const sort: SortClause[] = [{ kind: 'score', order: 'desc' }, { kind: 'field', field: 'n', order: 'asc', missing: '_last' }, { kind: 'shard_doc', order: 'asc' }];
          const walk = (paging: 'top_k' | 'sorted_runs') => {
            const ids: string[] = [];
            let after: unknown[] | undefined;
            // Bounded: a walk that does not advance fails instead of spinning.
            for (let step = 0; step <= raw.length; step++) {
              const { hits } = engine.search(undefined, searchRequest({ query, sort, size, pit, paging, ...(after && { after }) }));
              if (hits.hits.length === 0) return ids;
              ids.push(...hits.hits.map((h) => h._id!));
              after = hits.hits[hits.hits.length - 1].sort;
            }
            throw new Error(`the ${paging} walk did not end`);
          };
          const truth = walk('top_k');
          expect(walk('sorted_runs')).toEqual(truth);
          await engine.runs.settled();
          expect(walk('sorted_runs')).toEqual(truth);
          engine.cursors.closePits([pit.id]);
        } finally {
          await engine.deleteIndices('walk');
        }
      }),
      { numRuns: 30 },
    );
  });

  it('answers ranges and terms over a single-valued field from its sorted run as a scan does', async () => {
    await engine.createIndex('ranges', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings });
    for (let part = 0; part < 3; part++) {
      // Integers with ties, some missing; every few documents with none at all.
      await engine.write(Array.from({ length: 60 }, (_, i) => ({ action: 'index' as const, index: 'ranges', id: `${part}-${i}`, source: i % 7 === 0 ? { tag: 'x' } : { n: (i * 13 + part) % 23 } })));
      engine.refresh('ranges');
    }
    const bound = fc.option(fc.oneof(fc.integer({ min: -2, max: 25 }), fc.double({ min: -2, max: 25, noNaN: true })), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.record({ gt: bound, gte: bound, lt: bound, lte: bound }), fc.integer({ min: -1, max: 23 }), async (bounds, value) => {
        // A range, or a term (one value is a range of one), as the case may be.
        const query: Query = value % 3 === 0 ? { kind: 'term', field: 'n', value, caseInsensitive: false, boost: 1 } : { kind: 'range', field: 'n', ...bounds, boost: 1 };
        const hits = (paging: 'top_k' | 'sorted_runs') => engine.search('ranges', searchRequest({ query, size: 200, paging, sort: [{ kind: 'doc', order: 'asc' }] })).hits.hits.map((h) => h._id);
        // The plain model: every document's value tested against the bounds.
        const inRange = (n: number) =>
          value % 3 === 0
            ? n === value
            : (bounds.gt === undefined || n > bounds.gt) && (bounds.gte === undefined || n >= bounds.gte) && (bounds.lt === undefined || n < bounds.lt) && (bounds.lte === undefined || n <= bounds.lte);
        const expected = Array.from({ length: 3 }, (_, part) => Array.from({ length: 60 }, (_, i) => ({ id: `${part}-${i}`, n: i % 7 === 0 ? undefined : (i * 13 + part) % 23 })))
          .flat()
          .filter(({ n }) => n !== undefined && inRange(n))
          .map(({ id }) => id)
          .sort();
        const scanned = hits('top_k');
        expect([...scanned].sort()).toEqual(expected);
        expect(hits('sorted_runs')).toEqual(scanned);
        await engine.runs.settled();
        engine.clearCaches('ranges');
        await engine.runs.settled();
        // The field's runs are kept now (built after the first range): the same hits from them.
        engine.search('ranges', searchRequest({ query, size: 0 }));
        await engine.runs.settled();
        expect(hits('sorted_runs')).toEqual(scanned);
      }),
      { numRuns: 40 },
    );
    await engine.deleteIndices('ranges');
  });

  it('counts and pages a range known from the field run as a scan does, through deletes, on shallow and deep pages', async () => {
    await engine.createIndex('known', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings });
    for (let part = 0; part < 3; part++) {
      await engine.write(Array.from({ length: 80 }, (_, i) => ({ action: 'index' as const, index: 'known', id: `${part}-${i}`, source: i % 9 === 0 ? { tag: 'x' } : { n: (i * 7 + part) % 31, at: (i * 11) % 17 } })));
      engine.refresh('known');
    }
    const sort: SortClause[] = [{ kind: 'field', field: 'at', order: 'desc', missing: '_last' }];
    const ids = Array.from({ length: 3 }, (_, part) => Array.from({ length: 80 }, (_, i) => `${part}-${i}`)).flat();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1, max: 31 }), fc.integer({ min: 0, max: 12 }), fc.subarray(ids, { maxLength: 30 }), fc.constantFrom(0, 3, 40), async (lo, width, gone, from) => {
        const query: Query = { kind: 'range', field: 'n', gte: lo, lt: lo + width, boost: 1 };
        // A new query each time, over kept runs of the sort and of the field (another range builds
        // it); then deletes, which the kept runs are filtered to.
        engine.clearCaches('known');
        engine.search('known', searchRequest({ sort, from: 200, size: 1 }));
        engine.search('known', searchRequest({ query: { kind: 'range', field: 'n', gt: 100, boost: 1 }, size: 0 }));
        await engine.runs.settled();
        if (gone.length > 0) {
          await engine.write(gone.map((id) => ({ action: 'delete' as const, index: 'known', id })));
          engine.refresh('known');
        }
        const page = (paging: 'top_k' | 'sorted_runs') => {
          const { hits } = engine.search('known', searchRequest({ query, sort, from, size: 5, paging, trackTotalHits: true }));
          return { total: hits.total, ids: hits.hits.map((h) => h._id) };
        };
        expect(page('sorted_runs')).toEqual(page('top_k'));
        // The count against the plain model: live documents whose value is in [lo, lo + width).
        const expected = ids.filter((id) => {
          if (gone.includes(id)) return false;
          const [part, i] = id.split('-').map(Number);
          const n = (i * 7 + part) % 31;
          return i % 9 !== 0 && n >= lo && n < lo + width;
        }).length;
        expect(engine.count('known', query).count).toBe(expected);
        expect(page('top_k').total).toEqual({ value: expected, relation: 'eq' });
        // Put back what was deleted, for the next case.
        if (gone.length > 0) {
          await engine.write(gone.map((id) => { const [part, i] = id.split('-').map(Number); return { action: 'index' as const, index: 'known', id, source: i % 9 === 0 ? { tag: 'x' } : { n: (i * 7 + part) % 31, at: (i * 11) % 17 } }; }));
          engine.refresh('known');
        }
      }),
      { numRuns: 40 },
    );
    await engine.deleteIndices('known');
  });

  it('keeps a query run per segment and reuses it, but never for a query that reads the clock', async () => {
    await engine.createIndex('kept', { settings: { number_of_shards: 1, refresh_interval: -1 }, mappings });
    await engine.write(Array.from({ length: 50 }, (_, i) => ({ action: 'index', index: 'kept', id: String(i), source: { n: i, tag: i % 2 ? 'odd' : 'even', at: Date.now() - i * 3_600_000 } })), 'true');
    const runs = () => engine.runsHeld([engine.resolveOne('kept')]).count;
    const evens: Query = { kind: 'term', field: 'tag', value: 'even', caseInsensitive: false, boost: 1 };
    const sort: SortClause[] = [{ kind: 'field', field: 'n', order: 'desc', missing: '_last' }];
    const first = () => engine.search('kept', searchRequest({ query: evens, sort, size: 3 })).hits.hits.map((h) => h._id);
    expect(first()).toEqual(['48', '46', '44']);
    await engine.runs.settled();
    // A query asked once builds nothing between requests (no demand yet); asked again, it does.
    expect(runs()).toBe(0);
    expect(first()).toEqual(['48', '46', '44']);
    await engine.runs.settled();
    expect(runs()).toBe(1);
    const misses = engine.runs.stats().miss_count;
    expect(engine.search('kept', searchRequest({ query: evens, sort, from: 22, size: 5 })).hits.hits.map((h) => h._id)).toEqual(['4', '2', '0']);
    expect([runs(), engine.runs.stats().miss_count]).toEqual([1, misses]);
    // A page past the first is demand too: a new query's run is built after it.
    const odds: Query = { kind: 'term', field: 'tag', value: 'odd', caseInsensitive: false, boost: 1 };
    expect(engine.search('kept', searchRequest({ query: odds, sort, from: 3, size: 2 })).hits.hits.map((h) => h._id)).toEqual(['43', '41']);
    await engine.runs.settled();
    expect(runs()).toBe(2);

    const lastDay: Query = { kind: 'range', field: 'at', gte: 'now-1d', boost: 1 };
    const recent = engine.search('kept', searchRequest({ query: lastDay, sort, from: 20, size: 10 })).hits;
    expect(recent.total).toEqual({ value: 24, relation: 'eq' });
    await engine.runs.settled();
    // The field's own run, which serves any range over it, but no run of the query.
    expect(runs()).toBe(3);
    engine.search('kept', searchRequest({ query: lastDay, sort, from: 20, size: 10 }));
    await engine.runs.settled();
    expect(runs()).toBe(3);
    await engine.deleteIndices('kept');
  });

  it("leaves out what scores under min_score, as Elasticsearch's count/30_min_score does", async () => {
    await engine.createIndex('min', { settings: { number_of_shards: 1 }, mappings: { properties: { field: { type: 'text' } } } });
    await engine.write(
      [
        { action: 'index', index: 'min', id: '1', source: { field: 'foo bar' } },
        { action: 'index', index: 'min', id: '2', source: { field: 'foo bar bar bar bar' } },
      ],
      'true',
    );
    const query: Query = { kind: 'match', field: 'field', query: 'foo', operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 };
    const hits = (minScore: number, extra: Partial<SearchRequest> = {}) => engine.search('min', searchRequest({ query, minScore, ...extra })).hits;
    expect(hits(0.2).hits.map((h) => [h._id, h._score])).toEqual([['1', 0.22108284]]);
    expect(hits(0.2).total).toEqual({ value: 1, relation: 'eq' });
    expect(hits(0.1).hits.map((h) => h._id)).toEqual(['1', '2']);
    // The boundary is kept (score >= min_score).
    expect(hits(Math.fround(0.15512443)).hits.map((h) => h._id)).toEqual(['1', '2']);
    expect(engine.count('min', query, undefined, 0.2).count).toBe(1);
    // Sorted by a field, the scores still decide; hits show none unless asked.
    const byDoc = hits(0.2, { sort: [{ kind: 'doc', order: 'asc' }] });
    expect(byDoc.hits.map((h) => [h._id, h._score])).toEqual([['1', null]]);
    // match_all scores its boost.
    const all = (minScore: number) => engine.search('min', searchRequest({ minScore })).hits.hits.length;
    expect([all(1), all(1.5)]).toEqual([2, 0]);
    await engine.deleteIndices('min');
  });
});
