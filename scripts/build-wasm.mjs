// Builds the wasm kernels (both targets of asconfig.json) unless the build is newer than everything
// it is made from, so `npm start` does not spend seconds recompiling an unchanged core on every restart.
// `--force` always builds.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const outputs = ['build/deeppage.wasm', 'build/deeppage.debug.wasm'];
const inputs = ['asconfig.json', 'package-lock.json', ...files('assembly')];

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

const built = Math.min(...outputs.map((path) => mtime(path) ?? -Infinity));
const stale = process.argv.includes('--force') || inputs.some((path) => (mtime(path) ?? Infinity) > built);
if (stale) {
  for (const target of ['release', 'debug']) execFileSync(process.execPath, ['node_modules/assemblyscript/bin/asc.js', 'assembly/index.ts', '--target', target], { stdio: 'inherit' });
}
