// The host for browsers: loaded as a plain module script by a page whose import map points
// `deeppage-core` at the package's entry file (no bundler). The report goes to window.report.
import { loadKernels, wasmUrl } from 'deeppage-core';
import { checkLoaders } from './check.js';

const vectors = await (await fetch(new URL('./vectors.json', import.meta.url))).json();
const served = (await fetch(wasmUrl(), { method: 'HEAD' })).headers.get('content-type');
const report = await checkLoaders(navigator.userAgent, vectors, {
  'loadKernels(wasmUrl())': () => loadKernels(wasmUrl()),
  'loadKernels(fetch(wasmUrl()))': () => loadKernels(fetch(wasmUrl())),
  'loadKernels(bytes)': async () => loadKernels(await (await fetch(wasmUrl())).arrayBuffer()),
});
window.report = { ...report, wasmType: served };
