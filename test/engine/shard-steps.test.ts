/**
 * A shard's sealing and merging a slice at a time (shard.ts, steps.ts), with writes and deletes
 * coming between the slices: a refresh publishes exactly what was written before it, a merge never
 * changes what searches see, and real-time lookups see every write at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/engine/shard.ts';
import type { ShardSnapshot } from '../../src/engine/shard/shard-snapshot.ts';
import type { Steps } from '../../src/engine/steps.ts';

type Op =
  | { kind: 'put'; id: number; value: number }
  | { kind: 'remove'; id: number }
  | { kind: 'sealStep' }
  | { kind: 'mergeStep' }
  | { kind: 'refresh' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), id: fc.nat(150), value: fc.integer({ min: -5, max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.nat(150) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'sealStep' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'mergeStep' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'refresh' as const }) },
);

/** What a search over the snapshot finds, in shard order: each live document's id, seq and values. */
function visible(snapshot: ShardSnapshot): string[] {
  const out: string[] = [];
  for (const live of snapshot.segments) {
    const column = live.segment.columns.get('n');
    for (let local = 0; local < live.segment.count; local++) {
      if (live.deleted?.[local] === 1) continue;
      const value = column?.kind === 'number' ? column.min[local] : NaN;
      out.push(`${live.segment.ids.id(local)}@${live.segment.seqs[local]}=${value}`);
    }
  }
  return out;
}

describe('a shard sealing and merging a slice at a time', () => {
  it('publishes at each refresh what was written before it, whatever came between slices, and merges change nothing searches see', () => {
    /** Over all runs: merges published with writes between their slices, and seals finished before a refresh. */
    let mergesWithWrites = 0, seals = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 150, maxLength: 400 }), (ops) => {
        const dropped = new Set<unknown>();
        const shard = new Shard(0, (field) => (field === 'n' ? 'number' : undefined), (segments) => segments.forEach((s) => dropped.add(s)));
        /** The model: each live id's seq and value, as written (real time) and as the last refresh showed them. */
        let written = new Map<string, { seq: number; value: number }>();
        let shown: string[] = [];
        let sealing: Steps<void> | undefined, merging: Steps<unknown> | undefined;
        let seq = 0, writesSinceMerge = 0;
        const expectShown = () => expect(visible(shard.snapshot)).toEqual(shown);

        for (const step of ops) {
          switch (step.kind) {
            case 'put': {
              const id = `d${step.id}`;
              const version = (shard.writes.locate(id)?.version ?? 0) + 1;
              shard.writes.put(id, ['n', step.value], version);
              written.set(id, { seq: seq++, value: step.value });
              writesSinceMerge++;
              break;
            }
            case 'remove': {
              const id = `d${step.id}`;
              expect(shard.writes.remove(id) !== undefined).toBe(written.delete(id));
              writesSinceMerge++;
              break;
            }
            case 'sealStep':
              sealing ??= shard.seals.sealing();
              if (sealing.next().done) {
                sealing = undefined;
                seals++;
              }
              break;
            case 'mergeStep': {
              if (!merging) {
                merging = shard.merging();
                writesSinceMerge = 0;
              }
              const next = merging.next();
              if (next.done) {
                merging = undefined;
                if (next.value && writesSinceMerge > 0) mergesWithWrites++;
              }
              // A merge, finished or not, changes nothing a search sees.
              expectShown();
              break;
            }
            case 'refresh':
              shard.refresh();
              shown = [...written].sort((a, b) => a[1].seq - b[1].seq).map(([id, { seq, value }]) => `${id}@${seq}=${value}`);
              expectShown();
              break;
          }

          // Real time: every write is found at once, sealed, merged or not.
          for (const [id, { seq }] of written) expect(shard.writes.locate(id)?.seq).toBe(seq);
          expect(shard.writes.docCount).toBe(written.size);
        }
        // Whatever was left under way, a last refresh and the merges it wants settle to the model.
        while (merging && !merging.next().done);
        shard.refresh();
        for (let merge = shard.merging(); !merge.next().done; );
        written = new Map([...written].sort((a, b) => a[1].seq - b[1].seq));
        expect(visible(shard.snapshot)).toEqual([...written].map(([id, { seq, value }]) => `${id}@${seq}=${value}`));
        // Segments merged away or emptied were handed to onDrop, and none still published was.
        for (const live of shard.snapshot.segments) expect(dropped.has(live.segment)).toBe(false);
      }),
      { numRuns: 50 },
    );
    expect(mergesWithWrites).toBeGreaterThan(20);
    expect(seals).toBeGreaterThan(100);
  });
});
