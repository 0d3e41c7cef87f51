/**
 * `npm start` runs the server compiled into dist/ (scripts/build-server.mjs, run by the prestart
 * script and by test/global-setup.ts): it must be the sources' server, files beside the code
 * included, and compiling again must cost nothing while the sources are unchanged.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../engine/helpers.ts';
import { killServers, serverProcess, SERVER_ENTRY } from './server-process.ts';

afterAll(killServers);

describe('the compiled server', () => {
  it('is not compiled again while the sources are unchanged', () => {
    const stamp = statSync('dist/.built').mtimeMs;
    const output = execFileSync(process.execPath, ['scripts/build-server.mjs'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(output).toBe('');
    expect(statSync('dist/.built').mtimeMs).toBe(stamp);
    expect(statSync(SERVER_ENTRY).mtimeMs).toBeLessThanOrEqual(stamp);
  });

  it('answers as the sources do, and serves the paging page files byte for byte', async () => {
    const data = tempDir();
    const { child, url, exited } = serverProcess(data.dir);
    try {
      const base = await url;
      const root = await fetch(`${base}/`);
      expect(root.status).toBe(200);
      const body = (await root.json()) as { version: { number: string }; tagline: string };
      expect(body.version.number).toMatch(/^8\.\d+\.\d+$/);
      expect(body.tagline).toBe('You Know, for Search');
      expect(root.headers.get('x-elastic-product')).toBe('Elasticsearch');
      for (const [path, file] of [['/_deeppage/', 'index.html'], ['/_deeppage/app.js', 'app.js'], ['/_deeppage/style.css', 'style.css']]) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, path).toBe(200);
        expect(await res.text(), path).toBe(readFileSync(`src/http/ui/${file}`, 'utf8'));
      }
      const missing = await fetch(`${base}/missing-index/_search`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { type: string } }).error.type).toBe('index_not_found_exception');
    } finally {
      child.kill('SIGTERM');
      expect((await exited).code).toBe(0);
      data.remove();
    }
  });
});
