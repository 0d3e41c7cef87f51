/**
 * The set operations on a segment's matches against plain sets: conjunctions (with inputs that hold
 * every document left out), exclusions, and every live document known without a list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { everyDoc, intersect, subtract, type Matches } from '../../src/engine/query/matches.ts';

const COUNT = 300;

/** A sorted list of distinct documents below COUNT, some scored; sometimes every document. */
const matchesArb: fc.Arbitrary<Matches> = fc.oneof(
  fc.uniqueArray(fc.nat(COUNT - 1), { maxLength: COUNT, size: 'max' }).chain((docs) => {
    const sorted = Uint32Array.from(docs.sort((a, b) => a - b));
    return fc.option(fc.array(fc.float({ noNaN: true, min: 0, max: 10 }), { minLength: sorted.length, maxLength: sorted.length }), { nil: undefined }).map((scores) => (scores ? { docs: sorted, scores: Float64Array.from(scores) } : { docs: sorted }));
  }),
  fc.constant<Matches>({ docs: Uint32Array.from({ length: COUNT }, (_, i) => i) }),
  fc.constant(everyDoc(COUNT)),
  // A range over a single-valued column, known by a count, a test and the column.
  fc.tuple(fc.array(fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(NaN)), { minLength: COUNT, maxLength: COUNT }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })).map(([vals, a, b]): Matches => {
    const values = Float64Array.from(vals);
    const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
    const docs = [...Array(COUNT).keys()].filter((doc) => values[doc] >= lo && values[doc] <= hi);
    return { known: { count: docs.length, has: (doc) => values[doc] >= lo && values[doc] <= hi, between: { values, lo, hi } }, docs: Uint32Array.from(docs) };
  }),
  // Known by a count and a test, listed only when read (a range over a column).
  fc.uniqueArray(fc.nat(COUNT - 1), { maxLength: COUNT, size: 'max' }).map((docs): Matches => {
    const set = new Set(docs);
    return { known: { count: set.size, has: (doc) => set.has(doc) }, get docs() { return Uint32Array.from([...set].sort((a, b) => a - b)); } };
  }),
);

const listOf = (m: Matches) => [...m.docs];

describe('matches', () => {
  it('intersect: the documents in every input, scores summed in input order', () => {
    fc.assert(
      fc.property(fc.array(matchesArb, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean(), (inputs, scored, withCount) => {
        const got = intersect(inputs, scored, withCount ? COUNT : undefined);
        const expected = [...Array(COUNT).keys()].filter((doc) => inputs.every((m) => m.docs.includes(doc)));
        expect(listOf(got)).toEqual(expected);
        if (scored && (inputs.length > 1 || inputs[0].scores)) {
          const scores = expected.map((doc) => Math.fround(inputs.reduce((sum, m) => sum + (m.scores ? m.scores[m.docs.indexOf(doc)] : 0), 0)));
          expect([...(got.scores ?? [])]).toEqual(scores);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('subtract: the documents not excluded, with their scores', () => {
    fc.assert(
      fc.property(matchesArb, matchesArb, (matches, excluded) => {
        const got = subtract(matches, excluded);
        const keep = listOf(matches).map((doc, i) => [doc, i]).filter(([doc]) => !excluded.docs.includes(doc));
        expect(listOf(got)).toEqual(keep.map(([doc]) => doc));
        if (matches.scores) expect([...got.scores!]).toEqual(keep.map(([, i]) => matches.scores![i]));
      }),
      { numRuns: 300 },
    );
  });

  it('everyDoc: the live documents, known by count and test, listed when read', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(COUNT - 1), { maxLength: 50 }), (gone) => {
        const deleted = new Uint8Array(COUNT);
        for (const doc of gone) deleted[doc] = 1;
        const every = everyDoc(COUNT, gone.length ? deleted : undefined, gone.length);
        const live = [...Array(COUNT).keys()].filter((doc) => !deleted[doc]);
        expect(every.known!.count).toBe(live.length);
        expect([...Array(COUNT).keys()].filter((doc) => every.known!.has(doc))).toEqual(live);
        expect(listOf(every)).toEqual(live);
      }),
    );
  });
});
