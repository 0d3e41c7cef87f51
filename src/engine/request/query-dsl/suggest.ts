/**
 * ES's "did you mean" for a name it does not know (`SuggestingErrorOnUnknown`): every candidate whose
 * Lucene Levenshtein similarity to the name is above 0.5, most similar first, ties by name.
 *
 * @example
 * didYouMean('boool', ['bool', 'boosting']) // ' did you mean [bool]?'
 * didYouMean('match_', ['match', 'match_all', 'match_none', 'term']) // ' did you mean any of [match, match_all, match_none]?'
 */
export function didYouMean(unknown: string, candidates: Iterable<string>): string {
  const scored: { similarity: number; name: string }[] = [];
  for (const name of candidates) {
    const score = similarity(unknown, name);
    if (score > 0.5) scored.push({ similarity: score, name });
  }
  if (scored.length === 0) return '';
  scored.sort((a, b) => b.similarity - a.similarity || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = scored.map((s) => s.name);
  return names.length === 1 ? ` did you mean [${names[0]}]?` : ` did you mean any of [${names.join(', ')}]?`;
}

/**
 * Lucene's `LevenshteinDistance.getDistance`: 1 − edits / longer length, over UTF-16 units, in
 * float arithmetic (the 0.5 threshold is compared in float).
 */
function similarity(target: string, other: string): number {
  const n = target.length;
  const m = other.length;
  if (n === 0 || m === 0) return n === m ? 1 : 0;
  let previous = Array.from({ length: n + 1 }, (_, i) => i);
  let current = new Array<number>(n + 1);
  for (let j = 1; j <= m; j++) {
    const unit = other.charCodeAt(j - 1);
    current[0] = j;
    for (let i = 1; i <= n; i++) {
      const cost = target.charCodeAt(i - 1) === unit ? 0 : 1;
      current[i] = Math.min(current[i - 1] + 1, previous[i] + 1, previous[i - 1] + cost);
    }
    [previous, current] = [current, previous];
  }
  return Math.fround(1 - Math.fround(previous[n] / Math.max(n, m)));
}
