/**
 * The end of a reliability run: its summary written as JSON (with the machine it ran on),
 * its figure printed, and the exit code, 0 only when nothing acknowledged was lost and nothing else
 * went wrong.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine } from '../../bench/lib/results.ts';

export interface CheckSummary {
  check: string;
  /** Acknowledged writes the node no longer showed (checks that write). */
  lost?: number;
  problems: string[];
}

export function finish(summary: CheckSummary, out: string, startedMs: number, log: (line: string) => void): number {
  const seconds = Math.round((performance.now() - startedMs) / 1000);
  const file = join(out, `reliability-${summary.check}.json`);
  mkdirSync(out, { recursive: true });
  writeFileSync(file, JSON.stringify({ ...summary, seconds, date: new Date().toISOString(), node: process.version, machine: machine() }, null, 1) + '\n');
  if (summary.lost !== undefined) log(`acknowledged writes lost: ${summary.lost}`);
  log(`other problems: ${summary.problems.length}${summary.problems.length ? '' : ' (none)'}; ${seconds} s; ${file}`);
  for (const problem of summary.problems.slice(0, 20)) log(`  ${problem}`);
  return (summary.lost ?? 0) === 0 && summary.problems.length === 0 ? 0 : 1;
}
