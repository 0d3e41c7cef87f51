/**
 * Before any test file: the wasm kernels and the server `npm start` runs (dist/server.js, with the
 * credentials tool beside it) are built from the sources under test, if they changed since they
 * last were (scripts/build-wasm.mjs, scripts/build-server.mjs; a few milliseconds when nothing
 * did). Nothing is built at install: a fresh clone's first test run builds both. The process tests
 * start that server, not the TypeScript sources through a loader.
 */
import { execFileSync } from 'node:child_process';

export function setup(): void {
  execFileSync(process.execPath, ['scripts/build-wasm.mjs'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'inherit' });
}
