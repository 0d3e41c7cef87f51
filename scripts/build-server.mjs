// Compiles the server (src/, TypeScript) into dist/ as plain JavaScript, unless dist/ is newer than
// everything it is made from, so that `npm start` runs dist/server.js (and `npm run credentials`
// dist/credentials-cli.js, compiled with it) with no TypeScript loader in the process: tsx's loader
// runs on a thread of its own for the process's whole life, which held about 34 MiB of anonymous
// memory and took half of an empty start (1.2 s against 0.6 s).
// Files under src/ that are not TypeScript (the UI's) are copied beside the compiled ones, so that
// dist/ keeps src/'s layout and paths relative to a module (../../build/, ../../package.json) hold.
// A build that does not type-check fails and leaves no stamp: the next start tries again.
// `--force` always builds.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { files, stale } from './stale.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const stamp = join(out, '.built');
const sources = files(join(root, 'src'));
const inputs = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((name) => join(root, name)).concat(sources);

if (stale(inputs, [stamp])) {
  console.error('deeppage: compiling the server into dist/ (once, and again after the sources change)');
  rmSync(out, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) {
    console.error('deeppage: the server did not compile (see above); dist/ is incomplete');
    process.exit(1);
  }
  for (const path of sources.filter((path) => !path.endsWith('.ts'))) {
    const to = join(out, relative(join(root, 'src'), path));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(path, to);
  }
  writeFileSync(stamp, '');
}
