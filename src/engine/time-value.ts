/**
 * Elasticsearch's time values (`TimeValue.parseTimeValue`): an integer and a unit (`nanos`, `micros`,
 * `ms`, `s`, `m`, `h`, `d`), or `-1` and `0` alone. Settings, `keep_alive`, `scroll` and reindex's
 * timeouts are all read here, so the error exists once.
 *
 * @example
 * timeValueMs('keep_alive', '1m') // 60000
 * formatTimeValue(86_400_000)     // '1d'
 */
import { badRequest } from './errors.ts';

const UNITS: [suffix: string, ms: number][] = [
  ['nanos', 1e-6],
  ['micros', 1e-3],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];

/** The value in milliseconds; -1 stays -1 (ES's "no value", e.g. a refresh interval that never fires). */
export function timeValueMs(name: string, value: string): number {
  const text = value.trim().toLowerCase();
  if (text === '-1') return -1;
  if (text === '0') return 0;
  const match = /^(-?\d+)\s*([a-z]+)$/.exec(text);
  const unit = match && UNITS.find(([suffix]) => suffix === match[2]);
  if (!match || !unit) throw parseError(`failed to parse setting [${name}] with value [${value}] as a time value: unit is missing or unrecognized`);
  const n = Number(match[1]);
  if (n < 0) throw parseError(`failed to parse setting [${name}] with value [${value}] as a time value: negative durations are not supported`);
  return n * unit[1];
}

/** A duration as ES prints it in messages (`TimeValue.toString`): the largest unit that keeps a whole or one-decimal number. */
export function formatTimeValue(ms: number): string {
  if (ms < 0) return '-1';
  for (let i = UNITS.length - 1; i >= 2; i--) {
    const [suffix, size] = UNITS[i];
    if (ms >= size) {
      const n = ms / size;
      return `${Number.isInteger(n) ? n : n.toFixed(1)}${suffix}`;
    }
  }
  return `${ms}ms`;
}

const parseError = (reason: string) => badRequest('parse_exception', reason);
