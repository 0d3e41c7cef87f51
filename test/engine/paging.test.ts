/**
 * Paging through the engine against a plain model: documents live in shards chosen by the routing
 * rule, in write order (an update moves a document to the end of its shard, as a new Lucene doc
 * does); the expected order is by the sort keys, then shard, then that order. Concatenated pages
 * must equal it, with no duplicates and no gaps, whatever the segments, deletes and merges.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareValues, type Direction } from '../../src/core/index.ts';
import type { Engine, WriteOp } from '../../src/engine/engine.ts';
import { shardFor } from '../../src/engine/routing.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { compareTerms } from '../../src/engine/terms.ts';
import { tempEngine } from './helpers.ts';

interface Doc { id: string; price?: number; tag?: string }

const docArb = fc.record({
  id: fc.integer({ min: 0, max: 60 }).map(String),
  price: fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined }),
  tag: fc.option(fc.constantFrom('a', 'b', 'B', 'é', 'z'), { nil: undefined }),
});
const stepArb = fc.oneof(
  { weight: 6, arbitrary: docArb.map((doc) => ({ kind: 'index' as const, doc })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 60 }).map((n) => ({ kind: 'delete' as const, id: String(n) })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'refresh' as const }) },
);
const clauseArb: fc.Arbitrary<SortClause> = fc.oneof(
  fc.record({ kind: fc.constant('field' as const), field: fc.constant('price'), order: fc.constantFrom<Direction>('asc', 'desc'), missing: fc.constantFrom<'_last' | '_first' | number>('_last', '_first', 0) }),
  fc.record({ kind: fc.constant('field' as const), field: fc.constant('tag'), order: fc.constantFrom<Direction>('asc', 'desc'), missing: fc.constantFrom<'_last' | '_first' | string>('_last', '_first', 'b') }),
  fc.record({ kind: fc.constant('doc' as const), order: fc.constantFrom<Direction>('asc', 'desc') }),
  fc.record({ kind: fc.constant('score' as const), order: fc.constant<Direction>('desc') }),
);

describe('paging through shards and segments', () => {
  let engine: Engine;
  let close: () => Promise<void>;
  let run = 0;
  beforeAll(() => ({ engine, close } = tempEngine()));
  afterAll(() => close());

  it('concatenated pages equal the model order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(stepArb, { maxLength: 120 }), fc.array(clauseArb, { minLength: 0, maxLength: 3 }), fc.integer({ min: 1, max: 17 }), async (shards, steps, sort, size) => {
        const index = `paging-${run++}`;
        await engine.createIndex(index, { settings: { number_of_shards: shards, refresh_interval: '-1' }, mappings: { properties: { price: { type: 'long' }, tag: { type: 'keyword' } } } });
        const model = Array.from({ length: shards }, () => [] as Doc[]);
        let batch: WriteOp[] = [];
        const flush = async () => {
          await engine.write(batch);
          batch = [];
        };
        for (const step of steps) {
          if (step.kind === 'refresh') {
            await flush();
            engine.refresh(index);
            continue;
          }
          const id = step.kind === 'index' ? step.doc.id : step.id;
          const list = model[shardFor(id, shards)];
          const at = list.findIndex((d) => d.id === id);
          if (at >= 0) list.splice(at, 1);
          if (step.kind === 'index') {
            list.push(step.doc);
            batch.push({ action: 'index', index, id, source: { price: step.doc.price ?? null, tag: step.doc.tag ?? null } });
          } else batch.push({ action: 'delete', index, id });
        }
        await flush();
        engine.refresh(index);

        const expected = expectedOrder(model, sort);
        const seen: string[] = [];
        for (let from = 0; from <= expected.length; from += size) {
          const page = engine.search(index, searchRequest({ from, size, sort, trackTotalHits: true }));
          expect(page.hits.total).toEqual({ value: expected.length, relation: 'eq' });
          seen.push(...page.hits.hits.map((h) => h._id));
        }
        expect(seen).toEqual(expected);
        await engine.deleteIndices(index);
      }),
      { numRuns: 60 },
    );
  });
});

function expectedOrder(model: Doc[][], sort: SortClause[]): string[] {
  const rows = model.flatMap((docs, shard) => docs.map((doc, ordinal) => ({ doc, shard, ordinal })));
  const tags = [...new Set(rows.flatMap((r) => (r.doc.tag === undefined ? [] : [r.doc.tag])))].sort(compareTerms);
  rows.sort((a, b) => {
    for (const clause of sort) {
      let c = 0;
      if (clause.kind === 'doc') c = (a.ordinal - b.ordinal) * (clause.order === 'asc' ? 1 : -1);
      else if (clause.kind === 'field' && clause.field === 'price') {
        c = compareValues(a.doc.price ?? NaN, b.doc.price ?? NaN, clause.order, clause.missing as never);
      } else if (clause.kind === 'field') {
        const rank = (t: string | undefined) => (t === undefined ? NaN : tags.indexOf(t));
        const missing = typeof clause.missing === 'string' && !clause.missing.startsWith('_') ? standIn(tags, clause.missing) : clause.missing;
        c = compareValues(rank(a.doc.tag), rank(b.doc.tag), clause.order, missing as never);
      }
      if (c !== 0) return c;
    }
    return a.shard - b.shard || a.ordinal - b.ordinal;
  });
  return rows.map((r) => r.doc.id);
}

/** Where a stand-in term sorts among the present terms. */
function standIn(tags: string[], term: string): number {
  const at = tags.findIndex((t) => compareTerms(t, term) >= 0);
  if (at < 0) return tags.length - 0.5;
  return tags[at] === term ? at : at - 0.5;
}
