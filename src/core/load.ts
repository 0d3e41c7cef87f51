/**
 * Getting the kernels in any host, from wherever the module is: compiled already (workerd hands it
 * over as a binding; a host that runs several instances compiles once), as bytes, or at a URL.
 * Nothing here reads a file: in Node, use the `deeppage-core/node` entry (node.ts) or pass the bytes.
 *
 * @example
 * // A browser module script; the server should send the file as application/wasm.
 * import { loadKernels, wasmUrl } from 'deeppage-core';
 * const kernels = await loadKernels(wasmUrl());
 * kernels.topK([{ values: Float64Array.of(3, NaN, 7), order: 'desc' }], 3, 2); // Uint32Array [2, 0]
 */
import { WasmKernels } from './wasm.ts';

/** Where the module can come from: compiled, its bytes, a URL to fetch, or a fetch's response. */
export type WasmSource = WebAssembly.Module | ArrayBuffer | ArrayBufferView | URL | string | Response | PromiseLike<Response>;

/** The compiled module from any source (a module is returned as it is). */
export async function compileKernels(source: WasmSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer) return WebAssembly.compile(source);
  // V8 takes typed arrays but not a DataView, so any view is passed as bytes.
  if (ArrayBuffer.isView(source)) return WebAssembly.compile(new Uint8Array(source.buffer, source.byteOffset, source.byteLength) as Uint8Array<ArrayBuffer>);
  const response = await (typeof source === 'string' || source instanceof URL ? fetch(source) : source);
  if (!response.ok) throw new Error(`deeppage: fetching the kernels module failed: ${response.status} ${response.statusText} ${response.url}`);
  // Streaming compiles while the bytes arrive, but is refused for any type but application/wasm; a
  // server that sends another still works, compiled from the whole download.
  const type = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  if (type === 'application/wasm' && typeof WebAssembly.compileStreaming === 'function') return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Kernels on a new instance, from any source; compiled and instantiated asynchronously, as browsers prefer. */
export async function loadKernels(source: WasmSource): Promise<WasmKernels> {
  return new WasmKernels(await WebAssembly.instantiate(await compileKernels(source), {}));
}

/** Kernels on a new instance of a compiled module, at once: workerd's wasm binding, or a module compiled earlier. */
export function kernelsFrom(module: WebAssembly.Module): WasmKernels {
  return new WasmKernels(module);
}
