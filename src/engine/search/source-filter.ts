/**
 * `_source` filtering: keep the paths matching any include (all when there are none), then drop
 * those matching an exclude. Patterns are dotted paths with `*` wildcards, as in Elasticsearch;
 * a pattern naming an object keeps or drops the whole object.
 */
import type { SourceFilter } from './request.ts';

export function filterSource(source: Record<string, unknown>, filter: Exclude<SourceFilter, false>): Record<string, unknown> {
  if (filter.includes.length === 0 && filter.excludes.length === 0) return source;
  const includes = filter.includes.map(compile);
  const excludes = filter.excludes.map(compile);
  return pickObject(source, '', includes, excludes) ?? {};
}

interface Pattern {
  /** Matches the path itself or anything under it. */
  whole: RegExp;
  /** Matches a path that could still lead to a match (an ancestor). */
  prefix: (path: string) => boolean;
}

function compile(pattern: string): Pattern {
  const body = pattern.split('*').map(escape).join('.*');
  return {
    whole: new RegExp(`^${body}(\\..*)?$`),
    prefix: (path) => pattern.includes('*') || pattern.startsWith(`${path}.`),
  };
}

function pickObject(object: Record<string, unknown>, prefix: string, includes: Pattern[], excludes: Pattern[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(object)) {
    const path = prefix + key;
    if (excludes.some((p) => p.whole.test(path))) continue;
    const included = includes.length === 0 || includes.some((p) => p.whole.test(path));
    if (included && (excludes.length === 0 || !isPlainObject(value))) {
      out[key] = value;
      any = true;
      continue;
    }
    if (!isPlainObject(value)) continue;
    if (!included && !includes.some((p) => p.prefix(path))) continue;
    const child = pickObject(value, `${path}.`, included ? [] : includes, excludes);
    if (child !== undefined) {
      out[key] = child;
      any = true;
    }
  }
  return any || prefix === '' ? out : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
