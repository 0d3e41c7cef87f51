/**
 * Elasticsearch's `minimum_should_match` (Queries.calculateMinShouldMatch): how many of `count`
 * optional clauses must match, from `"3"`, `"-2"`, `"75%"`, `"-25%"`, `"3<90%"` or several such
 * conditions (`"2<-25% 9<-3"`, the last whose bound `count` exceeds applies). Never below 0; not
 * capped at `count` (more than `count` matches nothing).
 */
import { illegalArgument } from '../errors.ts';

export function minimumShouldMatch(spec: string, count: number): number {
  const text = spec.trim();
  if (text.includes('<')) {
    let result = count;
    for (const condition of text.split(/\s+/)) {
      const at = condition.indexOf('<');
      const bound = Number(condition.slice(0, at));
      if (at <= 0 || !Number.isInteger(bound)) throw invalid(spec);
      if (count > bound) result = single(condition.slice(at + 1), count, spec);
    }
    return Math.max(0, result);
  }
  return Math.max(0, single(text, count, spec));
}

function single(text: string, count: number, spec: string): number {
  if (text.endsWith('%')) {
    const percent = Number(text.slice(0, -1));
    if (!Number.isInteger(percent)) throw invalid(spec);
    // Java: (int) (count * percent * 0.01f), truncated toward zero.
    const part = Math.trunc(Math.fround(Math.fround(count * percent) * Math.fround(0.01)));
    return percent < 0 ? count + part : part;
  }
  const n = Number(text);
  if (text === '' || !Number.isInteger(n)) throw invalid(spec);
  return n < 0 ? count + n : n;
}

const invalid = (spec: string) => illegalArgument(`Unable to parse minimum_should_match [${spec}]`);
