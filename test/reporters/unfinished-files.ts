/**
 * Names, after the summary, every test file that did not pass and the tests in it that did not: when
 * a worker process dies mid-file, vitest reports only "Worker exited unexpectedly", and which file it
 * ran is otherwise lost in the middle of a long log.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class UnfinishedFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of modules) {
      const state = module.state();
      if (state === 'passed' || state === 'skipped') continue;
      lines.push(`  ${module.relativeModuleId}: ${state}`);
      for (const test of module.children.allTests()) {
        const result = test.result().state;
        if (result !== 'passed' && result !== 'skipped') lines.push(`    ${result}: ${test.fullName}`);
      }
    }
    if (lines.length > 0) process.stderr.write(`\nTest files that did not pass:\n${lines.join('\n')}\n`);
  }
}
