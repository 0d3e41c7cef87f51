/**
 * The layout is the architecture (docs/architecture.md): data flows one way, http → engine → core,
 * and storage serves the engine without knowing it. These tests hold the import graph of src/ to
 * that, type-only imports included (a type still ties one file's meaning to another's):
 *
 * - no circle: no file imports one that imports it back, directly or through others;
 * - no layer reaches up: nothing under src/engine, src/store or src/core imports from src/http,
 *   src/core imports nothing from src/engine or src/store, src/store nothing from src/engine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folders none of whose files may import from another folder. */
const UPWARD: readonly { from: string; to: string }[] = [
  { from: 'src/engine/', to: 'src/http/' },
  { from: 'src/store/', to: 'src/http/' },
  { from: 'src/core/', to: 'src/http/' },
  { from: 'src/core/', to: 'src/engine/' },
  { from: 'src/core/', to: 'src/store/' },
  { from: 'src/store/', to: 'src/engine/' },
];

/** The relative modules a source imports or re-exports from, as written: type-only imports count, comments do not. */
function importsOf(source: string): string[] {
  return ts
    .preProcessFile(source, true, false)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Every .ts file under `dir` (paths from the repository root, with `/`), with the files it imports. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = posix.join(dir, entry.split(sep).join('/'));
    const imports = importsOf(readFileSync(join(ROOT, file), 'utf8'));
    graph.set(file, imports.map((name) => posix.join(posix.dirname(file), name)));
  }
  return graph;
}

/**
 * The circles of a graph: its strongly connected components of two files or more, or of one that
 * imports itself, each sorted (Tarjan's algorithm: one walk, each component found as the walk
 * leaves its first file).
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const order = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, order.get(to)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    for (let top = ''; top !== file; ) {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    }
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph('src');

  it('has no circle: no file imports one that imports it back, directly or through others', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it.each(UPWARD)('has nothing under $from import from $to', ({ from, to }) => {
    const reaching = [...graph].flatMap(([file, imports]) => (file.startsWith(from) ? imports.filter((imported) => imported.startsWith(to)).map((imported) => `${file} → ${imported}`) : []));
    expect(reaching).toEqual([]);
  });
});

describe('the graph these tests read', () => {
  it('counts type-only imports and re-exports, and not imports written in comments', () => {
    const source = ["import type { A } from './a.ts';", "import { b, type B } from '../b.ts';", '// import { c } from "./c.ts";', '/** @example import { d } from "./d.ts" */', "export * from './e.ts';", "import ts from 'typescript';"].join('\n');
    expect(importsOf(source)).toEqual(['./a.ts', '../b.ts', './e.ts']);
  });

  it('finds every circle, long or short, and nothing else', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['e']],
      ['e', []],
      ['f', ['f']],
      ['g', ['a', 'e']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['f']]);
  });
});
