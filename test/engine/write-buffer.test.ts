import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idHash } from '../../src/engine/segments/ids.ts';
import { WriteBuffer } from '../../src/engine/segments/write-buffer.ts';

type Op = { kind: 'put'; id: string; routing?: string } | { kind: 'remove'; id: string } | { kind: 'clear' };

/** A document as the model keeps it. */
interface Doc {
  id: string;
  seq: number;
  version: number;
  routing?: string;
  position: number;
}

// Few distinct ids, so that puts replace and removes find; the colliding pair shares an FNV-1a hash.
const ID = fc.oneof(fc.constantFrom('a', 'b', 'c', 'id4f8qgb', 'idt7abvh'), fc.string({ unit: 'binary', maxLength: 4 }));
const OP: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), id: ID, routing: fc.option(fc.constantFrom('r1', 'r2'), { nil: undefined }) }) },
  { weight: 3, arbitrary: ID.map((id) => ({ kind: 'remove' as const, id })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('WriteBuffer', () => {
  it('answers as a map by id and a map by seq (in seq order) would, through growth, removals and clears', () => {
    fc.assert(
      fc.property(fc.array(OP, { maxLength: 400 }), fc.nat({ max: 50 }), (ops, gap) => {
        const buffer = new WriteBuffer();
        // The model: documents by seq, in insertion (so seq) order.
        let model = new Map<number, Doc>();
        let everHeld: Doc[] = [];
        let seq = 0, position = 0;
        for (const op of ops) {
          if (op.kind === 'clear') {
            buffer.clear();
            model = new Map();
            everHeld = [];
            position = 0;
            continue;
          }
          const live = [...model.values()].find((d) => d.id === op.id);
          expect(buffer.remove(op.id)).toBe(live ? live.position : -1);
          if (live) model.delete(live.seq);
          if (op.kind === 'put') {
            const doc: Doc = { id: op.id, seq, version: (seq % 5) + 1, routing: op.routing, position: position++ };
            seq += 1 + (seq % 3 === 0 ? gap : 0);
            buffer.add(doc.id, idHash(doc.id), doc.seq, doc.version, [], doc.routing);
            model.set(doc.seq, doc);
            everHeld.push(doc);
          }
        }
        expect(buffer.size).toBe(model.size);
        for (const doc of model.values()) {
          const at = buffer.find(doc.id);
          expect(at).toBe(doc.position);
          expect([buffer.id(at), buffer.seq(at), buffer.version(at), buffer.routing(at)]).toEqual([doc.id, doc.seq, doc.version, doc.routing]);
        }
        for (const doc of everHeld) {
          expect(buffer.findSeq(doc.seq)).toBe(model.has(doc.seq) ? doc.position : -1);
          expect(buffer.holds(doc.position)).toBe(model.get(doc.seq) === doc);
        }
        expect([...buffer.liveHashes()].sort()).toEqual([...model.values()].map((d) => idHash(d.id)).sort());
        const inOrder = [...model.values()];
        for (const from of [-1, ...inOrder.map((d) => d.seq), seq]) {
          expect([...buffer.take(from).positions]).toEqual(inOrder.filter((d) => d.seq > from).map((d) => d.position));
        }
      }),
    );
  });

  it('grows past many documents and finds each', () => {
    const buffer = new WriteBuffer();
    const ids = Array.from({ length: 5000 }, (_, i) => `doc-${i}`);
    ids.forEach((id, i) => buffer.add(id, idHash(id), i, 1, ['n', i, 'k', `term ${i % 7}`]));
    for (let i = 0; i < ids.length; i += 2) buffer.remove(ids[i]);
    expect(buffer.size).toBe(2500);
    ids.forEach((id, i) => expect(buffer.find(id)).toBe(i % 2 === 1 ? i : -1));
    const taken = buffer.take(4990);
    expect([...taken.positions]).toEqual([4991, 4993, 4995, 4997, 4999]);
    const k = taken.fields.get('k')!;
    expect(k.length).toBe(5000);
    expect(k.terms![k.values[4999]]).toBe('term 1');
  });

  it('keeps what a slice read when it grows and when it is cleared', () => {
    const buffer = new WriteBuffer();
    buffer.add('a', idHash('a'), 0, 1, ['n', 1.5]);
    const taken = buffer.take(-1);
    for (let i = 1; i < 1000; i++) buffer.add(`d${i}`, idHash(`d${i}`), i, 1, ['n', -i]);
    buffer.clear();
    buffer.add('z', idHash('z'), 2000, 3, ['n', 9]);
    expect([taken.seqs[0], taken.versions[0], taken.fields.get('n')!.values[0], taken.fields.get('n')!.length]).toEqual([0, 1, 1.5, 1]);
    expect(String.fromCharCode(...taken.idChars.subarray(taken.idStarts[0], taken.idStarts[1]))).toBe('a');
  });

  it('refuses a seq that does not follow the last one, and a field given a value of another kind', () => {
    const buffer = new WriteBuffer();
    buffer.add('a', idHash('a'), 5, 1, ['n', 1]);
    expect(() => buffer.add('b', idHash('b'), 5, 1, [])).toThrow(/seq 5 after 5/);
    expect(() => buffer.add('c', idHash('c'), 6, 1, ['k', 'x', 'n', 'x'])).toThrow(/field \[n\] holds numbers/);
    // Nothing of the refused document is left for the next one's position.
    buffer.add('d', idHash('d'), 7, 1, ['n', 2]);
    const taken = buffer.take(-1);
    expect([...taken.positions]).toEqual([0, 1]);
    expect(taken.fields.get('k')!.length).toBe(0);
    expect([...taken.fields.get('n')!.positions.subarray(0, 2)]).toEqual([0, 1]);
  });
});
