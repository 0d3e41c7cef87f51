/**
 * The deeppage-core package as `npm pack` makes it (packages/core, built by its build.mjs): what it
 * holds, that it brings no dependency, and that Node imports it from node_modules and passes the
 * conformance vectors. test/runtimes does the same in every other runtime (npm run test:runtimes).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countVectors, type Report } from '../runtimes/check.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runtimes = join(root, 'test/runtimes');

interface Packed {
  filename: string;
  files: { path: string }[];
}

describe('the packed deeppage-core', () => {
  let dir: string;
  let project: string;
  let packed: Packed;
  const installed = (path: string) => join(project, 'node_modules/deeppage-core', path);
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  beforeAll(() => {
    execFileSync(process.execPath, [join(root, 'packages/core/build.mjs')], { cwd: root, stdio: 'pipe' });
    dir = mkdtempSync(join(tmpdir(), 'deeppage-core-pack-'));
    [packed] = JSON.parse(npm(['pack', join(root, 'packages/core'), '--pack-destination', dir, '--json'], root)) as Packed[];
    project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module', dependencies: { 'deeppage-core': `file:../${packed.filename}` } }));
    npm(['install', '--ignore-scripts', '--no-audit', '--no-fund'], project);
    for (const name of ['check.js', 'vectors.json', 'hosts/cli.mjs']) copyFileSync(join(runtimes, name), join(project, name.replace('hosts/', '')));
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the wasm and the compiled binding with its types, and no sources', () => {
    const paths = packed.files.map((file) => file.path);
    for (const path of ['build/deeppage.wasm', 'build/deeppage.debug.wasm', 'dist/core/portable.js', 'dist/core/portable.d.ts', 'dist/core/node.js', 'dist/core/node.d.ts', 'package.json', 'README.md']) {
      expect(paths).toContain(path);
    }
    expect(paths.filter((path) => !/^(build\/[\w.]+\.wasm|dist\/core\/[\w-]+\.(js|d\.ts)|package\.json|README\.md)$/.test(path))).toEqual([]);
    expect(readFileSync(installed('build/deeppage.wasm')).equals(readFileSync(join(root, 'build/deeppage.wasm')))).toBe(true);
  });

  it('declares its entries, carries the repository version, and installs nothing else', () => {
    const pkg = JSON.parse(readFileSync(installed('package.json'), 'utf8'));
    const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'deeppage-core', version: rootPkg.version, type: 'module', sideEffects: false, types: './dist/core/portable.d.ts' });
    expect(Object.keys(pkg.exports)).toEqual(['.', './node', './deeppage.wasm', './deeppage.debug.wasm', './package.json']);
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    expect(pkg.optionalDependencies ?? {}).toEqual({});
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['deeppage-core']);
  });

  it('keeps node: modules out of everything but the node entry', () => {
    const dist = installed('dist/core');
    for (const name of readdirSync(dist).filter((name) => name.endsWith('.js') && name !== 'node.js')) {
      const text = readFileSync(join(dist, name), 'utf8');
      expect(text, name).not.toMatch(/(from|import\()\s*['"](node:|\.\/node\.js)/);
    }
  });

  it('imports from node_modules in Node and passes the vectors through both entries', () => {
    const report = JSON.parse(execFileSync(process.execPath, ['cli.mjs'], { cwd: project, encoding: 'utf8' }).trim().split('\n').pop()!) as Report;
    const vectors = countVectors(JSON.parse(readFileSync(join(runtimes, 'vectors.json'), 'utf8')));
    expect(report.runtime).toBe(`node ${process.versions.node}`);
    expect(report.loaders.map(({ loader, checked, failures }) => ({ loader, checked, failures }))).toEqual([
      { loader: 'deeppage-core/node: wasmKernels()', checked: vectors, failures: [] },
      { loader: 'loadKernels(bytes of deeppage-core/deeppage.wasm)', checked: vectors, failures: [] },
    ]);
  });

  it('type-checks in a browser project (DOM types, no Node types) and in a Node one', () => {
    writeFileSync(
      join(project, 'browser.ts'),
      [
        "import { loadKernels, reference, wasmUrl, type SortKey, type WasmKernels } from 'deeppage-core';",
        'const kernels: WasmKernels = await loadKernels(wasmUrl());',
        "const keys: SortKey[] = [{ values: Float64Array.of(2, NaN, 1), order: 'desc', missing: '_first' }];",
        'const top: Uint32Array = kernels.topK(keys, 3, 2);',
        'console.log(top, reference.topK(keys, 3, 2));',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'server.ts'),
      ["import { wasmKernels, wasmModule, WASM_URL } from 'deeppage-core/node';", "const page = wasmKernels().mergeRuns({ order: [{}], runs: [] }, 0, 10);", 'console.log(page.run, wasmModule(), WASM_URL.href);'].join('\n'),
    );
    const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noEmit: true };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['browser.ts', 'server.ts'] }));
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
  }, 60_000);
});
