// The rule both of `npm start`'s builds follow (build-wasm.mjs, build-server.mjs): build when any
// input is newer than the oldest output, or an output is missing, or `--force` was given.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, at any depth. */
export function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether the outputs must be built again from the inputs (file paths, all of them). */
export function stale(inputs, outputs) {
  const built = Math.min(...outputs.map((path) => mtime(path) ?? -Infinity));
  return process.argv.includes('--force') || inputs.some((path) => (mtime(path) ?? Infinity) > built);
}
