// Types for check.js, which stays plain JavaScript so every runtime loads it as it is.
import type { WasmKernels } from '../../src/core/wasm.ts';

export interface Checked {
  checked: number;
  failures: string[];
}

export function decodeValues(list: (number | string)[]): Float64Array;
export function decodeValue(value: number | string): number;
export function checkVectors(kernels: Pick<WasmKernels, 'topK' | 'mergeRuns' | 'rankSelect' | 'f64' | 'inUse'>, vectors: unknown): Checked;
export function countVectors(vectors: unknown): number;

export interface Report {
  runtime: string;
  loaders: ({ loader: string } & Checked)[];
}

export function checkLoaders(runtime: string, vectors: unknown, loaders: Record<string, () => unknown>): Promise<Report>;
