/**
 * Before any test file: the server `npm start` runs (dist/server.js) is compiled from the sources
 * under test, if they changed since it was last (scripts/build-server.mjs; a few milliseconds when
 * nothing did). The process tests start that server, not the TypeScript sources through a loader.
 */
import { execFileSync } from 'node:child_process';

export function setup(): void {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'inherit' });
}
