import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WASM_URL } from '../../src/core/index.ts';

describe('the release module', () => {
  const module = new WebAssembly.Module(readFileSync(WASM_URL));

  it('has no imports, so any wasm host can instantiate it as is', () => {
    expect(WebAssembly.Module.imports(module)).toEqual([]);
  });

  it('exports exactly the documented ABI', () => {
    const names = WebAssembly.Module.exports(module).map((e) => `${e.kind}:${e.name}`).sort();
    expect(names).toEqual(
      ['alloc', 'allocatedBlocks', 'allocatedBytes', 'countBetween', 'free', 'markedEntries', 'mergeRuns', 'rankSelect', 'scoreTerms', 'sumKeys', 'topK', 'topKAfter']
        .map((n) => `function:${n}`)
        .concat('memory:memory')
        .sort(),
    );
  });
});
