/**
 * `_forcemerge`: shards merged down to `max_num_segments`, or rid of their deletes, pages unchanged;
 * flushed after (a restart loads the merged segments); ES's parameters, errors and task form.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectError, ids, testApp, type TestApp } from './app-helpers.ts';

/** Writes `batches` batches of `size` documents, each refreshed into segments of its own. */
async function writeInSegments(t: TestApp, batches: number, size: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const lines: object[] = [];
    for (let i = 0; i < size; i++) {
      const n = b * size + i;
      lines.push({ index: { _id: `d${n}` } }, { n, price: (n * 7919) % 1000 });
    }
    await t.bulk('/books/_bulk?refresh=true', lines);
  }
}

const segmentCounts = (t: TestApp) => t.engine.resolve('books').flatMap((index) => index.snapshot().shards.map((shard) => shard.segments.length));

describe('_forcemerge', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('merges every shard down to max_num_segments, keeps every page, and flushes after', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 2 });
    await writeInSegments(t, 6, 20);
    expect(Math.max(...segmentCounts(t))).toBeGreaterThan(1);
    const pages = async () => Promise.all([0, 37, 110].map(async (from) => ids(await t.json('GET', `/books/_search?from=${from}&size=10&sort=price:desc`))));
    const before = await pages();
    const commits = vi.spyOn(t.engine.store, 'commitShard');

    const res = await t.json('POST', '/books/_forcemerge?max_num_segments=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
    expect(segmentCounts(t)).toEqual([1, 1]);
    expect(await pages()).toEqual(before);
    expect(commits).toHaveBeenCalledTimes(2);
    const stats = await t.json('GET', '/books/_stats');
    expect(stats.body._all.primaries.segments).toEqual({ count: 2 });
    expect(stats.body._all.primaries.docs).toEqual({ count: 120, deleted: 0 });
  });

  it('with flush=false leaves the commit points alone; without max_num_segments merges only what the policy wants', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 1 });
    await writeInSegments(t, 4, 5);
    const commits = vi.spyOn(t.engine.store, 'commitShard');
    const counts = segmentCounts(t);
    expect((await t.json('POST', '/books/_forcemerge?flush=false')).status).toBe(200);
    expect(segmentCounts(t)).toEqual(counts);
    expect(commits).not.toHaveBeenCalled();
    await t.json('POST', '/_forcemerge?max_num_segments=2&flush=false');
    expect(segmentCounts(t)).toEqual([2]);
    expect(commits).not.toHaveBeenCalled();
  });

  it('only_expunge_deletes rewrites the segments with more than 10 % deleted, and no other', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 1 });
    await writeInSegments(t, 2, 20);
    // Three of the first segment's 20 go (15 %), one of the second's (5 %).
    await t.bulk('/books/_bulk?refresh=true', [{ delete: { _id: 'd0' } }, { delete: { _id: 'd1' } }, { delete: { _id: 'd2' } }, { delete: { _id: 'd25' } }]);
    const [first, second] = t.engine.resolve('books')[0].snapshot().shards[0].segments;
    expect([first.deletedCount, second.deletedCount]).toEqual([3, 1]);
    expect((await t.json('POST', '/books/_forcemerge?only_expunge_deletes=true')).status).toBe(200);
    const after = t.engine.resolve('books')[0].snapshot().shards[0].segments;
    expect(after.map((s) => [s.segment.count, s.deletedCount])).toEqual([[17, 0], [20, 1]]);
    expect(after[1].segment).toBe(second.segment);
    expect((await t.json('GET', '/books/_count')).body.count).toBe(36);
  });

  it('waits for what was written before it, refreshed or not', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 1, refresh_interval: '-1' });
    await writeInSegments(t, 3, 5);
    await t.bulk('/books/_bulk', [{ index: { _id: 'late' } }, { n: -1, price: 5 }]);
    await t.json('POST', '/books/_forcemerge?max_num_segments=1');
    expect(segmentCounts(t)).toEqual([1]);
    expect((await t.json('GET', '/books/_count')).body.count).toBe(16);
  });

  it('ends when its index is deleted under it, rather than trying to merge a closed index again and again', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 1 });
    await writeInSegments(t, 6, 200);
    const [index] = t.engine.resolve('books');
    const merging = t.engine.forceMerge([index], { maxSegments: 1 }, false);
    // Deleted while the merge is planned or under way: the merge is dropped, and the call returns.
    await new Promise((resolve) => setImmediate(resolve));
    expect((await t.json('DELETE', '/books')).status).toBe(200);
    const ended = await Promise.race([merging.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still running'), 5000))]);
    expect(ended).toBe('ended');
    expect(index.closed).toBe(true);
  });

  it('runs as a task with wait_for_completion=false, its answer kept with it', async () => {
    t = testApp();
    await t.createIndex('books', { number_of_shards: 1 });
    await writeInSegments(t, 3, 5);
    const started = await t.json('POST', '/books/_forcemerge?max_num_segments=1&wait_for_completion=false');
    expect(started.status).toBe(200);
    expect(started.body.task).toMatch(/^[^:]+:\d+$/);
    const task = await t.json('GET', `/_tasks/${started.body.task}?wait_for_completion=true`);
    expect(task.body.completed).toBe(true);
    expect(task.body.task.action).toBe('indices:admin/forcemerge');
    expect(task.body.task.description).toBe('Force-merge indices [books], maxSegments[1], onlyExpungeDeletes[false], flush[true]');
    expect(task.body.response).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
    expect(segmentCounts(t)).toEqual([1]);
  });

  it('refuses what ES refuses', async () => {
    t = testApp();
    await t.createIndex('books');
    expectError(
      await t.json('POST', '/books/_forcemerge?max_num_segments=1&only_expunge_deletes=true'),
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: cannot set only_expunge_deletes and max_num_segments at the same time, those two parameters are mutually exclusive;',
    );
    expectError(await t.json('POST', '/books/_forcemerge?max_num_segments=x'), 400, 'illegal_argument_exception', 'Failed to parse int parameter [max_num_segments] with value [x]');
    expectError(await t.json('POST', '/books/_forcemerge?max_num_segments=0'), 400, 'illegal_argument_exception', 'maxNumSegments must be >= 1; got 0');
    expectError(await t.json('POST', '/books/_forcemerge?segments=1'), 400, 'illegal_argument_exception', 'request [/books/_forcemerge] contains unrecognized parameter: [segments]');
    expectError(await t.json('POST', '/nope/_forcemerge'), 404, 'index_not_found_exception');
    expect((await t.json('POST', '/nope*/_forcemerge')).body).toEqual({ _shards: { total: 0, successful: 0, failed: 0 } });
  });
});
