import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Engine, type EngineOptions } from '../../src/engine/engine.ts';
import { RawJson } from '../../src/engine/raw-json.ts';
import { DocStore } from '../../src/store/doc-store.ts';

/** A temporary data directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'deeppage.test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An engine on a fresh store; `close` closes it and deletes its data. */
export function tempEngine(options: EngineOptions = {}): { engine: Engine; dir: string; close: () => Promise<void> } {
  const { dir, remove } = tempDir();
  const engine = Engine.open(DocStore.open(dir), options);
  return {
    engine,
    dir,
    close: async () => {
      await engine.close();
      remove();
    },
  };
}

/** One temporary engine for the tests of a `describe` block: made before them (and handed to `set`), closed after. */
export function withTempEngine(set: (engine: Engine) => void, options: EngineOptions = {}): void {
  let made: ReturnType<typeof tempEngine>;
  beforeAll(() => {
    made = tempEngine(options);
    set(made.engine);
  });
  afterAll(() => made.close());
}

/** A hit's `_source` as values (the engine hands stored sources over as their JSON text). */
export function sourceOf(hit: { _source?: unknown }): unknown {
  return hit._source instanceof RawJson ? hit._source.value : hit._source;
}
