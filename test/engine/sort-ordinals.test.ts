/**
 * Sort ordinals (src/engine/search/sort/sort-ordinals.ts) against the plain order of terms: over any
 * dictionaries, and over a chain of builds each extending the last (segments added and dropped as
 * refreshes and merges do, many new terms in one gap among them), ordinals order terms as code point
 * order does, equal terms share one, maps carried over stay the same arrays, and a term no
 * dictionary holds is placed strictly between its neighbours. A merge's lineage numbers the merged
 * dictionary from its parts' maps (a part no build numbered placed first), so the next build
 * extends nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { carriedThroughMerge, carryOf, OrdinalsWarmup, sortOrdinals, type OrdinalsCarry, type SortOrdinals } from '../../src/engine/search/sort/sort-ordinals.ts';
import type { TermsLineage } from '../../src/engine/segments/merge.ts';
import { compareTerms, sortedDistinct } from '../../src/engine/terms.ts';

/** Every pair of (term, ordinal) across the dictionaries compares as the terms do. */
function expectOrdered(dictionaries: readonly (readonly string[])[], ordinals: SortOrdinals, probes: readonly string[]): void {
  const pairs = dictionaries.flatMap((dictionary, d) => dictionary.map((term, x) => [term, ordinals.maps[d][x]] as const));
  pairs.sort((a, b) => compareTerms(a[0], b[0]));
  for (let i = 1; i < pairs.length; i++) {
    const same = pairs[i - 1][0] === pairs[i][0];
    expect(same ? pairs[i][1] === pairs[i - 1][1] : pairs[i][1] > pairs[i - 1][1], `${JSON.stringify(pairs[i - 1])} then ${JSON.stringify(pairs[i])}`).toBe(true);
  }
  for (const [term, ordinal] of pairs) expect(ordinals.ordinalOf(term)).toBe(ordinal);
  for (const probe of probes) {
    const place = ordinals.ordinalOf(probe);
    for (const [term, ordinal] of pairs) {
      const order = Math.sign(compareTerms(probe, term));
      expect(Math.sign(place - ordinal), `${JSON.stringify(probe)} at ${place} against ${JSON.stringify(term)} at ${ordinal}`).toBe(order);
    }
  }
}

const term = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('ｚ', '😀', 'é', 'z', 'a', 'ab', 'm'));
const dictionary = fc.array(term, { maxLength: 20 }).map((terms) => sortedDistinct(terms));

describe('sort ordinals', () => {
  it('order any dictionaries as their terms, and place other terms between', () => {
    fc.assert(
      fc.property(fc.array(dictionary, { maxLength: 8 }), fc.array(term, { maxLength: 5 }), (dictionaries, probes) => {
        expectOrdered(dictionaries, sortOrdinals(dictionaries), probes);
      }),
      { numRuns: 300 },
    );
  });

  it('extended build after build, as refreshes add segments and merges drop them, keep the order and the carried maps', () => {
    const step = fc.record({ add: fc.array(dictionary, { maxLength: 2 }), keep: fc.array(fc.boolean(), { maxLength: 8 }), merge: fc.option(fc.nat(), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(dictionary, { minLength: 1, maxLength: 5 }), fc.array(step, { maxLength: 8 }), fc.array(term, { maxLength: 4 }), (first, steps, probes) => {
        let dictionaries: (readonly string[])[] = first;
        let ordinals = sortOrdinals(dictionaries);
        let carry: OrdinalsCarry = carryOf(dictionaries, ordinals);
        for (const { add, keep, merge } of steps) {
          const previous = new Map(dictionaries.map((d, i) => [d, ordinals.maps[i]]));
          dictionaries = [...dictionaries.filter((_, i) => keep[i] ?? true), ...add];
          // A merge: two neighbours replaced by one dictionary of their terms.
          if (merge !== undefined && dictionaries.length >= 2) {
            const at = merge % (dictionaries.length - 1);
            dictionaries.splice(at, 2, sortedDistinct([...dictionaries[at], ...dictionaries[at + 1]]));
          }
          ordinals = sortOrdinals(dictionaries, carry);
          carry = carryOf(dictionaries, ordinals);
          expectOrdered(dictionaries, ordinals, probes);
          // Carried maps are the same arrays (their wasm copies stay), unless all was numbered afresh.
          const kept = dictionaries.filter((d) => previous.has(d));
          const same = kept.filter((d) => ordinals.maps[dictionaries.indexOf(d)] === previous.get(d)).length;
          expect(same === 0 || same === kept.length).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('built in steps of a few terms (a warm-up), are what a build at once gives, and extend alike', () => {
    fc.assert(
      fc.property(fc.array(dictionary, { maxLength: 8 }), fc.integer({ min: 1, max: 7 }), fc.array(dictionary, { maxLength: 2 }), (dictionaries, terms, added) => {
        const warmup = new OrdinalsWarmup(dictionaries);
        let steps = 0;
        while (!warmup.step(terms)) steps++;
        expect(steps).toBeLessThanOrEqual(Math.ceil(dictionaries.flat().length / terms));
        const carry = warmup.carry();
        expect(carry.maps).toEqual(sortOrdinals(dictionaries).maps);
        const next = [...dictionaries, ...added];
        expectOrdered(next, sortOrdinals(next, carry), ['', 'z']);
      }),
      { numRuns: 300 },
    );
  });

  it('carried through a merge, number the merged terms as their parts did, and the next build keeps every map', () => {
    const part = fc.record({ dictionary, keep: fc.array(fc.boolean(), { maxLength: 20 }) });
    fc.assert(
      fc.property(fc.array(dictionary, { maxLength: 4 }), part, part, fc.array(term, { maxLength: 4 }), (others, a, b, probes) => {
        const dictionaries = [...others, a.dictionary, b.dictionary];
        const carry = carryOf(dictionaries, sortOrdinals(dictionaries));
        // A merge keeps the terms its kept documents use, some of each part's.
        const kept = [a, b].map(({ dictionary, keep }) => dictionary.filter((_, x) => keep[x] ?? true));
        const terms = sortedDistinct(kept.flat());
        const remaps = [a, b].map(({ dictionary }, p) => Int32Array.from(dictionary, (t) => (kept[p].includes(t) ? terms.indexOf(t) : -1)));
        const lineage: TermsLineage = { terms, parts: [a.dictionary, b.dictionary], remaps };
        const after = [...others, terms];
        const check = (through: OrdinalsCarry) => {
          expect(through.dictionaries).toEqual(after);
          const ordinals = sortOrdinals(after, through);
          after.forEach((_, d) => expect(ordinals.maps[d]).toBe(through.maps[d]));
          expectOrdered(after, ordinals, probes);
        };
        check(carriedThroughMerge(carry, lineage)!);
        // A carry that did not number the second part (a refresh's segment no sort saw) places its
        // terms first; or, when they cannot be placed, carries nothing through.
        const partly = [...others, a.dictionary];
        const through = carriedThroughMerge(carryOf(partly, sortOrdinals(partly)), lineage);
        if (through) check(through);
        else expect(b.dictionary.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('numbers everything afresh once a gap fills, and keeps extending after', () => {
    // A hundred terms after "b", so that each new term is a small share of all (else each build is afresh).
    let dictionaries: string[][] = [['a', 'b', ...Array.from({ length: 100 }, (_, i) => `c${String(i).padStart(3, '0')}`)]];
    let ordinals = sortOrdinals(dictionaries);
    const first = ordinals.maps[0];
    let carry = carryOf(dictionaries, ordinals);
    let renumbered = 0;
    // Terms between "a" and "b", one new segment each time: each takes half of what is left.
    for (let n = 1; n <= 40; n++) {
      const before = ordinals.maps[0];
      dictionaries = [...dictionaries, [`a${'~'.repeat(n)}`]];
      ordinals = sortOrdinals(dictionaries, carry);
      carry = carryOf(dictionaries, ordinals);
      if (ordinals.maps[0] !== before) renumbered++;
      expectOrdered(dictionaries, ordinals, ['a!', 'a~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~', 'c', '']);
    }
    expect(ordinals.maps[0]).not.toBe(first);
    expect(renumbered).toBeGreaterThan(0);
    expect(renumbered).toBeLessThan(5);
  });
});
