/**
 * How `npm start` runs the server, read from package.json's `start` script: the one place that says
 * it. Whatever starts the server as a user would (the process tests, the bench's children) takes the
 * node flags and the entry point from here.
 *
 * @example
 * startCommand(); // { flags: ['--max-semi-space-size=64'], entry: 'dist/server.js' }
 */
import { readFileSync } from 'node:fs';

export function startCommand(): { flags: string[]; entry: string } {
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const [program, ...words] = scripts.start.trim().split(/\s+/);
  const entry = words.pop();
  if (program !== 'node' || entry === undefined || !words.every((word) => word.startsWith('--'))) {
    throw new Error(`package.json's start script is not \`node [--flags] entry\`: ${scripts.start}`);
  }
  return { flags: words, entry };
}

/** The command as one line, for reports. */
export function startCommandLine(): string {
  const { flags, entry } = startCommand();
  return ['node', ...flags, entry].join(' ');
}
