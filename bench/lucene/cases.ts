/**
 * The searches both peers are asked, on the catalog corpus (bench/lib/corpus.ts), size 10,
 * `_source: false`, each as a case with one warm search (asked again and again) and a pool of new
 * ones (each asked once per index, of the same kind and about the same selectivity):
 *
 * - `match 1 word`: `match title: W`, by score, first page; W a common word (in at least 1 % of the
 *   titles; the project's meaning of common), a different one each new search;
 * - `match 2 words`: `match title: "A B"`, by score, first page; A among the most frequent words and B
 *   another, the pair in 20–30 % of the titles (the warm one the engine suite's pair, about 23 %);
 * - `term 1%`: `bool.filter term shelf: k` by price desc, first page (the warm one shelf 42);
 * - `range 10%`: `bool.filter range shelf [lo, lo + 10)` by price desc, first page and last page
 *   (from = matches − 10); the warm one lo = 0, the new ones split between the two pages (odd lo for
 *   the first page, even for the last), so no range is asked at both.
 *
 * Each search carries what plain JS knows of it: its matches, and for the filters the page itself
 * (the placement's reference order restricted to the matches: price desc, then shard, then index order).
 */
import { mulberry32 } from '../lib/data.ts';
import { SEED, SHELVES, type CatalogCorpus } from '../lib/corpus.ts';

export const PAGE = 10;

export interface Search {
  /** The request body, without `from` and `size`. */
  body: Record<string, unknown>;
  /** Whether document i (corpus position) matches. */
  matches(i: number): boolean;
  /** Sorted by price (the filters), or by score (the matches). */
  sorted: boolean;
}

export interface Case {
  name: string;
  /** `first` (from 0) or `last` (from = matches − 10). */
  page: 'first' | 'last';
  warm: Search;
  /** The new searches, in the order they are asked; none is the warm one, none is in another case's pool. */
  fresh: Search[];
}

/** The documents that contain each word (by vocabulary rank), and each pair of the `top` most frequent. */
interface WordCounts {
  docs: Uint32Array;
  /** `pairs[a * top + b]`, a < b: documents holding both. */
  pairs: Uint32Array;
  top: number;
}

const COMMON = 0.01;
const PAIR_MIN = 0.2;
const PAIR_MAX = 0.3;
/** The engine suite's pair (bench/engine/queries.ts): the 3rd and 12th most frequent words. */
const WARM_PAIR: [number, number] = [2, 11];
const WARM_SHELF = 42;

export function catalogCases(corpus: CatalogCorpus): Case[] {
  const n = corpus.ids.length;
  const { shelf, vocabulary } = corpus;
  const counts = wordCounts(corpus, 64);
  const shuffle = seededShuffle(SEED + 39);

  const hasWord = (words: number[]) => (i: number) => {
    for (let j = corpus.titleStarts[i]; j < corpus.titleStarts[i + 1]; j++) if (words.includes(corpus.titleWords[j])) return true;
    return false;
  };
  const match = (words: number[]): Search => ({ body: { query: { match: { title: words.map((w) => vocabulary[w]).join(' ') } } }, matches: hasWord(words), sorted: false });
  const byPrice = (clause: object, matches: (i: number) => boolean): Search => ({ body: { query: { bool: { filter: [clause] } }, sort: [{ [corpus.field]: 'desc' }] }, matches, sorted: true });
  const range = (lo: number) => byPrice({ range: { shelf: lo === 0 ? { lt: 10 } : { gte: lo, lt: lo + 10 } } }, (i) => shelf[i] >= lo && shelf[i] < lo + 10);
  const term = (k: number) => byPrice({ term: { shelf: k } }, (i) => shelf[i] === k);

  const common = shuffle(Array.from({ length: vocabulary.length }, (_, w) => w).filter((w) => counts.docs[w] >= COMMON * n));
  const [warmWord, ...newWords] = common;
  const pairs: [number, number][] = [];
  for (let a = 0; a < counts.top; a++) {
    for (let b = a + 1; b < counts.top; b++) {
      const union = counts.docs[a] + counts.docs[b] - counts.pairs[a * counts.top + b];
      if (union >= PAIR_MIN * n && union <= PAIR_MAX * n && !(a === WARM_PAIR[0] && b === WARM_PAIR[1])) pairs.push([a, b]);
    }
  }
  const shelves = shuffle(Array.from({ length: SHELVES }, (_, k) => k).filter((k) => k !== WARM_SHELF));
  const los = Array.from({ length: SHELVES - 10 }, (_, i) => i + 1);
  return [
    { name: 'match 1 word', page: 'first', warm: match([warmWord]), fresh: newWords.map((w) => match([w])) },
    { name: 'match 2 words', page: 'first', warm: match(WARM_PAIR), fresh: shuffle(pairs).map((pair) => match(pair)) },
    { name: 'term 1%', page: 'first', warm: term(WARM_SHELF), fresh: shelves.map(term) },
    { name: 'range 10%', page: 'first', warm: range(0), fresh: shuffle(los.filter((lo) => lo % 2 === 1)).map(range) },
    { name: 'range 10%', page: 'last', warm: range(0), fresh: shuffle(los.filter((lo) => lo % 2 === 0)).map(range) },
  ];
}

/** The count of matches of `search`. */
export function countMatches(search: Search, n: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (search.matches(i)) count++;
  return count;
}

function wordCounts(corpus: CatalogCorpus, top: number): WordCounts {
  const docs = new Uint32Array(corpus.vocabulary.length);
  const pairs = new Uint32Array(top * top);
  const seen = new Int32Array(corpus.vocabulary.length).fill(-1);
  const present: number[] = [];
  for (let i = 0; i < corpus.ids.length; i++) {
    present.length = 0;
    for (let j = corpus.titleStarts[i]; j < corpus.titleStarts[i + 1]; j++) {
      const w = corpus.titleWords[j];
      if (seen[w] === i) continue;
      seen[w] = i;
      docs[w]++;
      if (w < top) present.push(w);
    }
    for (const a of present) for (const b of present) if (a < b) pairs[a * top + b]++;
  }
  return { docs, pairs, top };
}

/** A copying Fisher–Yates shuffle, seeded: the same order on every run. */
function seededShuffle(seed: number): <T>(list: T[]) => T[] {
  const next = mulberry32(seed);
  return <T>(list: T[]) => {
    const out = list.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = next() % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
}
