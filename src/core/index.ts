export * from './order.ts';
export { WasmColumn, WasmKernels, wasmKernels, WASM_URL, type Column } from './wasm.ts';
export * as reference from './reference.ts';
