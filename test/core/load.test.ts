/**
 * Loading the kernels without reading a file: from a compiled module, bytes, a URL or a response
 * (src/core/load.ts), each giving kernels that answer as the reference does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileKernels, kernelsFrom, loadKernels, reference, WASM_URL, wasmModule, WasmKernels, type WasmSource } from '../../src/core/index.ts';

const bytes = readFileSync(WASM_URL);
const wasmResponse = () => new Response(bytes, { headers: { 'content-type': 'application/wasm' } });
const values = Float64Array.of(3, NaN, -0, 7, 0, 7, -Infinity);

function answers(kernels: WasmKernels): void {
  expect([...kernels.topK([{ values, order: 'desc' }], values.length, 4)]).toEqual([...reference.topK([{ values, order: 'desc' }], values.length, 4)]);
}

describe('loading the kernels', () => {
  const sources: [string, () => WasmSource][] = [
    ['a compiled module', () => wasmModule()],
    ['bytes (a Node Buffer)', () => bytes],
    ['an ArrayBuffer', () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)],
    ['a DataView', () => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    ['a response sent as application/wasm (compiled streaming)', wasmResponse],
    ['a response sent as another type (compiled from its bytes)', () => new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } })],
    ['a promise of a response', () => Promise.resolve(wasmResponse())],
    ['a data: URL', () => new URL(`data:application/wasm;base64,${bytes.toString('base64')}`)],
    ['a data: URL as a string', () => `data:application/wasm;base64,${bytes.toString('base64')}`],
  ];

  it.each(sources)('from %s', async (_, source) => {
    answers(await loadKernels(source()));
    answers(kernelsFrom(await compileKernels(source())));
  });

  it('gives a compiled module back as it is, and a new instance (own memory) per load', async () => {
    expect(await compileKernels(wasmModule())).toBe(wasmModule());
    const a = await loadKernels(wasmModule());
    const b = kernelsFrom(wasmModule());
    expect(a.memory).not.toBe(b.memory);
  });

  it('rejects a failed fetch, and a module that is not the kernels', async () => {
    await expect(loadKernels(new Response('not found', { status: 404 }))).rejects.toThrow(/404/);
    const other = new WebAssembly.Module(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0));
    expect(() => kernelsFrom(other)).toThrow(/not the kernels module \(it lacks memory, alloc, free/);
    await expect(loadKernels(Uint8Array.of(1, 2, 3))).rejects.toThrow(WebAssembly.CompileError);
  });
});
