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
  const maps = dictionaries.map((d) => new Uint32Array(d.length));
  const terms: string[] = [];
  const at = new Uint32Array(dictionaries.length);
  for (;;) {
    let best = -1;
    for (let d = 0; d < dictionaries.length; d++) {
      if (at[d] < dictionaries[d].length && (best < 0 || compareTerms(dictionaries[d][at[d]], dictionaries[best][at[best]]) < 0)) best = d;
    }
    if (best < 0) return { terms, maps };
    const term = dictionaries[best][at[best]];
    for (let d = 0; d < dictionaries.length; d++) {
      if (at[d] < dictionaries[d].length && dictionaries[d][at[d]] === term) maps[d][at[d]++] = terms.length;
    }
    terms.push(term);
  }
}
