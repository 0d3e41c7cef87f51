/**
 * A corpus loaded into deeppage's engine in process, as a user's bulk load leaves it: documents
 * through `Engine.write` into a real index (LMDB storage in a temporary directory, typed-array
 * columns, segments) in batches of BATCH, each followed by a refresh, as with the default refresh
 * interval (so a shard has many segments, up to the eight it keeps), and the background merges they
 * start are waited for, so that no segment changes under the measurements (a merge landing after the
 * warm state was built would leave a segment without its run). The index has `refresh_interval` -1
 * (only these refreshes) and a result window over every document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type WriteOp } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import { DocStore } from '../../src/store/doc-store.ts';
import type { Corpus } from '../lib/corpus.ts';
import type { SuiteContext } from '../lib/suite.ts';

const BATCH = 10_000;

export interface EngineIndex {
  engine: Engine;
  index: string;
  /** Closes the engine and removes its directory. */
  close(): Promise<void>;
}

/** Loads `corpus` into the index `bench` of a new engine, on `shards` shards; `label` names the progress bar. */
export async function openEngineIndex(corpus: Corpus, shards: number, ctx: SuiteContext, label: string): Promise<EngineIndex> {
  const dir = mkdtempSync(join(tmpdir(), 'deeppage.bench-'));
  const engine = Engine.open(DocStore.open(dir));
  const close = async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const index = 'bench';
    const n = corpus.ids.length;
    await engine.createIndex(index, {
      settings: { number_of_shards: shards, max_result_window: 2 ** 31 - 1, refresh_interval: '-1' },
      mappings: corpus.mappings,
    });
    const bar = ctx.progress(`${label}: indexing ${corpus.name} on ${shards} shard${shards === 1 ? '' : 's'}`, n);
    for (let at = 0; at < n; at += BATCH) {
      const ops: WriteOp[] = [];
      for (let i = at; i < Math.min(at + BATCH, n); i++) ops.push({ action: 'index', index, id: corpus.ids[i], source: corpus.source(i) });
      const failed = (await engine.write(ops)).find((item) => item instanceof EsError);
      if (failed) throw new Error(`${label}: a bulk item failed while loading ${corpus.name}: ${failed!.message}`);
      engine.refresh(index);
      bar.update(Math.min(at + BATCH, n));
    }
    bar.stop();
    await engine.resolveOne(index).scheduler.merged();
    return { engine, index, close };
  } catch (error) {
    await close();
    throw error;
  }
}
