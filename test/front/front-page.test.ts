/**
 * The paging page served by a front (src/front/front-page.ts), process to process: a stand-in
 * cluster (deeppage, `search.paging=top_k`) and a front before it. The front answers under
 * `/_deeppage` itself, as the engine's route does (the cluster's own `/_deeppage/` is that route):
 * the same bytes and header lines but `X-Elastic-Product`, which the front does not claim; 304 on a
 * matching ETag, the 301 from the bare prefix, ES-shaped 404s and 405s. And what the page reads to
 * know it runs over a front, and to page past the cluster's window there, as the two answer it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endToEndLines, exchange, killAll, start, type Exchange, type Started } from './processes.ts';

const FILES = ['index.html', 'style.css', 'app.js', 'chart.js', 'search.js', 'format.js', 'depth.js'];
const PRODUCT = 'x-elastic-product: Elasticsearch';
const WINDOW = 20;
const DOCS = 55;

interface Depth {
  isFrontAnswer(body: unknown): boolean;
}
const { isFrontAnswer } = (await import(new URL('../../src/http/ui/depth.js', import.meta.url).href)) as Depth;

let cluster: Started;
let front: Started;
beforeAll(async () => {
  cluster = await start(['-E', 'search.paging=top_k']);
  front = await start(['-E', `front.hosts=${cluster.url}`]);
  const made = await fetch(`${cluster.url}/products`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 2, max_result_window: WINDOW }, mappings: { properties: { n: { type: 'long' } } } }) });
  expect(made.status).toBe(200);
  const lines = Array.from({ length: DOCS }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${(i * 7) % DOCS}}\n`).join('');
  const bulk = await fetch(`${cluster.url}/products/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
  expect(((await bulk.json()) as { errors: boolean }).errors).toBe(false);
});
afterAll(killAll);

/** The same request to the cluster's own route and to the front. */
async function both(method: string, path: string, headers: string[] = []): Promise<{ direct: Exchange; through: Exchange }> {
  return { direct: await exchange(cluster.url, method, path, headers), through: await exchange(front.url, method, path, headers) };
}

const sortedLines = (answer: Exchange) => endToEndLines(answer).sort();

/** The front's answer is the engine's, but for the product header the engine sends and the front leaves out. */
function expectEngineAnswerWithoutProduct({ direct, through }: { direct: Exchange; through: Exchange }): void {
  expect(through.status).toBe(direct.status);
  expect(sortedLines(direct)).toContain(PRODUCT);
  expect(sortedLines(through)).toEqual(sortedLines(direct).filter((line) => line !== PRODUCT));
  expect(through.body.equals(direct.body), `${through.body} against ${direct.body}`).toBe(true);
}

describe('the paging page through a front', () => {
  it('serves every file and the folder with the bytes and headers of the engine, no product header', async () => {
    for (const path of [...FILES.map((name) => `/_deeppage/${name}`), '/_deeppage/']) {
      const answers = await both('GET', path);
      expect(answers.through.status, path).toBe(200);
      expectEngineAnswerWithoutProduct(answers);
    }
    const page = await exchange(front.url, 'GET', '/_deeppage/');
    expect(endToEndLines(page)).toContain("content-security-policy: default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const path of ['/_deeppage/', '/_deeppage/app.js']) {
      const answers = await both('HEAD', path);
      expect(answers.through.body.length).toBe(0);
      expectEngineAnswerWithoutProduct(answers);
      expect(sortedLines(answers.through)).toEqual(sortedLines(await exchange(front.url, 'GET', path)));
    }
  });

  it('answers 304 with no body when the ETag still matches, 200 when it does not', async () => {
    const etag = endToEndLines(await exchange(front.url, 'GET', '/_deeppage/style.css')).find((line) => line.startsWith('etag: '))!.slice(6);
    for (const match of [etag, `"stale", W/${etag}`, '*']) {
      const answers = await both('GET', '/_deeppage/style.css', ['If-None-Match', match]);
      expect(answers.through.status, match).toBe(304);
      expect(answers.through.body.length).toBe(0);
      expectEngineAnswerWithoutProduct(answers);
    }
    expect((await exchange(front.url, 'GET', '/_deeppage/style.css', ['If-None-Match', '"stale"'])).status).toBe(200);
    expect((await exchange(front.url, 'GET', '/_deeppage/app.js', ['If-None-Match', etag])).status).toBe(200);
  });

  it('redirects the bare prefix to the folder, keeping the query', async () => {
    for (const path of ['/_deeppage', '/_deeppage?x=1']) {
      const answers = await both('GET', path);
      expect(answers.through.status).toBe(301);
      expectEngineAnswerWithoutProduct(answers);
    }
  });

  it('answers any other name under the folder with the engine’s 404, and other methods with its 405', async () => {
    for (const path of ['/_deeppage/nope.js', '/_deeppage/APP.JS', '/_deeppage/constructor', '/_deeppage/_search', '/_deeppage/a/b', '/_deeppage/app.js/x', '/_deeppage/..%2fpackage.json', '/_deeppage/%zz']) {
      const answers = await both('GET', path);
      expect(answers.through.status, path).toBe(404);
      expect(JSON.parse(answers.through.body.toString()).error.reason, path).toBe(`no file [${path}] in the paging page`);
      expectEngineAnswerWithoutProduct(answers);
    }
    const answers = await both('POST', '/_deeppage/app.js');
    expect(answers.through.status).toBe(405);
    expectEngineAnswerWithoutProduct(answers);
  });

  it('never reaches a file outside the folder, however `..` is spelled', async () => {
    const traversals = ['/_deeppage/../package.json', '/_deeppage/%2e%2e/package.json', '/_deeppage/..%2fpackage.json', '/_deeppage/..%5cpackage.json', '/_deeppage/..\\package.json', '/_deeppage/%252e%252e%252fpackage.json', '/_deeppage/%2e%2e%2f%2e%2e%2fsrc%2fserver.ts', '/_deeppage/%00app.js', '/_deeppage/app.js%00'];
    for (const path of traversals) {
      const answer = await exchange(front.url, 'GET', path);
      expect(answer.status, path).not.toBe(200);
      expect(answer.body.toString(), path).not.toContain('"devDependencies"');
      expect(JSON.parse(answer.body.toString()).error, path).toBeDefined();
    }
  });

  it('leaves every other path to the cluster', async () => {
    for (const path of ['/_deeppagex', '/products/_count']) {
      const { direct, through } = await both('GET', path);
      expect(through.status, path).toBe(direct.status);
      expect(through.body.equals(direct.body), path).toBe(true);
      expect(sortedLines(through)).toEqual(sortedLines(direct));
    }
  });
});

describe('what the page reads to know a front', () => {
  it('finds the front in _nodes/stats filtered to it, and nothing in deeppage’s', async () => {
    const path = '/_nodes/stats?filter_path=front';
    const direct = await fetch(`${cluster.url}${path}`);
    const through = await fetch(`${front.url}${path}`);
    expect([direct.status, through.status]).toEqual([200, 200]);
    expect(isFrontAnswer(await direct.json())).toBe(false);
    expect(isFrontAnswer(await through.json())).toBe(true);
  });

  it('gets a page past the cluster’s window from the front, asked as the page asks it, where the cluster refuses it', async () => {
    const search = (url: string) => fetch(`${url}/products/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 50, size: 10, sort: [{ n: { order: 'asc' } }], track_total_hits: true }) });
    expect((await search(cluster.url)).status).toBe(400);
    const answer = await search(front.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-deeppage-page')).toMatch(/^(warm|cold)$/);
    expect(Number(answer.headers.get('x-deeppage-cluster-requests'))).toBeGreaterThan(0);
    const body = (await answer.json()) as { hits: { total: { value: number }; hits: { sort: number[] }[] } };
    expect(body.hits.total.value).toBe(DOCS);
    expect(body.hits.hits.map((hit) => hit.sort[0])).toEqual([50, 51, 52, 53, 54]);
  });
});
