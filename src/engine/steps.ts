/**
 * Long work done a slice at a time. A {@link Steps} is a generator that yields between slices of a
 * few milliseconds and returns its result: sealing a large write buffer into a segment, merging two
 * segments. The same code runs to its end at once ({@link finish}) when a caller needs the result
 * now, or in passes of the event loop ({@link inPasses}) so that requests are answered in between.
 *
 * @example
 * function* sum(values: number[]): Steps<number> {
 *   let total = 0;
 *   for (let i = 0; i < values.length; i++) {
 *     total += values[i];
 *     if (i % SLICE === SLICE - 1) yield;
 *   }
 *   return total;
 * }
 * finish(sum([1, 2, 3])); // 6
 */

export type Steps<T> = Generator<void, T, void>;

/** Units of work (documents, terms) between two yields: well under a millisecond for most loops. */
export const SLICE = 4096;

/** Runs the steps to their end and returns the result. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs steps until `budgetMs` has gone by; the result, or `undefined` while work is left. */
export function advance<T>(steps: Steps<T>, budgetMs: number): { value: T } | undefined {
  const start = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value };
    if (performance.now() - start >= budgetMs) return undefined;
  }
}

/** How long one pass of background work may hold the event loop. */
export const PASS_BUDGET_MS = 5;

/**
 * Runs the steps in passes of the event loop, {@link PASS_BUDGET_MS} at a time, and resolves with
 * the result; with `undefined` if `stopped` says so between passes (the work is then dropped).
 */
export function inPasses<T>(steps: Steps<T>, stopped: () => boolean = () => false): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const pass = () => {
      if (stopped()) return resolve(undefined);
      try {
        const done = advance(steps, PASS_BUDGET_MS);
        if (done) resolve(done.value);
        else setImmediate(pass);
      } catch (error) {
        reject(error);
      }
    };
    setImmediate(pass);
  });
}
