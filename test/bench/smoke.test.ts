/**
 * Keeps the benchmark code from rotting: the real runner, every suite, in smoke form (tiny inputs,
 * a sample or two), into a temporary directory. It asserts the outputs exist and hold what they
 * should, never a timing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { withoutCredentials } from '../../bench/lib/es-client.ts';
import { tempDir } from '../engine/helpers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const SUITES = ['kernels', 'engine', 'http', 'ingest', 'scale', 'front'];

describe('npm run bench (smoke)', () => {
  const { dir, remove } = tempDir();
  afterAll(remove);

  it('runs every suite and writes JSON, Markdown and SVG charts', { timeout: 180_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/run.ts', '--smoke', '--out', dir], { cwd: root, maxBuffer: 64 << 20 });
    for (const suite of SUITES) {
      expect(stdout).toContain(`# deeppage benchmark: ${suite}`);
      const report = JSON.parse(readFileSync(`${dir}/${suite}.json`, 'utf8'));
      expect(report).toMatchObject({ suite, mode: 'smoke', node: process.version, machine: { cpus: expect.any(Number) } });
      expect(report.rows.length).toBeGreaterThan(0);
      for (const row of report.rows) {
        expect(row).toMatchObject({ group: expect.any(String), strategy: expect.any(String), unit: expect.any(String), samples: expect.any(Number) });
        expect(row.min).toBeLessThanOrEqual(row.median);
        expect(row.median).toBeLessThanOrEqual(row.max);
      }
      const markdown = readFileSync(`${dir}/${suite}.md`, 'utf8');
      for (const [, svg] of markdown.matchAll(/\]\(([^)]+\.svg)\)/g)) {
        expect(readFileSync(`${dir}/${svg}`, 'utf8')).toMatch(/^<svg[^>]*>[\s\S]*<\/svg>\s*$/);
      }
    }
    const engine = JSON.parse(readFileSync(`${dir}/engine.json`, 'utf8'));
    const strategies = new Set(engine.rows.map((r: { strategy: string }) => r.strategy));
    expect([...strategies].sort()).toEqual(['deeppage', 'deeppage-cold', 'deeppage-new-query', 'deeppage-top-k', 'duckdb-offset', 'es-style-js', 'naive-sort', 'orama', 'sqlite-keyset', 'sqlite-offset']);
    // Searches with a query: in process (filters and match; the cities beside Orama) and over HTTP.
    const groups = (suite: string) => new Set(JSON.parse(readFileSync(`${dir}/${suite}.json`, 'utf8')).rows.map((r: { group: string }) => r.group));
    expect([...groups('engine')]).toEqual(expect.arrayContaining(['query', 'text']));
    expect([...groups('http')]).toContain('query');
    // The front suite: the cluster's pages and the pass-through probes, whether or not the front accelerates yet.
    expect([...groups('front')]).toEqual(expect.arrayContaining(['from', 'pass-through']));
    // The reads' throughput is measured in rounds beside hello-world, each with its share of it; the
    // shallow page at 50 connections too, beside hello-world at 50, with each round's p99.
    const http = JSON.parse(readFileSync(`${dir}/http.json`, 'utf8')).rows as { unit: string; params: { endpoint?: string; connections?: number; statistic?: string } }[];
    expect(http.filter((r) => r.unit === 'share of hello-world').map((r) => `${r.params.endpoint} ${r.params.connections}`).sort()).toEqual(['GET / 10', 'deep 10', 'deep top-k 10', 'shallow 10', 'shallow 50']);
    expect(http.filter((r) => r.params.statistic === 'p99 by round').map((r) => `${r.params.endpoint} ${r.params.connections}`).sort()).toEqual(['GET / 10', 'deep 10', 'deep top-k 10', 'hello-world 10', 'hello-world 50', 'shallow 10', 'shallow 50']);
    expect(existsSync(`${dir}/engine-from.svg`) && existsSync(`${dir}/engine-size.svg`)).toBe(true);
  });
});

describe('npm run bench -- --url (smoke)', () => {
  it('sweeps another endpoint beside deeppage, sending credentials from the URL as Basic auth and recording none', { timeout: 120_000 }, async () => {
    const data = tempDir(), out = tempDir();
    const remote = await startServer({ dataDir: data.dir, port: 0 });
    try {
      await remote.engine.createIndex('towns', { settings: { number_of_shards: 2 }, mappings: { properties: { population: { type: 'long' } } } });
      await remote.engine.write(Array.from({ length: 50 }, (_, i) => ({ action: 'index' as const, index: 'towns', id: `t${i}`, source: { population: (i * 37) % 11 } })), 'true');
      const url = remote.url.replace('//', '//bench:s3cret@');
      await run(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out.dir, '--url', url, '--index', 'towns', '--sort', 'population'], { cwd: root, maxBuffer: 64 << 20 });
      const report = readFileSync(`${out.dir}/http.json`, 'utf8');
      expect(report).not.toContain('s3cret');
      const host = new URL(remote.url).host;
      const rows = JSON.parse(report).rows as { group: string; strategy: string }[];
      expect(rows.filter((r) => r.strategy === `remote ${host}`).map((r) => r.group)).toEqual(expect.arrayContaining(['from', 'size']));
      expect(rows.some((r) => r.strategy === 'deeppage' && r.group === 'from')).toBe(true);
    } finally {
      await remote.close();
      data.remove();
      out.remove();
    }
  });

  it('splits credentials off a base URL', () => {
    expect(withoutCredentials('http://localhost:9200')).toEqual({ url: 'http://localhost:9200', headers: {} });
    expect(withoutCredentials('https://elastic:p%40ss@es.example:9243')).toEqual({
      url: 'https://es.example:9243',
      headers: { authorization: `Basic ${Buffer.from('elastic:p@ss').toString('base64')}` },
    });
  });
});
