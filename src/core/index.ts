export * from './order.ts';
export { MAX_KEYS, WasmColumn, WasmKernels, wasmKernels, WASM_URL, type Column } from './wasm.ts';
export * as reference from './reference.ts';
