/** The contract between the runner (bench/run.ts) and a suite. */
import { progressBar, type Progress } from '../../src/progress.ts';
import type { SuiteOutput } from './results.ts';

/**
 * `full` is the committed run, `quick` a short one (about two minutes for all suites together),
 * `smoke` the test suite's: every code path once on tiny inputs.
 */
export type Mode = 'full' | 'quick' | 'smoke';

export interface SuiteContext {
  mode: Mode;
  /** A line of progress on stderr. */
  log(line: string): void;
  /** A progress bar on stderr (silent when stderr is not a terminal). */
  progress(label: string, total: number): Progress;
  /** `--url`, `--index` and `--sort`: an Elasticsearch-compatible endpoint to sweep beside deeppage. */
  remote?: { url: string; index: string; sort: string };
}

export interface Suite {
  name: string;
  /** One line for `npm run bench -- --help`. */
  summary: string;
  run(ctx: SuiteContext): Promise<SuiteOutput>;
}

export function consoleContext(mode: Mode, remote?: SuiteContext['remote']): SuiteContext {
  return {
    mode,
    log: (line) => process.stderr.write(`${line}\n`),
    progress: (label, total) => progressBar(label, total),
    remote,
  };
}

/** Refuses to report: a strategy that answers wrongly is not timed. */
export class WrongAnswer extends Error {
  constructor(what: string) {
    super(`${what}; refusing to report`);
    this.name = 'WrongAnswer';
  }
}
