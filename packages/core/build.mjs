// Builds the deeppage-core package in this folder from the repository: the wasm kernels (built by
// scripts/build-wasm.mjs when stale), the binding compiled from src/core by the repository's tsc
// into dist/core/ (.js and .d.ts), and the modules copied into build/. The binding finds the module
// at ../../build/ from itself (src/core/wasm-file.ts), so dist/core/ and build/ keep that relation.
// The version is the repository's. Run from anywhere: `npm run build:core` at the top.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const run = (script, ...args) => execFileSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'inherit' });

run('scripts/build-wasm.mjs');

rmSync(join(here, 'dist'), { recursive: true, force: true });
rmSync(join(here, 'build'), { recursive: true, force: true });
run('node_modules/typescript/bin/tsc', '-p', join(here, 'tsconfig.json'));

// tsc rewrites the sources' './x.ts' imports to './x.js' in the .js it emits but not in the .d.ts;
// TypeScript 5 resolves either, older versions only '.js'.
const dist = join(here, 'dist/core');
for (const name of readdirSync(dist).filter((name) => name.endsWith('.d.ts'))) {
  const path = join(dist, name);
  writeFileSync(path, readFileSync(path, 'utf8').replace(/((?:from|import\()\s*)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2'));
}

mkdirSync(join(here, 'build'));
for (const name of ['deeppage.wasm', 'deeppage.debug.wasm']) copyFileSync(join(root, 'build', name), join(here, 'build', name));

const pkgPath = join(here, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (pkg.version !== version) {
  writeFileSync(pkgPath, `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  console.log(`packages/core/package.json: version ${pkg.version} -> ${version} (the repository's)`);
}
console.log(`deeppage-core ${version} built in packages/core (dist/core, build)`);
