import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectError, testApp, type TestApp } from './app-helpers.ts';

describe('_flush', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('commits shards with writes, again only when forced or written to, and answers ES shards', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 2 });
    await t.bulk('/books/_bulk', [{ index: { _id: '1' } }, { n: 1 }, { index: { _id: '2' } }, { n: 2 }]);
    const commits = vi.spyOn(t.engine.store, 'commitShard');
    const first = await t.json('POST', '/books/_flush');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
    const written = commits.mock.calls.length;
    expect(written).toBeGreaterThan(0);
    // Nothing written since: ES's default (force=false) leaves committed shards alone.
    await t.json('POST', '/_flush');
    expect(commits.mock.calls.length).toBe(written);
    await t.json('POST', '/books/_flush?force=true&wait_if_ongoing=true');
    expect(commits.mock.calls.length).toBe(written + 2);
    // A flush makes what was written searchable (its commit point holds sealed segments).
    expect((await t.json('GET', '/books/_count')).body.count).toBe(2);
  });

  it('refuses parameters it does not know and values that are not booleans', async () => {
    t = testApp();
    await t.createIndex('books');
    expectError(await t.json('POST', '/books/_flush?wait=1'), 400, 'illegal_argument_exception', 'request [/books/_flush] contains unrecognized parameter: [wait]');
    expect((await t.json('POST', '/books/_flush?force=maybe')).status).toBe(400);
  });
});
