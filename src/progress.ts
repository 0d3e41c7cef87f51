/** A progress bar on stderr for long start-up work; silent when stderr is not a terminal. */
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

export function progressBar(label: string, total: number): Progress {
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration}s`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update: (done, newTotal) => {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
