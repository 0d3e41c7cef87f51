/**
 * The paging page's depth and its reading of a front's answers (src/http/ui/depth.js, search.js),
 * imported as the browser imports them: how many pages it offers on deeppage itself (the window
 * limits them) and over a front (the hits do), how it tells a front's `_nodes/stats` from deeppage's
 * or a cluster's, and how it reads the headers a front puts on a page.
 */
import { describe, expect, it } from 'vitest';

interface Depth {
  pageCount(index: { total: number; size: number; maxResultWindow: number }, front: boolean): number;
  isFrontAnswer(body: unknown): boolean;
}
interface Search {
  servedBy(headers: Headers): { page: string; snapshot?: string; clusterRequests?: number } | undefined;
  strategiesFor(front: boolean): readonly { paging: string; label: string }[];
}

// Plain JavaScript for the browser: imported by URL, so that TypeScript asks for no declarations.
const { pageCount, isFrontAnswer } = (await import(new URL('../../src/http/ui/depth.js', import.meta.url).href)) as Depth;
const { servedBy, strategiesFor } = (await import(new URL('../../src/http/ui/search.js', import.meta.url).href)) as Search;

describe('the pages the paging page offers', () => {
  it('on deeppage itself: the hits, cut at max_result_window (from + size may not pass it)', () => {
    expect(pageCount({ total: 55, size: 10, maxResultWindow: 10_000 }, false)).toBe(6);
    expect(pageCount({ total: 55, size: 10, maxResultWindow: 20 }, false)).toBe(2);
    expect(pageCount({ total: 55, size: 10, maxResultWindow: 25 }, false)).toBe(2);
    expect(pageCount({ total: 1_000_000, size: 10, maxResultWindow: 10_000 }, false)).toBe(1_000);
    expect(pageCount({ total: 0, size: 10, maxResultWindow: 10_000 }, false)).toBe(1);
  });

  it('over a front: every page of the hits, past the cluster window', () => {
    expect(pageCount({ total: 55, size: 10, maxResultWindow: 20 }, true)).toBe(6);
    expect(pageCount({ total: 1_000_000, size: 10, maxResultWindow: 10_000 }, true)).toBe(100_000);
    expect(pageCount({ total: 0, size: 10, maxResultWindow: 10_000 }, true)).toBe(1);
  });

  it('asks a front its own way only, and deeppage both of its strategies', () => {
    expect(strategiesFor(true).map((s) => s.paging)).toEqual(['front']);
    expect(strategiesFor(false).map((s) => s.paging)).toEqual(['sorted_runs', 'top_k']);
  });
});

describe("the page's reading of a front", () => {
  it("knows a front's _nodes/stats by its front section only", () => {
    expect(isFrontAnswer({ front: { rank_indices: {}, open_pits: 0, cluster_requests: {} } })).toBe(true);
    for (const body of [{}, { nodes: {} }, { front: null }, { front: 1 }, null, []]) expect(isFrontAnswer(body), JSON.stringify(body)).toBe(false);
  });

  it("reads how a front made a page from the answer's headers", () => {
    const warm = new Headers({ 'x-deeppage-page': 'warm', 'x-deeppage-snapshot': '2026-11-28T05:00:00.000Z', 'x-deeppage-cluster-requests': '1' });
    expect(servedBy(warm)).toEqual({ page: 'warm', snapshot: '2026-11-28T05:00:00.000Z', clusterRequests: 1 });
    expect(servedBy(new Headers({ 'x-deeppage-page': 'cold', 'x-deeppage-cluster-requests': '7' }))).toEqual({ page: 'cold', snapshot: undefined, clusterRequests: 7 });
    // Deeppage's own answers, and those a front passes through, say nothing of how they were made.
    expect(servedBy(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });
});
