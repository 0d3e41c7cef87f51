/**
 * The Node entry (the package's `deeppage-core/node`; Deno and Bun take it too): the portable entry
 * plus the module read from its file with `node:fs`, which is kept out of the portable entry so that
 * a browser bundle never has to resolve it.
 */
import { readFileSync } from 'node:fs';
import { WasmKernels } from './wasm.ts';
import { wasmUrl, type Build } from './wasm-file.ts';

export * from './portable.ts';

export const WASM_URL = wasmUrl('release');
/** The debug build: assertions on, freed blocks poisoned (see assembly/heap.ts). */
export const WASM_DEBUG_URL = wasmUrl('debug');

const modules = new Map<Build, WebAssembly.Module>();

/** The compiled module (release or debug build), compiled once per process. */
export function wasmModule(build: Build = 'release'): WebAssembly.Module {
  let module = modules.get(build);
  if (!module) modules.set(build, (module = new WebAssembly.Module(readFileSync(wasmUrl(build)))));
  return module;
}

let shared: WasmKernels | undefined;

/** Process-wide kernels for tests and benchmarks, instantiated from the release build on first use. */
export function wasmKernels(): WasmKernels {
  shared ??= new WasmKernels(wasmModule());
  return shared;
}
