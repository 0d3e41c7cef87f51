import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finish } from '../../src/engine/steps.ts';
import { IdColumn, idHash, mergeIdColumns } from '../../src/engine/segments/ids.ts';

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

  it('merges columns as building one from the kept ids would: the same text, offsets and hash table, every id found', () => {
    // Ids unique across the parts, as a shard's live documents are; some parts keep everything.
    const part = fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 60 }).chain((ids) =>
      fc.record({ ids: fc.constant(ids), keep: fc.oneof(fc.constant(ids.map(() => true)), fc.array(fc.boolean(), { minLength: ids.length, maxLength: ids.length })) }),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (drawn) => {
        const seen = new Set<string>();
        const parts = drawn.map(({ ids, keep }) => {
          const unique = ids.filter((id) => !seen.has(id) && seen.add(id));
          const locals = unique.flatMap((_, i) => (keep[i] ? [i] : []));
          return { ids: IdColumn.build(unique), kept: locals.map((i) => unique[i]), locals };
        });
        const merged = finish(mergeIdColumns(parts));
        const kept = parts.flatMap((p) => p.kept);
        const built = IdColumn.build(kept);
        expect(merged.text).toBe(built.text);
        expect([...merged.offsets]).toEqual([...built.offsets]);
        expect([...merged.hashes]).toEqual([...built.hashes]);
        kept.forEach((id, i) => {
          expect(merged.find(id)).toBe(i);
          expect(merged.id(i)).toBe(id);
        });
        for (const p of parts) for (const local of p.ids.hashes.keys()) if (!p.locals.includes(local)) expect(merged.find(p.ids.id(local))).toBe(-1);
      }),
    );
  });
});
