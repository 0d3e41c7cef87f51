/**
 * glibc's malloc_trim through koffi (src/malloc-trim.ts): where the process runs on glibc it is
 * found, and it gives back the pages of array buffers freed among live ones, which glibc keeps
 * resident on its own. Measured in a child process, so that the memory is that process's alone.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mallocTrim } from '../src/malloc-trim.ts';

/**
 * The child: 4,000 buffers of 32 KiB (under glibc's mmap threshold, so from its heap), every other
 * one kept so that the freed ones lie between live ones; after a full collection, RssAnon before
 * and after the trim, in KiB.
 */
const CHILD = `
const { readFileSync } = require('node:fs');
const { mallocTrim } = require(process.argv[1]);
const anon = () => Number(/^RssAnon:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
let all = Array.from({ length: 4000 }, () => Buffer.alloc(32 * 1024, 1));
const kept = all.filter((_, i) => i % 2 === 0);
all = undefined;
globalThis.gc();
const before = anon();
const trimmed = mallocTrim()();
console.log(JSON.stringify({ before, after: anon(), trimmed, kept: kept.length }));
`;

const onGlibc = process.platform === 'linux' && Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

describe('mallocTrim', () => {
  it.runIf(onGlibc)('is found on glibc, and gives back the pages of buffers freed between live ones', () => {
    expect(mallocTrim()).toBeTypeOf('function');
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=commonjs', '-e', CHILD, new URL('../src/malloc-trim.ts', import.meta.url).pathname], { encoding: 'utf8' });
    const { before, after, trimmed, kept } = JSON.parse(out) as { before: number; after: number; trimmed: boolean; kept: number };
    expect(kept).toBe(2000);
    expect(trimmed).toBe(true);
    // 2,000 freed buffers of 32 KiB are 62.5 MiB: most of it goes back (a page at each chunk's edges stays).
    expect(before - after).toBeGreaterThan(40 * 1024);
  });

  it.runIf(process.platform !== 'linux')('is absent where there is no glibc', () => {
    expect(mallocTrim()).toBeUndefined();
  });
});
