/**
 * Storage refusing a write, in Elasticsearch's words; the one place a store error becomes an ES error.
 * Whatever the cause, nothing of the refused write was applied.
 *
 * A full disk answers as ES's flood-stage disk watermark does: ES blocks writes to the indices on a
 * node past 95% disk use with a 429 `cluster_block_exception` (per item in a `_bulk`, which still
 * answers 200), clients back off and retry, and ES lifts the block once space is freed. deeppage keeps
 * no block: each write tries storage, so the first one after space returns succeeds. Any other
 * storage failure is a 500.
 */
import { StorageError } from '../../store/storage-error.ts';
import { EsError } from '../errors.ts';

/** ES's answer to a write into `index` while the node's disk is past the flood stage. */
export function floodStageBlock(index: string): EsError {
  return new EsError(429, 'cluster_block_exception', `index [${index}] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];`);
}

/** The error for a write into `index` that storage refused with `error`. */
export function storageFailure(error: unknown, index: string): EsError {
  if (error instanceof EsError) return error;
  if (error instanceof StorageError && error.full) return floodStageBlock(index);
  const reason = error instanceof Error ? error.message : String(error);
  return new EsError(500, 'exception', `the write could not be made durable, so nothing of it was applied: ${reason}`);
}

/** For a `.catch`: rethrows storage's refusal of a write into `index` as {@link storageFailure}. */
export function refusedWrite(index: string): (error: unknown) => never {
  return (error) => {
    throw storageFailure(error, index);
  };
}

/** Whether a write failed because the disk is full ({@link floodStageBlock}). */
export function isDiskFull(error: unknown): boolean {
  return error instanceof EsError && error.type === 'cluster_block_exception';
}
