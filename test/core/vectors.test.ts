/**
 * The conformance vectors every runtime checks (test/runtimes): the committed file is what the
 * generator makes from the reference today, the kernels built here pass it, and the checker sees a
 * wrong answer and keeps NaN bit patterns.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { wasmKernels, WasmKernels, wasmModule } from '../../src/core/index.ts';
import { checkVectors, countVectors, decodeValues } from '../runtimes/check.js';
import { generateVectors, VECTORS_URL, vectorsText } from '../runtimes/vectors.ts';

const text = readFileSync(VECTORS_URL, 'utf8');
const vectors = JSON.parse(text);

describe('the conformance vectors', () => {
  it('are what test/runtimes/vectors.ts makes (regenerate with node --import tsx test/runtimes/vectors.ts)', () => {
    expect(vectorsText(generateVectors()) === text).toBe(true);
  });

  it('cover top-k, merges and rank selections with every key mode', () => {
    expect(countVectors(vectors)).toBeGreaterThan(800);
    const orders = [...vectors.topK.flatMap((v: { keys: object[] }) => v.keys), ...vectors.runs.flatMap((s: { order: object[] }) => s.order)];
    for (const missing of ['_last', '_first', 'NaN', '-0', 0, 'Infinity', '-Infinity']) expect(orders.some((key) => key.missing === missing), `missing ${missing}`).toBe(true);
    for (const order of ['asc', 'desc']) expect(orders.some((key) => key.order === order)).toBe(true);
    expect(text).toMatch(/"NaN:fff8000000000000"/);
    expect(Math.max(...vectors.topK.map((v: { n: number }) => v.n))).toBeGreaterThanOrEqual(8192);
    expect(Math.max(...vectors.runs.map((s: { runs: unknown[] }) => s.runs.length))).toBeGreaterThanOrEqual(64);
  });

  it.each([
    ['release', () => wasmKernels()],
    ['debug', () => new WasmKernels(wasmModule('debug'))],
  ])('pass on the %s build', (_, kernels) => {
    expect(checkVectors(kernels(), vectors)).toEqual({ checked: countVectors(vectors), failures: [] });
  });

  it('the checker reports a wrong answer', () => {
    const wrong = structuredClone(vectors);
    wrong.runs[0].pages[0].pos.push(0);
    wrong.topK[3].want.reverse();
    const { failures } = checkVectors(wasmKernels(), wrong);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^topK .*: at 0: got/);
    expect(failures[1]).toMatch(/^mergeRuns .* positions: at \d+: got undefined, want 0/);
  });

  it('decodes every special value, NaN bits included', () => {
    const values = decodeValues(['NaN', 'NaN:7ff0000000000001', '-0', 'Infinity', '-Infinity', 1.5]);
    const bits = new BigUint64Array(values.buffer);
    expect(bits[1]).toBe(0x7ff0000000000001n);
    expect(Number.isNaN(values[0]) && Number.isNaN(values[1])).toBe(true);
    expect(Object.is(values[2], -0)).toBe(true);
    expect([...values.slice(3)]).toEqual([Infinity, -Infinity, 1.5]);
  });
});
