/**
 * Keyword terms and their ordinals. Elasticsearch orders keywords by their UTF-8 bytes, which is
 * Unicode code point order; JavaScript's `<` compares UTF-16 code units, which differs once
 * surrogate pairs meet characters in U+E000..U+FFFF. {@link compareTerms} is the one rule.
 */
import { finish, SLICE, type Steps } from './steps.ts';
import { firstNotBefore } from './binary-search.ts';

/** Negative when `a` sorts before `b` in code point (= UTF-8 byte) order. */
export function compareTerms(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (U+D800..U+DFFF) start code points above U+FFFF, so they rank above the rest of the BMP. */
function codePointRank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
}

/** The distinct terms, sorted: {@link sortedSteps} at once (the sort segments use, so tests of this one test theirs). */
export function sortedDistinct(terms: Iterable<string>): string[] {
  return finish(sortedSteps([...new Set(terms)]));
}

/** Sorts terms in code point order, in place (and notes for {@link unitOrderHolds} whether the built-in order was right). */
function sortInPlace(terms: string[]): string[] {
  // Without surrogates or U+E000..U+FFFF, UTF-16 order is code point order: the built-in sort applies.
  const beyond = terms.some((term) => BEYOND_BMP_ORDER.test(term));
  beyondBmp.set(terms, beyond);
  return beyond ? terms.sort(compareTerms) : terms.sort();
}

/** Terms per chunk of {@link sortedSteps}: a built-in sort of this many strings takes a few milliseconds. */
const SORT_CHUNK = 8192;
/** Terms merged per step of {@link sortedSteps}, {@link ordinalsMerge} comparing in code points (the slow case) about a millisecond's worth. */
export const MERGE_STEP = 2048;

/**
 * Distinct terms (no two equal) sorted a slice at a time (steps.ts): chunks sorted one per step,
 * then merged {@link SORT_CHUNK} terms per step. The array given is reordered.
 */
export function* sortedSteps(distinct: string[]): Steps<string[]> {
  if (distinct.length <= SORT_CHUNK) return sortInPlace(distinct);
  const chunks: string[][] = [];
  for (let at = 0; at < distinct.length; at += SORT_CHUNK) {
    chunks.push(sortInPlace(distinct.slice(at, at + SORT_CHUNK)));
    yield;
  }
  const merge = ordinalsMerge(chunks);
  for (;;) {
    const done = merge.advance(MERGE_STEP);
    if (done) return done.terms;
    yield;
  }
}

/** Characters where UTF-16 order and code point order can part. */
const BEYOND_BMP_ORDER = /[\uD800-\uFFFF]/;

/**
 * Per dictionary (a sorted array of terms, never changed once sorted), whether it may hold one of
 * those characters: noted by this module where it sorts or takes a subset of a dictionary, found by a
 * scan for any other. Only this module writes it.
 */
const beyondBmp = new WeakMap<readonly string[], boolean>();

/** The index of the first term not below `term` (its insertion point when absent). */
export function lowerBound(terms: readonly string[], term: string): number {
  return firstNotBefore(0, terms.length, (i) => compareTerms(terms[i], term) < 0);
}

/**
 * Ordinals that compare across segments: the union of several sorted term dictionaries, and for each
 * dictionary the global ordinal of each of its terms. Built by merging, O(total terms · log lists).
 */
export interface GlobalOrdinals {
  terms: string[];
  /** `maps[d][localOrdinal]` is the global ordinal of dictionary d's term. */
  maps: Uint32Array[];
}

export function globalOrdinals(dictionaries: readonly (readonly string[])[]): GlobalOrdinals {
  return ordinalsMerge(dictionaries).advance(Infinity)!;
}

/**
 * {@link globalOrdinals} as a merge that goes on a number of terms at a time, for work done a slice
 * at a time between other work (sort-ordinals.ts warms a field's ordinals so): `advance` returns the
 * ordinals once every term is merged.
 */
export function ordinalsMerge(dictionaries: readonly (readonly string[])[]): { advance(terms: number): GlobalOrdinals | undefined } {
  const k = dictionaries.length;
  const maps = dictionaries.map((d) => new Uint32Array(d.length));
  const terms: string[] = [];
  if (k === 0) return { advance: () => ({ terms, maps }) };
  const at = new Uint32Array(k);
  /** Each dictionary's next term; undefined once it is exhausted (it then loses to every term). */
  const heads: (string | undefined)[] = dictionaries.map((d) => d[0]);
  const units = dictionaries.every(unitOrderHolds);
  /** Whether dictionary a's next term comes before b's. */
  const beats = (a: number, b: number) => {
    const x = heads[a], y = heads[b];
    return x !== undefined && (y === undefined || (units ? x < y : compareTerms(x, y) < 0));
  };
  // A loser tree over the dictionaries' next terms: each term costs one compare per level,
  // O(log dictionaries), where scanning every dictionary cost O(dictionaries) (a keyword sort over
  // the cities' 40 segments took 226 ms, and held the event loop as long). Leaf d is node k + d;
  // internal node n keeps the loser of its subtree's final, and losers[0] the overall winner.
  const losers = new Int32Array(k);
  const winners = new Int32Array(2 * k);
  for (let d = 0; d < k; d++) winners[k + d] = d;
  for (let n = k - 1; n >= 1; n--) {
    const a = winners[2 * n], b = winners[2 * n + 1];
    const [winner, loser] = beats(b, a) ? [b, a] : [a, b];
    winners[n] = winner;
    losers[n] = loser;
  }
  losers[0] = k === 1 ? 0 : winners[1];
  const advance = (count: number): GlobalOrdinals | undefined => {
    for (let taken = 0; taken < count; taken++) {
      let d = losers[0];
      const term = heads[d];
      if (term === undefined) return { terms, maps };
      // Dictionaries are sorted and distinct, so equal terms come out one after the other.
      if (terms.length === 0 || terms[terms.length - 1] !== term) terms.push(term);
      maps[d][at[d]++] = terms.length - 1;
      heads[d] = dictionaries[d][at[d]];
      for (let n = (k + d) >> 1; n >= 1; n >>= 1) {
        if (beats(losers[n], d)) [losers[n], d] = [d, losers[n]];
      }
      losers[0] = d;
    }
    return heads[losers[0]] === undefined ? { terms, maps } : undefined;
  };
  return { advance };
}

/**
 * Whether the built-in comparison (UTF-16 units) orders the dictionary's terms against any others'
 * as compareTerms does: no term holds a unit where the two orders part. Once per dictionary (segments
 * keep theirs).
 */
export function unitOrderHolds(dictionary: readonly string[]): boolean {
  let beyond = beyondBmp.get(dictionary);
  if (beyond === undefined) beyondBmp.set(dictionary, (beyond = dictionary.some((term) => BEYOND_BMP_ORDER.test(term))));
  return !beyond;
}

/**
 * The terms of `dictionary` whose ordinals `used` marks with 1, in order, a slice at a time. The
 * subset holds unit order if the dictionary does, so {@link unitOrderHolds} needs no scan of it
 * (when the dictionary does not, the subset counts as not holding it either, unscanned: the slow order
 * is always right).
 */
export function* subsetSteps(dictionary: readonly string[], used: Uint8Array): Steps<string[]> {
  const subset: string[] = [];
  for (let ord = 0; ord < dictionary.length; ord++) {
    if (used[ord] === 1) subset.push(dictionary[ord]);
    if (ord % SLICE === SLICE - 1) yield;
  }
  beyondBmp.set(subset, !unitOrderHolds(dictionary));
  return subset;
}
