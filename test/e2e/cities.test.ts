/**
 * The default corpus: a first start on an empty data directory loads the cities, and the issue's
 * example request returns the 6th to 10th most populous; a load cut short is redone on the next start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
