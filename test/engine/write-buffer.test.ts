import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SegmentDoc } from '../../src/engine/segments/segment.ts';
import { WriteBuffer } from '../../src/engine/segments/write-buffer.ts';

type Op = { kind: 'put'; id: string } | { kind: 'remove'; id: string } | { kind: 'clear' };

// Few distinct ids, so that puts replace and removes find; the colliding pair shares an FNV-1a hash.
const ID = fc.oneof(fc.constantFrom('a', 'b', 'c', 'id4f8qgb', 'idt7abvh'), fc.string({ unit: 'binary', maxLength: 4 }));
const OP: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: ID.map((id) => ({ kind: 'put' as const, id })) },
  { weight: 3, arbitrary: ID.map((id) => ({ kind: 'remove' as const, id })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('WriteBuffer', () => {
  it('answers as a map by id and a map by seq (in seq order) would, through growth, removals and clears', () => {
    fc.assert(
      fc.property(fc.array(OP, { maxLength: 400 }), fc.nat({ max: 50 }), (ops, gap) => {
        const buffer = new WriteBuffer();
        // The model: documents by seq, in insertion (so seq) order, as the shard kept them before.
        let model = new Map<number, SegmentDoc>();
        const everHeld: SegmentDoc[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op.kind === 'clear') {
            buffer.clear();
            model = new Map();
            continue;
          }
          const live = [...model.values()].find((d) => d.id === op.id);
          expect(buffer.remove(op.id)).toBe(live);
          if (live) model.delete(live.seq);
          if (op.kind === 'put') {
            const doc: SegmentDoc = { id: op.id, seq, version: 1, values: [] };
            seq += 1 + (seq % 3 === 0 ? gap : 0);
            buffer.add(doc);
            model.set(doc.seq, doc);
            everHeld.push(doc);
          }
        }
        expect(buffer.size).toBe(model.size);
        for (const doc of model.values()) expect(buffer.byId(doc.id)).toBe(doc);
        for (const doc of everHeld) {
          expect(buffer.bySeq(doc.seq)).toBe(model.get(doc.seq));
          expect(buffer.holds(doc)).toBe(model.get(doc.seq) === doc);
        }
        const inOrder = [...model.values()];
        for (const from of [-1, ...inOrder.map((d) => d.seq), seq]) {
          expect(buffer.after(from)).toEqual(inOrder.filter((d) => d.seq > from));
        }
      }),
    );
  });

  it('grows past many documents and finds each', () => {
    const buffer = new WriteBuffer();
    const docs = Array.from({ length: 5000 }, (_, i): SegmentDoc => ({ id: `doc-${i}`, seq: i, version: 1, values: [] }));
    for (const doc of docs) buffer.add(doc);
    for (let i = 0; i < docs.length; i += 2) buffer.remove(docs[i].id);
    expect(buffer.size).toBe(2500);
    docs.forEach((doc, i) => expect(buffer.byId(doc.id)).toBe(i % 2 === 1 ? doc : undefined));
    expect(buffer.after(4990).map((d) => d.seq)).toEqual([4991, 4993, 4995, 4997, 4999]);
  });

  it('refuses a seq that does not follow the last one', () => {
    const buffer = new WriteBuffer();
    buffer.add({ id: 'a', seq: 5, version: 1, values: [] });
    expect(() => buffer.add({ id: 'b', seq: 5, version: 1, values: [] })).toThrow(/seq 5 after 5/);
  });
});
