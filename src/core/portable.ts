/**
 * The entry for every host (the package's `deeppage-core`): the sort order, its plain reference and
 * the wasm binding, with nothing that needs Node. The caller supplies the module (load.ts).
 */
export * from './order.ts';
export { MAX_KEYS, WasmArray, WasmKernels, type Between, type Column, type LaidOutRuns, type ScoredDocs, type ScoredTerm } from './wasm.ts';
export { compileKernels, kernelsFrom, loadKernels, type WasmSource } from './load.ts';
export { wasmUrl, type Build } from './wasm-file.ts';
export * as reference from './reference.ts';
