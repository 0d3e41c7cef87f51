/**
 * The idle collection (src/idle-memory.ts): it runs once the loop has been quiet and the heap grew
 * past the threshold, gives the young generation back, and leaves a node alone that grew less or is
 * busy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { watchIdleMemory } from '../src/idle-memory.ts';

const youngBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.physical_space_size;

/** Allocates `count` short-lived objects, keeping a tenth of them alive until the returned array goes. */
function churn(count: number): unknown[] {
  const kept: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const item = { i, name: `item-${i}`, values: [i, i + 1] };
    if (i % 10 === 0) kept.push(item);
  }
  return kept;
}

describe('watchIdleMemory', () => {
  it('collects once the loop is quiet after the heap grew past the threshold, and says what it gave back', async () => {
    const lines: string[] = [];
    const idle = watchIdleMemory({ log: (line) => lines.push(line), checkMs: 25, growthBytes: 8 * 2 ** 20 });
    try {
      let kept: unknown[] | undefined = churn(2_000_000);
      expect(kept.length).toBe(200_000);
      kept = undefined;
      for (let waited = 0; idle.collections === 0 && waited < 5000; waited += 25) await sleep(25);
      expect(idle.collections).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^deeppage: idle after \d+ MiB of heap growth; a full collection took \d+ ms, resident memory \d+ → \d+ MiB$/);
      // The young generation is given back: V8 keeps no more than a page or two of it.
      expect(youngBytes()).toBeLessThan(2 * 2 ** 20);
      // Nothing grew since: quiet checks go by without another collection.
      await sleep(300);
      expect(idle.collections).toBe(1);
    } finally {
      idle.stop();
    }
  });

  it('leaves a busy loop alone, and collects once it goes quiet', async () => {
    const idle = watchIdleMemory({ checkMs: 25, growthBytes: 8 * 2 ** 20 });
    try {
      churn(2_000_000);
      // Busy for 400 ms: the loop is held in slices of 20 ms with only a moment's rest between them.
      const until = performance.now() + 400;
      while (performance.now() < until) {
        const slice = performance.now() + 20;
        while (performance.now() < slice);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(idle.collections).toBe(0);
      for (let waited = 0; idle.collections === 0 && waited < 5000; waited += 25) await sleep(25);
      expect(idle.collections).toBe(1);
    } finally {
      idle.stop();
    }
  });

  it('does not collect for growth under the threshold', async () => {
    const idle = watchIdleMemory({ checkMs: 25, growthBytes: 2 ** 40 });
    try {
      churn(500_000);
      await sleep(300);
      expect(idle.collections).toBe(0);
    } finally {
      idle.stop();
    }
  });
});
