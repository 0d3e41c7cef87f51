/** Request work in turns (src/http/turns.ts): first come first served, quick ones sharing a pass, and the loop runs between passes. */
import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/http/turns.ts';

/** Holds the loop for `ms`, as a request's synchronous work does. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('turns', () => {
  it('serves requests in the order they came, one per pass of the event loop, so a timer runs between them', async () => {
    const turns = new Turns();
    const served: number[] = [];
    let servedWhenTimerRan = -1;
    setTimeout(() => (servedWhenTimerRan = served.length), 0);
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        await turns.take();
        work(2);
        served.push(i);
      }),
    );
    expect(served).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Run all at once, the 50 would hold the loop 100 ms before the timer; in turns it runs after one or two.
    expect(servedWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(servedWhenTimerRan).toBeLessThanOrEqual(3);
    expect(turns.waiting).toBe(0);
  });

  it('starts quick requests in the same pass, up to its budget, and no more after it', async () => {
    const turns = new Turns();
    const served: number[] = [];
    const quick = Array.from({ length: 20 }, async (_, i) => {
      await turns.take();
      served.push(i);
    });
    // An immediate queued behind the turn's runs once the pass has started what it will.
    const inFirstPass = await new Promise<number>((resolve) => setImmediate(() => resolve(served.length)));
    await Promise.all(quick);
    expect(inFirstPass).toBe(20);
    const slow = Array.from({ length: 5 }, async () => {
      await turns.take();
      work(2);
    });
    let startedInFirstPass = 0;
    const marker = new Promise<void>((resolve) => setImmediate(() => resolve()));
    void marker.then(() => (startedInFirstPass = 5 - turns.waiting));
    await Promise.all(slow);
    // Each takes 2 ms, over the pass's budget: the pass starts one.
    expect(startedInFirstPass).toBe(1);
  });

  it('keeps serving in order across a long queue, and turns taken while others wait come after them', async () => {
    const turns = new Turns();
    const served: number[] = [];
    const first = Array.from({ length: 3000 }, async (_, i) => {
      await turns.take();
      served.push(i);
      if (i === 10) void turns.take().then(() => served.push(-1));
    });
    await Promise.all(first);
    await turns.take();
    expect(served.slice(0, 3000)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(served[3000]).toBe(-1);
  });
});
