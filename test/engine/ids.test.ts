import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdColumn, idHash } from '../../src/engine/segments/ids.ts';

describe('IdColumn', () => {
  it('finds every id at its ordinal, gives each back, and finds nothing else', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 200 }), fc.array(fc.string({ unit: 'binary', maxLength: 12 })), (ids, probes) => {
        const column = IdColumn.build(ids);
        expect(column.count).toBe(ids.length);
        ids.forEach((id, i) => {
          expect(column.find(id)).toBe(i);
          expect(column.id(i)).toBe(id);
        });
        for (const probe of probes) expect(column.find(probe)).toBe(ids.indexOf(probe));
      }),
    );
  });

  it('tells apart ids whose hashes collide', () => {
    // Pairs with equal FNV-1a hashes, found by a search over generated ids.
    const pairs = [['id4f8qgb', 'idt7abvh'], ['id130folb', 'idfm95x'], ['id1yyvk73', 'idb3kgfu']];
    for (const [a, b] of pairs) expect(idHash(a)).toBe(idHash(b));
    const ids = [...pairs.flat(), ...Array.from({ length: 1000 }, (_, i) => `doc-${i}`)];
    const column = IdColumn.build(ids);
    ids.forEach((id, i) => expect(column.find(id)).toBe(i));
    // One of a pair alone: the other is not found although its hash is there.
    const alone = IdColumn.build(['id4f8qgb', 'x']);
    expect(alone.find('idt7abvh')).toBe(-1);
  });

  it('finds ids in columns of every size, through its table of hash buckets and their filters', () => {
    // Sizes around the table's steps (two buckets up to 15 ids, then one per 4 to 8), and large ones.
    for (const n of [0, 1, 7, 8, 9, 31, 32, 33, 1000, 65_537]) {
      const ids = Array.from({ length: n }, (_, i) => `i${i}`);
      const column = IdColumn.build(ids);
      // Every id: a bucket's filter must let each of its own hashes through.
      const misplaced = ids.filter((id, i) => column.find(id) !== i);
      expect(misplaced).toEqual([]);
      const found = Array.from({ length: 5000 }, (_, k) => `i${n + k}`).filter((id) => column.find(id) !== -1);
      expect(found).toEqual([]);
    }
  });
});
