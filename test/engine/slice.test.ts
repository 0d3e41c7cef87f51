/**
 * Sliced searches (`slice: {id, max}`), as Elasticsearch's SliceBuilder assigns them: every slice's
 * `search_after` walk in a point in time, and every slice's scroll, together give exactly the
 * unsliced walk's documents (none twice, none missing), each slice in the unsliced order with the same
 * sort values (`_shard_doc` included), under both pagings; and the request's checks in ES's words.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { search } from '../../src/engine/request/search-call.ts';
import { scroll } from '../../src/engine/request/scroll.ts';
import { searchRequest, type Paging, type SortClause } from '../../src/engine/search/request.ts';
import { shardShare } from '../../src/engine/search/slice.ts';
import { withTempEngine } from './helpers.ts';

const field = (name: string, order: 'asc' | 'desc', missing: '_first' | '_last'): SortClause => ({ kind: 'field', field: name, order, missing });

const SORTS: SortClause[][] = [
  [field('n', 'asc', '_last')],
  [field('n', 'desc', '_first'), field('tag', 'asc', '_last')],
  [field('tag', 'desc', '_last')],
  [{ kind: 'shard_doc', order: 'asc' }],
  [{ kind: 'score', order: 'desc' }, field('n', 'asc', '_last')],
];

const QUERIES: Query[] = [
  { kind: 'match_all', boost: 1 },
  { kind: 'term', field: 'tag', value: 'a', caseInsensitive: false, boost: 1 },
  { kind: 'range', field: 'n', gte: 1, boost: 1 },
];

const docArb = fc.record(
  { n: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), tag: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }) },
  { requiredKeys: [] },
);

const mappings = { properties: { tag: { type: 'keyword' }, n: { type: 'long' } } };

type Seen = { _id?: string; sort?: unknown[] };

describe('shardShare: SliceBuilder.toFilter', () => {
  it('gives whole shards when there are fewer slices, and splits shards when there are more', () => {
    // 2 shards, 4 slices: slices 0 and 2 on shard 0, 1 and 3 on shard 1 (SliceBuilder's own example).
    expect([0, 1, 2, 3].map((id) => [shardShare(0, 2, { id, max: 4 }), shardShare(1, 2, { id, max: 4 })])).toEqual([
      [{ part: 0, parts: 2 }, 'none'],
      ['none', { part: 0, parts: 2 }],
      [{ part: 1, parts: 2 }, 'none'],
      ['none', { part: 1, parts: 2 }],
    ]);
    // 5 shards, 3 slices: shard i in slice i % 3.
    expect([0, 1, 2, 3, 4].map((place) => shardShare(place, 5, { id: 1, max: 3 }))).toEqual(['none', 'all', 'none', 'none', 'all']);
    // 3 shards, 4 slices: shard 0 has two slices, the others one (whole).
    expect(shardShare(1, 3, { id: 1, max: 4 })).toBe('all');
    expect(shardShare(0, 3, { id: 3, max: 4 })).toEqual({ part: 1, parts: 2 });
    // One shard: always split.
    expect(shardShare(0, 1, { id: 2, max: 3 })).toEqual({ part: 2, parts: 3 });
  });
});

describe('sliced searches', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  it('every slice of a point in time walks its part; together exactly the unsliced walk, in its order, under both pagings', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 0, maxLength: 70 }),
        fc.array(fc.nat({ max: 69 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 2, max: 7 }),
        fc.constantFrom(...SORTS),
        fc.constantFrom(...QUERIES),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom<(Paging | undefined)[]>('top_k', 'sorted_runs'),
        async (docs, deletes, shards, max, sort, query, size, paging) => {
          const name = `slice-${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: shards, refresh_interval: -1 }, mappings });
          try {
            for (const [i, doc] of docs.entries()) {
              await engine.write([{ action: 'index', index: name, id: `d${i}`, source: doc }]);
              if (i % 13 === 12) engine.refresh(name);
            }
            const gone = [...new Set(deletes)].filter((i) => i < docs.length);
            if (gone.length > 0) await engine.write(gone.map((i) => ({ action: 'delete' as const, index: name, id: `d${i}` })));
            engine.refresh(name);
            const pit = { id: engine.openPointInTime(name, 60_000).id };
            const walk = (slice?: { id: number; max: number }) => {
              const hits: Seen[] = [];
              let total = 0;
              let after: unknown[] | undefined;
              for (let step = 0; step <= docs.length + 1; step++) {
                const response = engine.search(undefined, searchRequest({ query, sort, size, paging, pit, trackTotalHits: true, ...(slice && { slice }), ...(after && { after }) }));
                if (step === 0) total = (response.hits.total as { value: number }).value;
                const page = response.hits.hits;
                if (page.length === 0) return { hits, total };
                hits.push(...page.map(({ _id, sort }) => ({ _id, sort })));
                after = page[page.length - 1].sort;
              }
              throw new Error('the walk did not end');
            };
            const whole = walk().hits;
            const label = JSON.stringify({ shards, max, sort, query, size, paging, docs: docs.length });
            const seen = new Map<string, number>();
            for (let id = 0; id < max; id++) {
              const { hits, total } = walk({ id, max });
              expect(total, label).toBe(hits.length);
              const ids = new Set(hits.map((hit) => hit._id!));
              expect(ids.size, label).toBe(hits.length);
              // The slice's hits are the unsliced walk's, in its order, with its sort values.
              expect(hits, label).toEqual(whole.filter((hit) => ids.has(hit._id!)));
              for (const hit of hits) seen.set(hit._id!, (seen.get(hit._id!) ?? 0) + 1);
            }
            expect(seen.size, label).toBe(whole.length);
            expect([...seen.values()].every((n) => n === 1), label).toBe(true);
            engine.cursors.closePits([pit.id]);
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('every slice of a scroll (by _id, or by _shard_doc) scrolls its part; together every document once', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 0, maxLength: 50 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 2, max: 7 }),
        fc.constantFrom(...SORTS.filter((sort) => sort[0].kind !== 'shard_doc'), []),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<Paging>('top_k', 'sorted_runs'),
        fc.constantFrom(undefined, '_shard_doc', '_id'),
        async (docs, shards, max, sort, size, paging, sliceField) => {
          const name = `scroll-slice-${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: shards, refresh_interval: -1 }, mappings });
          try {
            for (const [i, doc] of docs.entries()) {
              await engine.write([{ action: 'index', index: name, id: `d${i}`, source: doc }]);
              if (i % 13 === 12) engine.refresh(name);
            }
            engine.refresh(name);
            const scrolled = (slice?: object) => {
              const body = { size, sort: sort.map((clause) => (clause.kind === 'score' ? '_score' : clause.kind === 'field' ? { [clause.field]: { order: clause.order, missing: clause.missing } } : '_doc')), ...(slice && { slice }) };
              let response = search(engine, name, { scroll: '1m', paging }, body) as ReturnType<typeof search> & { _scroll_id: string };
              const hits: Seen[] = [];
              for (let step = 0; step <= docs.length + 1 && response.hits.hits.length > 0; step++) {
                hits.push(...response.hits.hits.map(({ _id, sort }) => ({ _id, sort })));
                response = scroll(engine, {}, { scroll_id: response._scroll_id, scroll: '1m' }) as typeof response;
              }
              engine.cursors.clearScrolls([response._scroll_id]);
              return hits;
            };
            const whole = scrolled();
            const label = JSON.stringify({ shards, max, sort, size, paging, sliceField, docs: docs.length });
            const seen: string[] = [];
            for (let id = 0; id < max; id++) {
              const hits = scrolled({ id, max, ...(sliceField && { field: sliceField }) });
              const ids = new Set(hits.map((hit) => hit._id!));
              if (sort.length > 0) expect(hits, label).toEqual(whole.filter((hit) => ids.has(hit._id!)));
              seen.push(...hits.map((hit) => hit._id!));
            }
            expect(seen.sort(), label).toEqual(whole.map((hit) => hit._id!).sort());
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses what Elasticsearch refuses, in its words', async () => {
    await engine.createIndex('checks', { settings: { number_of_shards: 2 }, mappings });
    await engine.write([{ action: 'index', index: 'checks', id: '1', source: { n: 1 } }]);
    engine.refresh('checks');
    const pit = { id: engine.openPointInTime('checks', 60_000).id };
    const refusal = (params: Record<string, string>, body: object, index: string | null = 'checks') => {
      try {
        search(engine, index ?? undefined, params, body);
      } catch (e) {
        if (!(e instanceof EsError)) throw e;
        const { status, type, reason } = e;
        return { status, type, reason, cause: e.causedBy?.reason };
      }
      throw new Error('not refused');
    };
    expect(refusal({}, { slice: { id: 0, max: 2 } })).toEqual({
      status: 400,
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;',
      cause: undefined,
    });
    const parse = (field: string, cause: string) => ({ status: 400, type: 'x_content_parse_exception', reason: `[slice] failed to parse field [${field}]`, cause });
    expect(refusal({}, { pit, slice: { id: -1, max: 2 } }, null)).toEqual(parse('id', 'id must be greater than or equal to 0'));
    expect(refusal({}, { pit, slice: { id: 0, max: 1 } }, null)).toEqual(parse('max', 'max must be greater than 1'));
    expect(refusal({}, { pit, slice: { id: 2, max: 2 } }, null)).toEqual(parse('max', 'max must be greater than id'));
    expect(refusal({}, { pit, slice: { max: 2, id: 3 } }, null)).toEqual(parse('id', 'max must be greater than id'));
    expect(refusal({}, { pit, slice: { id: 0, max: 2, size: 1 } }, null)).toMatchObject({ type: 'x_content_parse_exception', reason: '[slice] unknown field [size]' });
    expect(refusal({}, { pit, slice: { id: true, max: 2 } }, null)).toMatchObject({ type: 'x_content_parse_exception', reason: "[slice] id doesn't support values of type: VALUE_BOOLEAN" });
    expect(refusal({}, { pit, slice: 3 }, null)).toMatchObject({ type: 'parsing_exception', reason: 'Unknown key for a VALUE_NUMBER in [slice].' });
    expect(refusal({}, { pit, slice: { id: 0, max: 2, field: 'n' } }, null)).toMatchObject({ type: 'illegal_argument_exception', reason: '[slice] on [n] (only [_shard_doc], [_doc] and [_id]) is not supported by deeppage yet' });
    // Shard failures: the scroll's slice limit, and `_id` where a point in time splits a shard.
    expect(refusal({ scroll: '1m' }, { slice: { id: 0, max: 1025 } })).toEqual({
      status: 400,
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      cause: 'The number of slices [1025] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
    });
    expect(refusal({}, { pit, slice: { id: 0, max: 4, field: '_id' } }, null)).toMatchObject({ type: 'search_phase_execution_exception', cause: 'cannot slice on [_id] when using [point-in-time]' });
    // Whole shards need no field: `_id` is not read.
    expect(search(engine, undefined, {}, { pit, slice: { id: 0, max: 2, field: '_id' } }).hits.hits.length).toBeLessThanOrEqual(1);
    engine.cursors.closePits([pit.id]);
  });
});
