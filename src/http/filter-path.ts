/**
 * ES's `filter_path` response filtering: comma-separated dotted paths, where `*` matches within one
 * name and `**` any number of levels; a leading `-` excludes instead. Arrays are transparent (a path
 * through `hits.hits` applies to each hit). Objects left empty are dropped, as ES does.
 */
import { globPattern } from '../engine/patterns.ts';
import { RawJson } from '../engine/raw-json.ts';

export function filterPath(body: unknown, spec: string): unknown {
  const patterns = spec.split(',').map((p) => p.trim()).filter(Boolean);
  const includes = patterns.filter((p) => !p.startsWith('-')).map((p) => p.split('.'));
  const excludes = patterns.filter((p) => p.startsWith('-')).map((p) => p.slice(1).split('.'));
  let out = includes.length ? pick(body, includes, true) : body;
  if (excludes.length) out = pick(out, excludes, false);
  return out ?? {};
}

/** Keeps (`keep`) or drops what the patterns match; undefined when nothing is left. */
function pick(value: unknown, patterns: string[][], keep: boolean): unknown {
  // A stored source is filtered as the values it holds.
  if (value instanceof RawJson) value = value.value;
  if (Array.isArray(value)) {
    const items = value.map((v) => pick(v, patterns, keep)).filter((v) => v !== undefined);
    return items.length || !keep ? items : undefined;
  }
  if (typeof value !== 'object' || value === null) return keep ? undefined : value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const rest = patterns.flatMap((p) => advance(p, key));
    const whole = rest.some((r) => r.length === 0);
    if (keep) {
      const kept = whole ? child : rest.length ? pick(child, rest, true) : undefined;
      if (kept !== undefined) out[key] = kept;
    } else if (!whole) {
      out[key] = rest.length ? pick(child, rest, false) : child;
    }
  }
  return keep && Object.keys(out).length === 0 ? undefined : out;
}

/** What is left of a pattern after matching one key: none if it does not match. */
function advance(pattern: string[], key: string): string[][] {
  const [head, ...tail] = pattern;
  if (head === '**') return [pattern, ...advance(tail, key)];
  if (head === undefined) return [];
  return matches(head, key) ? [tail] : [];
}

function matches(glob: string, key: string): boolean {
  if (!glob.includes('*')) return glob === key;
  return globPattern(glob).test(key);
}
