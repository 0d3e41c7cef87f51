/**
 * The idle collection (src/idle-memory.ts): it runs once the loop has been quiet and the heap grew
 * past the threshold, gives the young generation back, and leaves a node alone that grew less or is
 * busy. On glibc, resident memory that grew without the heap gets a trim of its own; without koffi
 * (an optional dependency) the collection runs alone, and says once that it cannot trim.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { tempDir } from './engine/helpers.ts';
import { watchIdleMemory } from '../src/idle-memory.ts';
import { mallocTrim } from '../src/malloc-trim.ts';

const onGlibc = process.platform === 'linux' && Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

/**
 * The child: the compiled watch (dist/, as `npm start` runs it) copied where no node_modules holds
 * koffi, so that it really is missing; two rounds of churn, each waited for until it is collected.
 */
const WITHOUT_KOFFI = `
import { setTimeout as sleep } from 'node:timers/promises';
const { watchIdleMemory } = await import(process.argv[1] + '/idle-memory.js');
const lines = [];
const idle = watchIdleMemory({ log: (line) => lines.push(line), checkMs: 25, growthBytes: 8 * 2 ** 20, trimGrowthBytes: 16 * 2 ** 20 });
for (const round of [1, 2]) {
  const kept = [];
  for (let i = 0; i < 2_000_000; i++) if (i % 10 === 0) kept.push({ i, name: 'item-' + i });
  kept.length = 0;
  for (let waited = 0; idle.collections < round && waited < 5000; waited += 25) await sleep(25);
}
idle.stop();
console.log(JSON.stringify({ collections: idle.collections, trims: idle.trims, lines }));
`;

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

  it.runIf(onGlibc)('without koffi, collects all the same and says once, on the first collection, that it cannot trim', () => {
    const away = tempDir();
    try {
      for (const name of ['idle-memory.js', 'malloc-trim.js']) copyFileSync(new URL(`../dist/${name}`, import.meta.url), join(away.dir, name));
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', WITHOUT_KOFFI, away.dir], { encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
      const { collections, trims, lines } = JSON.parse(out) as { collections: number; trims: number; lines: string[] };
      expect(collections).toBe(2);
      expect(trims).toBe(0);
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^deeppage: cannot trim: koffi, an optional dependency, did not load \(Cannot find module 'koffi'\); idle memory goes back through the collector alone/);
      for (const line of lines.slice(1)) expect(line).toMatch(/^deeppage: idle after \d+ MiB of heap growth; a full collection took \d+ ms, resident memory \d+ → \d+ MiB$/);
    } finally {
      away.remove();
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
