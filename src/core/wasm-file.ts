/**
 * Where the compiled module lies: `../../build/` from this file, which is `build/` at the top of the
 * repository (beside `src/core/`) and at the top of the package (beside `dist/core/`, where
 * packages/core/build.mjs puts the compiled binding). Each URL is a `new URL('<literal>',
 * import.meta.url)`, the form bundlers look for to ship a file as an asset.
 */

/** The release build, or the debug build (assertions on, freed blocks poisoned: assembly/heap.ts). */
export type Build = 'release' | 'debug';

/** The URL of the module's file; computed on call, so a host without file URLs can still import this. */
export function wasmUrl(build: Build = 'release'): URL {
  return build === 'debug' ? new URL('../../build/deeppage.debug.wasm', import.meta.url) : new URL('../../build/deeppage.wasm', import.meta.url);
}
