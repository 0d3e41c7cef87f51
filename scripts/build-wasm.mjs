// Builds the wasm kernels (both targets of asconfig.json) unless the build is newer than everything
// it is made from, so `npm start` does not spend seconds recompiling an unchanged core on every restart.
// `--force` always builds.
import { execFileSync } from 'node:child_process';
import { files, stale } from './stale.mjs';

const outputs = ['build/deeppage.wasm', 'build/deeppage.debug.wasm'];
const inputs = ['asconfig.json', 'package-lock.json', ...files('assembly')];

if (stale(inputs, outputs)) {
  for (const target of ['release', 'debug']) execFileSync(process.execPath, ['node_modules/assemblyscript/bin/asc.js', 'assembly/index.ts', '--target', target], { stdio: 'inherit' });
}
