export * from './order.ts';
export { MAX_KEYS, WasmArray, WasmKernels, wasmKernels, wasmModule, WASM_URL, WASM_DEBUG_URL, type Column } from './wasm.ts';
export * as reference from './reference.ts';
