/**
 * Index names: ES's rules for valid names, and index expressions (comma lists, `*` wildcards,
 * `_all`, `-exclusions`) resolved against the existing indices.
 */
import { badRequest, indexNotFound } from './errors.ts';
import { globPattern } from './patterns.ts';

const FORBIDDEN = [' ', '"', '*', '\\', '<', '|', ',', '>', '/', '?'];

export function checkIndexName(name: string): void {
  const invalid = (why: string) => badRequest('invalid_index_name_exception', `Invalid index name [${name}], ${why}`, { 'index_uuid': '_na_', index: name });
  if (name === '.' || name === '..') throw invalid(`must not be '.' or '..'`);
  if (name !== name.toLowerCase()) throw invalid('must be lowercase');
  if (FORBIDDEN.some((c) => name.includes(c))) throw invalid(`must not contain the following characters [${FORBIDDEN.join(', ')}]`);
  if (name.includes('#')) throw invalid(`must not contain '#'`);
  if (name.includes(':')) throw invalid(`must not contain ':'`);
  if (/^[_\-+]/.test(name)) throw invalid(`must not start with '_', '-', or '+'`);
  const bytes = Buffer.byteLength(name);
  if (bytes > 255) throw invalid(`index name is too long, (${bytes} > 255)`);
  if (name.length === 0) throw invalid('must not be empty');
}

/**
 * The indices an expression names, sorted by name (the order that fixes shard indices, hence ties).
 * A missing concrete name is a 404; a wildcard that matches nothing is not.
 */
export function resolveExpression(expression: string | undefined, names: readonly string[]): string[] {
  const visible = names.filter((n) => !n.startsWith('.'));
  if (expression === undefined || expression === '' || expression === '_all') return [...visible].sort();
  const chosen = new Set<string>();
  for (const part of expression.split(',')) {
    if (part === '_all' || part === '*') {
      visible.forEach((n) => chosen.add(n));
    } else if (part.startsWith('-') && chosen.size > 0) {
      const pattern = globPattern(part.slice(1));
      for (const n of [...chosen]) if (pattern.test(n)) chosen.delete(n);
    } else if (part.includes('*')) {
      const pattern = globPattern(part);
      names.filter((n) => pattern.test(n) && (part.startsWith('.') || !n.startsWith('.'))).forEach((n) => chosen.add(n));
    } else if (names.includes(part)) {
      chosen.add(part);
    } else {
      throw indexNotFound(part);
    }
  }
  return [...chosen].sort();
}
