import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdFilter } from '../../src/engine/segments/id-filter.ts';
import { idHash } from '../../src/engine/segments/ids.ts';
import { Shard } from '../../src/engine/shard.ts';

describe('IdFilter', () => {
  it('holds every hash added, at any load', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 3000 }), fc.nat({ max: 5000 }), (hashes, capacity) => {
        const filter = new IdFilter(capacity);
        for (const hash of hashes) filter.add(hash);
        expect(hashes.filter((hash) => !filter.mayHold(hash))).toEqual([]);
      }),
    );
  });

  it('turns away ids it was not given, but for a few in a thousand while within its size', () => {
    for (const n of [1000, 50_000]) {
      const filter = new IdFilter(n);
      for (let i = 0; i < n; i++) filter.add(idHash(`i${i}`));
      expect(filter.full).toBe(false);
      let held = 0;
      for (let i = 0; i < 100_000; i++) if (filter.mayHold(idHash(`other-${i}`))) held++;
      expect(held / 100_000).toBeLessThan(0.005);
    }
  });

  it('says when more ids were added than it is sized for', () => {
    const filter = new IdFilter(1000);
    let i = 0;
    while (!filter.full) filter.add(idHash(`i${i++}`));
    expect(i).toBeGreaterThan(1000);
    const rebuilt = IdFilter.of([Uint32Array.from({ length: i }, (_, j) => idHash(`i${j}`))], i);
    expect(rebuilt.full).toBe(false);
    for (let j = 0; j < i; j++) expect(rebuilt.mayHold(idHash(`i${j}`))).toBe(true);
  });
});

describe('a shard with its id filter', () => {
  it('finds every live id, and no other, as the filter grows, refreshes seal segments and merges take them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ put: fc.nat({ max: 3000 }) }), fc.record({ remove: fc.nat({ max: 3000 }) }), fc.constant('refresh' as const)), { maxLength: 400 }),
        fc.nat({ max: 2500 }),
        (ops, bulk) => {
          const shard = new Shard(0, () => 'number');
          const live = new Set<string>();
          // A run of fresh ids first, enough to outgrow the first filter.
          for (let i = 0; i < bulk; i++) {
            shard.writes.put(`b${i}`, ['n', i], 1);
            live.add(`b${i}`);
            if (i % 500 === 499) shard.refresh();
          }
          for (const op of ops) {
            if (op === 'refresh') {
              shard.refresh();
              if (shard.wantsMerge) for (const _ of shard.merging());
            } else if ('put' in op) {
              shard.writes.put(`d${op.put}`, ['n', op.put], 1);
              live.add(`d${op.put}`);
            } else {
              shard.writes.remove(`d${op.remove}`);
              live.delete(`d${op.remove}`);
            }
          }
          for (const id of live) expect(shard.writes.locate(id)).toBeDefined();
          for (let i = 0; i <= 3000; i++) if (!live.has(`d${i}`)) expect(shard.writes.locate(`d${i}`)).toBeUndefined();
          expect(shard.writes.locate('never written')).toBeUndefined();
        },
      ),
      { numRuns: 40 },
    );
  });
});
