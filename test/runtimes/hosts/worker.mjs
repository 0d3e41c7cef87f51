// The host for workerd: a worker whose fetch handler answers with the report. The config the runner
// writes gives it the packaged module as a wasm module (`deeppage.wasm`, a WebAssembly.Module), and
// the same file as plain bytes (`deeppage.bytes`) only to show that compiling those is refused here.
import { kernelsFrom, loadKernels } from 'deeppage-core';
import { checkLoaders } from './check.js';
import wasm from './deeppage.wasm';
import bytes from './deeppage.bytes';
import vectors from './vectors.json';

export default {
  async fetch() {
    const report = await checkLoaders('workerd', vectors, {
      'kernelsFrom(wasm module binding)': () => kernelsFrom(wasm),
      'loadKernels(wasm module binding)': () => loadKernels(wasm),
    });
    report.compileFromBytes = await loadKernels(bytes).then(
      () => 'allowed',
      (error) => `refused: ${error}`,
    );
    return Response.json(report);
  },
};
