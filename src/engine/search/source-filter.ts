/**
 * `_source` filtering: keep the paths matching any include (all when there are none), then drop
 * those matching an exclude. Patterns are dotted paths with `*` wildcards, as in Elasticsearch; a
 * pattern naming an object keeps or drops all of it, and arrays are looked through (`a.b` applies to
 * every object in an array `a`).
 */
import { globPattern, type Glob } from '../patterns.ts';
import { RawJson } from '../raw-json.ts';
import type { SourceFilter } from './request.ts';

/** A stored `_source` (its JSON text or bytes) as a hit carries it: as stored, unless a filter keeps only parts. */
export function sourceOf(raw: string | Uint8Array, filter: Exclude<SourceFilter, false>): RawJson | Record<string, unknown> {
  const json = new RawJson(raw);
  if (filter.includes.length === 0 && filter.excludes.length === 0) return json;
  return filterSource(json.value as Record<string, unknown>, filter);
}

export function filterSource(source: Record<string, unknown>, filter: Exclude<SourceFilter, false>): Record<string, unknown> {
  if (filter.includes.length === 0 && filter.excludes.length === 0) return source;
  const rules: Rules = { includes: filter.includes.map(compile), excludes: filter.excludes.map(compile) };
  return (filterValue(source, '', rules) as Record<string, unknown> | undefined) ?? {};
}

interface Pattern {
  /** Matches the path itself or anything under it. */
  whole: Glob;
  /** Whether something under `path` could still match. */
  below: (path: string) => boolean;
}

interface Rules {
  includes: Pattern[];
  excludes: Pattern[];
}

/** Whether the glob matches an object above `path` (`a` or `a.b` for `a.b.c`). */
function objectAbove(path: string, glob: Glob): boolean {
  for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) if (glob.test(path.slice(0, dot))) return true;
  return false;
}

function compile(pattern: string): Pattern {
  const glob = globPattern(pattern);
  return {
    whole: { test: (path) => glob.test(path) || objectAbove(path, glob) },
    below: (path) => pattern.includes('*') || pattern.startsWith(`${path}.`),
  };
}

/** The value as filtered at `path` ('' for the root), or undefined when nothing of it is kept. */
function filterValue(value: unknown, path: string, rules: Rules): unknown {
  if (path !== '' && rules.excludes.some((p) => p.whole.test(path))) return undefined;
  const included = rules.includes.length === 0 || (path !== '' && rules.includes.some((p) => p.whole.test(path)));
  if (Array.isArray(value)) {
    const kept = value.map((item) => filterValue(item, path, rules)).filter((item) => item !== undefined);
    return kept.length > 0 || included ? kept : undefined;
  }
  if (typeof value !== 'object' || value === null) return included ? value : undefined;
  if (!included && path !== '' && !rules.includes.some((p) => p.below(path))) return undefined;
  if (included && rules.excludes.length === 0) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const kept = filterValue(child, path === '' ? key : `${path}.${key}`, rules);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 || included || path === '' ? out : undefined;
}
