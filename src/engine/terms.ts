/**
 * Keyword terms and their ordinals. Elasticsearch orders keywords by their UTF-8 bytes, which is
 * Unicode code point order; JavaScript's `<` compares UTF-16 code units, which differs once
 * surrogate pairs meet characters in U+E000..U+FFFF. {@link compareTerms} is the one rule.
 */

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

/** The distinct terms, sorted. */
export function sortedDistinct(terms: Iterable<string>): string[] {
  const distinct = [...new Set(terms)];
  // Without surrogates or U+E000..U+FFFF, UTF-16 order is code point order: the built-in sort applies.
  return distinct.some((term) => BEYOND_BMP_ORDER.test(term)) ? distinct.sort(compareTerms) : distinct.sort();
}

/** Characters where UTF-16 order and code point order can part. */
const BEYOND_BMP_ORDER = /[\uD800-\uFFFF]/;

/** The index of the first term not below `term` (its insertion point when absent). */
export function lowerBound(terms: readonly string[], term: string): number {
  let lo = 0, hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareTerms(terms[mid], term) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const k = dictionaries.length;
  const maps = dictionaries.map((d) => new Uint32Array(d.length));
  const terms: string[] = [];
  if (k === 0) return { terms, maps };
  const at = new Uint32Array(k);
  /** Each dictionary's next term; undefined once it is exhausted (it then loses to every term). */
  const heads: (string | undefined)[] = dictionaries.map((d) => d[0]);
  const units = !dictionaries.some(hasBeyondBmpOrder);
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
  for (;;) {
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
}

/** Whether a sorted dictionary holds a term where UTF-16 order and code point order can part; once per dictionary (segments keep theirs). */
function hasBeyondBmpOrder(dictionary: readonly string[]): boolean {
  let known = beyondBmp.get(dictionary);
  if (known === undefined) beyondBmp.set(dictionary, (known = dictionary.some((term) => BEYOND_BMP_ORDER.test(term))));
  return known;
}
const beyondBmp = new WeakMap<readonly string[], boolean>();

/**
 * What one build of global ordinals leaves for the next over mostly the same dictionaries (a
 * snapshot after a refresh adds a segment or two, a merge replaces two): the terms, and each
 * dictionary's map, held weakly so that a dropped segment's dictionary goes with it.
 */
export interface OrdinalsBase {
  terms: readonly string[];
  maps: WeakMap<readonly string[], Uint32Array>;
  /** No term of it parts UTF-16 order from code point order. */
  units: boolean;
}

export function ordinalsBase(dictionaries: readonly (readonly string[])[], ordinals: GlobalOrdinals): OrdinalsBase {
  const maps = new WeakMap<readonly string[], Uint32Array>();
  dictionaries.forEach((dictionary, d) => maps.set(dictionary, ordinals.maps[d]));
  return { terms: ordinals.terms, maps, units: !dictionaries.some(hasBeyondBmpOrder) };
}

/**
 * The global ordinals of `dictionaries`, the same as {@link globalOrdinals} builds, from `base`:
 * the dictionaries it does not know are merged among themselves, then into its terms (a galloping
 * search per new term), every map is carried through the renumbering, and terms no dictionary
 * holds any more are dropped. A keyword sort after each refresh over the cities' 135,000 names
 * otherwise merged every segment's terms again (50 ms, 200 ms before the loser tree).
 */
export function extendOrdinals(base: OrdinalsBase, dictionaries: readonly (readonly string[])[]): GlobalOrdinals {
  const known = dictionaries.map((dictionary) => base.maps.get(dictionary));
  const added = dictionaries.filter((_, d) => known[d] === undefined);
  const addedTerms = added.reduce((n, dictionary) => n + dictionary.length, 0);
  // Mostly new dictionaries: building from scratch costs no more.
  if (addedTerms * 4 > base.terms.length) return globalOrdinals(dictionaries);
  const units = base.units && !added.some(hasBeyondBmpOrder);
  const fresh = globalOrdinals(added);
  const old = base.terms;
  const oldTo = new Uint32Array(old.length), freshTo = new Uint32Array(fresh.terms.length);
  const merged: string[] = [];
  let i = 0;
  fresh.terms.forEach((term, j) => {
    const stop = gallop(old, term, i, units);
    for (; i < stop; i++) oldTo[i] = merged.push(old[i]) - 1;
    if (i < old.length && old[i] === term) oldTo[i++] = merged.length;
    freshTo[j] = merged.push(term) - 1;
  });
  for (; i < old.length; i++) oldTo[i] = merged.push(old[i]) - 1;

  const held = new Uint8Array(merged.length);
  let a = 0;
  const maps = dictionaries.map((dictionary, d) => {
    const from = known[d] ?? fresh.maps[a++];
    const to = known[d] ? oldTo : freshTo;
    const map = new Uint32Array(dictionary.length);
    for (let x = 0; x < map.length; x++) held[(map[x] = to[from[x]])] = 1;
    return map;
  });
  if (held.every((h) => h === 1)) return { terms: merged, maps };
  // Terms only dropped dictionaries held: renumber without them.
  const renumber = new Uint32Array(merged.length);
  const terms: string[] = [];
  for (let t = 0; t < merged.length; t++) if (held[t]) renumber[t] = terms.push(merged[t]) - 1;
  for (const map of maps) for (let x = 0; x < map.length; x++) map[x] = renumber[map[x]];
  return { terms, maps };
}

/** The first index at or after `from` whose term is not below `term`: doubling steps, then a binary search. */
function gallop(terms: readonly string[], term: string, from: number, units: boolean): number {
  const below = (t: string) => (units ? t < term : compareTerms(t, term) < 0);
  let lo = from, step = 1, hi = from;
  while (hi < terms.length && below(terms[hi])) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, terms.length);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(terms[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
