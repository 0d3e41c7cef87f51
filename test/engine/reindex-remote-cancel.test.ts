/**
 * Cancelling a reindex from a remote while a scroll request is in flight: it ends as canceled, with
 * its counts, as a local one does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { reindex, type ReindexResponse } from '../../src/engine/reindex/reindex.ts';
import { reindexRequest } from '../../src/engine/reindex/reindex-request.ts';
import { parseRemoteInfo } from '../../src/engine/reindex/remote-info.ts';
import { tempEngine } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An ES 8 that serves one hit in its first search, then never answers a scroll. */
async function stallingRemote(): Promise<number> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
      if (req.url === '/') return send({ version: { number: '8.15.0' }, tagline: 'You Know, for Search' });
      if (req.method === 'DELETE') return send({ succeeded: true, num_freed: 1 });
      if (req.url?.startsWith('/src/_search')) {
        return send({ _scroll_id: 's1', took: 1, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { total: { value: 2, relation: 'eq' }, max_score: null, hits: [{ _index: 'src', _id: 'a', _score: null, _source: { n: 1 } }] } });
      }
      // POST /_search/scroll: hangs.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

describe('reindex from remote: cancel', () => {
  // reindex.ts:74-82: the cancel aborts the scroll request in flight (remote-client.ts RemoteClient
  // fails it with the signal's reason), drain rethrows that, and reindex() rethrows every failure
  // that is not a RemoteSearchFailures. The task ends with error task_cancelled_exception and the
  // counts are lost. ES checks isCancelled between steps and answers the response with
  // `canceled: "by user request"` (what a local reindex cancelled between batches does here).
  it('a cancel during a scroll request ends with the counts and canceled', async () => {
    const port = await stallingRemote();
    const { engine, close } = tempEngine({ settings: { reindexRemoteWhitelist: ['127.0.0.1:*'] } });
    cleanups.push(close);
    const task = engine.tasks.start<ReindexResponse>('indices:data/write/reindex', 'remote', (running) =>
      reindex(engine, reindexRequest(['src'], 'dst', {
        source: { indices: ['src'], size: 1, filter: { includes: [], excludes: [] }, remote: parseRemoteInfo({ host: `http://127.0.0.1:${port}` }) },
        refresh: true,
        keepAliveMs: 60_000,
      }), running),
    );
    // Let the first batch be written and the scroll request go out.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await engine.tasks.cancel(task.taskId);
    const response = await task.done;
    expect(response.canceled).toBe('by user request');
    expect(response.created).toBe(1);
  });
});
