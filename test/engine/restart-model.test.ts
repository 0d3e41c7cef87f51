/**
 * Restarts against the plain model (paging-model.ts): random writes, deletes, updates, refreshes,
 * flushes, clean restarts (which flush) and crashes (which do not), on several shards. After every
 * restart the index must hold exactly what was acknowledged, laid out as a restart lays it out (the
 * last commit point's segments, then what was written after it, replayed in write order), so every
 * page, tie order included, equals the model's; `_source` comes back as it was sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, type WriteOp } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import { searchRequest, type SortClause } from '../../src/engine/search/request.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import { sourceOf, tempDir } from './helpers.ts';
import { expectedOrder, IndexModel, type Outcome, type Source } from './paging-model.ts';

/** Ids in several scripts, so the segment format's Latin-1 and UTF-16 text both come back. */
const IDS = [...Array.from({ length: 40 }, (_, i) => String(i)), 'é', 'ü-1', '😀', '中文', 'a b', ''.padEnd(60, 'x')];
const idArb = fc.constantFrom(...IDS);
const TERMS = ['a', 'b', 'é', 'ｚ', '😀'];
const sourceArb: fc.Arbitrary<Source> = fc.record(
  {
    price: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(null), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 })),
    tag: fc.oneof(fc.constantFrom(...TERMS), fc.constant(null), fc.array(fc.constantFrom(...TERMS), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);
type Op = { kind: 'index'; id: string; source: Source } | { kind: 'update'; id: string; doc: Source; upsert: boolean } | { kind: 'delete'; id: string };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('index' as const), id: idArb, source: sourceArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), id: idArb, doc: sourceArb, upsert: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: idArb }) },
);
type Step = { kind: 'write'; ops: Op[] } | { kind: 'refresh' } | { kind: 'flush' } | { kind: 'restart' } | { kind: 'crash' };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), ops: fc.array(opArb, { minLength: 1, maxLength: 30 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'refresh' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

const SORTS: SortClause[][] = [
  [],
  [{ kind: 'doc', order: 'asc' }],
  [{ kind: 'field', field: 'price', order: 'asc', missing: '_last' }],
  [{ kind: 'field', field: 'tag', order: 'desc', missing: '_first' }],
];
const INDEX = 'r';

describe('restart against the model', () => {
  it('keeps every acknowledged write and pages as the model after clean restarts and crashes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(stepArb, { minLength: 1, maxLength: 25 }), async (shards, steps) => {
        const { dir, remove } = tempDir();
        let engine = Engine.open(DocStore.open(dir));
        const model = new IndexModel(shards);
        try {
          await engine.createIndex(INDEX, { settings: { number_of_shards: shards, refresh_interval: -1 }, mappings: { properties: { price: { type: 'long' }, tag: { type: 'keyword' } } } });
          for (const step of [...steps, { kind: 'crash' } as const, { kind: 'restart' } as const]) {
            switch (step.kind) {
              case 'write': {
                const expected = step.ops.map((op): Outcome => (op.kind === 'index' ? model.index(op.id, op.source) : op.kind === 'update' ? model.update(op.id, op.doc, op.upsert) : model.delete(op.id)));
                const items = await engine.write(step.ops.map((op): WriteOp => (op.kind === 'index' ? { action: 'index', index: INDEX, id: op.id, source: op.source as Record<string, unknown> } : op.kind === 'update' ? { action: 'update', index: INDEX, id: op.id, doc: op.doc as Record<string, unknown>, docAsUpsert: op.upsert } : { action: 'delete', index: INDEX, id: op.id })));
                expect(items.map((item) => (item instanceof EsError ? (item.status === 404 ? 'missing' : item.type) : item.result))).toEqual(expected);
                break;
              }
              case 'refresh':
                engine.refresh(INDEX);
                model.refresh();
                break;
              case 'flush':
                await engine.flush(INDEX);
                model.flush();
                break;
              case 'restart':
              case 'crash':
                await engine.close({ flush: step.kind === 'restart' });
                engine = Engine.open(DocStore.open(dir));
                model.restart(step.kind === 'restart');
                check(engine, model);
                break;
            }
          }
        } finally {
          await engine.close();
          remove();
        }
      }),
      { numRuns: 40 },
    );
  });
});

function check(engine: Engine, model: IndexModel): void {
  const index = engine.resolveOne(INDEX);
  const layout = index.shards.map((shard) => shard.snapshot.segments.map((live): [number, number] => [live.segment.count, live.deletedCount]));
  expect(layout, 'segments per shard: [documents, deleted]').toEqual(model.layout());
  for (const sort of SORTS) {
    const { rows, hits } = expectedOrder(model, sort);
    const response = engine.search(INDEX, searchRequest({ size: 1000, sort, trackTotalHits: true }));
    const label = JSON.stringify(sort);
    expect(response.hits.total, label).toEqual({ value: rows.length, relation: 'eq' });
    expect(response.hits.hits.map((hit) => ({ _id: hit._id, ...(hit.sort && { sort: hit.sort }) })), label).toEqual(hits);
    expect(response.hits.hits.map(sourceOf), label).toEqual(rows.map((row) => row.entry.source));
  }
  for (const { entry } of model.rows()) expect(JSON.parse(engine.get(INDEX, entry.id)!.doc.source)).toEqual(entry.source);
}
