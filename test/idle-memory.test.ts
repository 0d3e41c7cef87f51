/**
 * The idle collection (src/idle-memory.ts): it runs once the loop has been quiet and the heap grew
 * past the threshold, gives the young generation back, and leaves a node alone that grew less or is
 * busy. On glibc, resident memory that grew without the heap gets a trim of its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { watchIdleMemory } from '../src/idle-memory.ts';
import { mallocTrim } from '../src/malloc-trim.ts';

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
      expect(lines[0]).toMatch(/^deeppage: idle after \d+ MiB of heap growth; a full collection( and malloc_trim)? took \d+ ms, resident memory \d+ → \d+ MiB$/);
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

  it.runIf(mallocTrim() !== undefined)('trims alone once quiet when resident memory grew and the heap did not', async () => {
    const lines: string[] = [];
    const idle = watchIdleMemory({ log: (line) => lines.push(line), checkMs: 25, growthBytes: 2 ** 40, trimGrowthBytes: 16 * 2 ** 20 });
    try {
      // 48 MiB of buffers outside V8's heap, every other one let go: what a flush's encoding leaves.
      const kept = Array.from({ length: 1536 }, () => Buffer.alloc(32 * 1024, 1)).filter((_, i) => i % 2 === 0);
      for (let waited = 0; idle.trims === 0 && waited < 5000; waited += 25) await sleep(25);
      expect(idle.trims).toBe(1);
      expect(idle.collections).toBe(0);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^deeppage: idle after \d+ MiB of resident growth; malloc_trim took \d+ ms, resident memory \d+ → \d+ MiB$/);
      // Growth counts from the trim on: no other one without new growth.
      await sleep(300);
      expect(idle.trims).toBe(1);
      expect(kept).toHaveLength(768);
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
