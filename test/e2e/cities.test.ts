/**
 * The default corpus: a first start on an empty data directory loads the cities, and the issue's
 * example request returns the 6th to 10th most populous; a load cut short is redone on the next start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import { loadCityList } from '../../src/seed/cities.ts';
import { SEEDING_MARKER, startServer } from '../../src/server.ts';
import { tempDir } from '../engine/helpers.ts';

describe('default corpus', () => {
  const { dir, remove } = tempDir();
  afterAll(remove);

  it('loads the cities on first start and pages them by population', async () => {
    const cities = loadCityList();
    const server = await startServer({ dataDir: dir, port: 0, seed: true });
    try {
      const res = await fetch(`${server.url}/cities/_search?size=5&from=5&sort=population:desc`);
      const body = (await res.json()) as { hits: { hits: { _id: string; sort: number[] }[] } };
      const populations = cities.map((c) => c.population).sort((a, b) => b - a);
      expect(body.hits.hits.map((h) => h.sort[0])).toEqual(populations.slice(5, 10));
      const count = (await (await fetch(`${server.url}/cities/_count`)).json()) as { count: number };
      expect(count.count).toBe(new Set(cities.map((c) => c.cityId)).size);
    } finally {
      await server.close();
    }
  });

  it('answers queries on the cities, over HTTP and through the official client', async () => {
    const cities = [...new Map(loadCityList().map((c) => [c.cityId, c])).values()];
    const server = await startServer({ dataDir: dir, port: 0, seed: true });
    const client = new Client({ node: server.url });
    try {
      const paris = cities.filter((c) => analyze(c.name).includes('paris'));
      const byQ = (await (await fetch(`${server.url}/cities/_search?q=name:paris&size=100`)).json()) as { hits: { total: { value: number }; hits: { _id: string; _score: number }[] } };
      expect(byQ.hits.total.value).toBe(paris.length);
      expect(byQ.hits.hits.map((h) => h._id).sort()).toEqual(paris.map((c) => String(c.cityId)).sort());
      // Relevance: a city called just "Paris" (one token) scores above "Paris Township" and the like.
      expect(analyze(paris.find((c) => String(c.cityId) === byQ.hits.hits[0]._id)!.name)).toEqual(['paris']);

      const bigFrench = cities.filter((c) => c.country === 'FR' && c.population > 100000).sort((a, b) => b.population - a.population || a.cityId - b.cityId);
      const q = encodeURIComponent('country:FR AND population:>100000');
      const byUri = (await (await fetch(`${server.url}/cities/_search?q=${q}&size=100&sort=population:desc`)).json()) as { hits: { total: { value: number }; hits: { sort: number[] }[] } };
      expect(byUri.hits.total.value).toBe(bigFrench.length);
      expect(byUri.hits.hits.map((h) => h.sort[0])).toEqual(bigFrench.map((c) => c.population));

      const atLeast = cities.filter((c) => c.country === 'FR' && c.population >= 100000);
      const response = await client.search({
        index: 'cities',
        size: 100,
        query: { bool: { filter: [{ term: { country: 'FR' } }, { range: { population: { gte: 100000 } } }] } },
        sort: [{ population: 'desc' }],
      });
      expect(response.hits.hits.map((h) => h._id).sort()).toEqual(atLeast.map((c) => String(c.cityId)).sort());
      expect(response.hits.hits.every((h) => h._score === null)).toBe(true);
      expect((await client.count({ index: 'cities', q: 'name:paris' })).count).toBe(paris.length);
      // Wildcards: a keyword takes the pattern as written, a text field's analyzer lowercases it.
      expect((await client.count({ index: 'cities', q: 'country:F*' })).count).toBe(cities.filter((c) => c.country.startsWith('F')).length);
      expect((await client.count({ index: 'cities', q: 'name:PARI*' })).count).toBe(cities.filter((c) => analyze(c.name).some((t) => t.startsWith('pari'))).length);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('redoes a load that was cut short, and leaves a loaded corpus alone', async () => {
    const first = await startServer({ dataDir: dir, port: 0, seed: true });
    await fetch(`${first.url}/cities/_doc/1816670`, { method: 'DELETE' });
    await first.close();
    writeFileSync(join(dir, SEEDING_MARKER), '');
    const second = await startServer({ dataDir: dir, port: 0, seed: true });
    try {
      expect((await fetch(`${second.url}/cities/_doc/1816670`)).status).toBe(200);
    } finally {
      await second.close();
    }
    const third = await startServer({ dataDir: dir, port: 0, seed: true });
    try {
      await fetch(`${third.url}/cities/_doc/1816670`, { method: 'DELETE' });
    } finally {
      await third.close();
    }
    const fourth = await startServer({ dataDir: dir, port: 0, seed: true });
    try {
      expect((await fetch(`${fourth.url}/cities/_doc/1816670`)).status).toBe(404);
    } finally {
      await fourth.close();
    }
  });
});
