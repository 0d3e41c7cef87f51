// The host for Node, Deno and Bun: run from a folder where the packed deeppage-core is installed,
// beside check.js and vectors.json. Prints the report as one JSON line.
import { readFileSync } from 'node:fs';
import { loadKernels, wasmUrl } from 'deeppage-core';
import { wasmKernels } from 'deeppage-core/node';
import { checkLoaders } from './check.js';

const runtime = globalThis.Deno ? `deno ${Deno.version.deno}` : globalThis.Bun ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const vectors = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8'));
const loaders = {
  'deeppage-core/node: wasmKernels()': () => wasmKernels(),
  'loadKernels(bytes of deeppage-core/deeppage.wasm)': () => loadKernels(readFileSync(new URL(import.meta.resolve('deeppage-core/deeppage.wasm')))),
};
// Node's fetch does not read file: URLs; Deno's and Bun's do.
if (!runtime.startsWith('node')) loaders['loadKernels(wasmUrl())'] = () => loadKernels(wasmUrl());
console.log(JSON.stringify(await checkLoaders(runtime, vectors, loaders)));
