/** Runs as the engine hands them to the kernels: every column copied into the module's memory. */
import type { Column, Runs, WasmArray, WasmKernels } from '../../src/core/index.ts';

export interface PlacedRuns {
  runs: Runs<Column>;
  /** Every array placed, in order of placing (a run's keys' values, then their maps). */
  placed: WasmArray[];
  free(): void;
}

export function placeRuns(kernels: WasmKernels, runs: Runs): PlacedRuns {
  const placed: WasmArray[] = [];
  const place = (source: Float64Array) => {
    const array = kernels.f64(source.length);
    array.view.set(source);
    placed.push(array);
    return array;
  };
  const inWasm = { order: runs.order, runs: runs.runs.map((run) => ({ length: run.length, keys: run.keys.map((key) => ({ ...key, values: place(key.values), map: key.map && place(key.map) })) })) };
  return { runs: inWasm, placed, free: () => placed.forEach((array) => array.free()) };
}
