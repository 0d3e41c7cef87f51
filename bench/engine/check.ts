/**
 * The instrument's own correctness: a strategy's page is compared with the reference order before
 * it is timed, and a wrong page stops the suite (WrongAnswer) instead of being reported.
 */
import { WrongAnswer } from '../lib/suite.ts';
import type { Placement } from './placement.ts';
import type { Strategy } from './strategy.ts';

export function checkPage(strategy: Strategy, placement: Placement, reference: Uint32Array, from: number, size: number, got: ArrayLike<number>): void {
  const { corpus, shards } = placement;
  const where = `${strategy.name} on ${corpus.name} (${shards} shards), from=${from} size=${size}`;
  const want = reference.subarray(Math.min(from, reference.length), Math.min(from + size, reference.length));
  if (got.length !== want.length) throw new WrongAnswer(`${where}: ${got.length} hits, expected ${want.length}`);
  const keys = corpus.keys;
  const seen = new Set<number>();
  for (let i = 0; i < want.length; i++) {
    const doc = got[i];
    if (strategy.ties === 'exact' && doc !== want[i]) {
      throw new WrongAnswer(`${where}: hit ${from + i} is ${corpus.ids[doc] ?? doc}, expected ${corpus.ids[want[i]]}`);
    }
    if (keys[doc] !== keys[want[i]]) {
      throw new WrongAnswer(`${where}: hit ${from + i} has ${corpus.field} ${keys[doc]}, expected ${keys[want[i]]}`);
    }
    if (seen.has(doc)) throw new WrongAnswer(`${where}: ${corpus.ids[doc]} appears twice`);
    seen.add(doc);
  }
}

/** Two consecutive pages share no document: a tie-break that is not stable across requests fails this. */
export function checkConsecutive(strategy: Strategy, placement: Placement, from: number, size: number, first: ArrayLike<number>, second: ArrayLike<number>): void {
  const a = new Set(Array.from(first));
  for (let i = 0; i < second.length; i++) {
    if (a.has(second[i])) {
      const id = placement.corpus.ids[second[i]];
      throw new WrongAnswer(`${strategy.name} on ${placement.corpus.name}: ${id} is on the page at from=${from} and again at from=${from + size}`);
    }
  }
}
