import { EsError } from '../../../src/engine/errors.ts';

/** The EsError `run` throws; fails the test if it returns or throws anything else. */
export function failure(run: () => unknown): EsError {
  try {
    run();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('expected an EsError, but nothing was thrown');
}

/** Status, type and reason of what `run` throws, for one-line comparisons. */
export function refusal(run: () => unknown): [number, string, string] {
  const e = failure(run);
  return [e.status, e.type, e.reason];
}
