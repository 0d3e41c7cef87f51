/** Small shared helpers for JSON values and Elasticsearch's `*` wildcard patterns. */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A `*` wildcard pattern (index names, `_source` and `filter_path` paths) as an anchored regular
 * expression; `suffix` is a regular-expression tail allowed after the match.
 */
export function globPattern(pattern: string, suffix = ''): RegExp {
  const body = pattern.split('*').map(escapeRegExp).join('.*');
  return new RegExp(`^${body}${suffix}$`);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
