/**
 * Index names: ES's rules for valid names, and index expressions (comma lists, `*` wildcards,
 * `_all`, `-exclusions`) resolved against the existing indices.
 */
import { badRequest, EsError, indexNotFound } from './errors.ts';
import { globPattern } from './patterns.ts';

const FORBIDDEN = [' ', '"', '*', '\\', '<', '|', ',', '>', '/', '?'];

/** ES's checks in ES's order (`MetadataCreateIndexService.validateIndexOrAliasName`, then lowercase): the first that fails is the one reported. */
export function checkIndexName(name: string): void {
  const invalid = (why: string) => badRequest('invalid_index_name_exception', `Invalid index name [${name}], ${why}`, { 'index_uuid': '_na_', index: name });
  if (name.length === 0) throw invalid('must not be empty');
  if (FORBIDDEN.some((c) => name.includes(c))) throw invalid(`must not contain the following characters [${FORBIDDEN.join(', ')}]`);
  if (name.includes('#')) throw invalid(`must not contain '#'`);
  if (name.includes(':')) throw invalid(`must not contain ':'`);
  if (/^[_\-+]/.test(name)) throw invalid(`must not start with '_', '-', or '+'`);
  const bytes = Buffer.byteLength(name);
  if (bytes > 255) throw invalid(`index name is too long, (${bytes} > 255)`);
  if (name === '.' || name === '..') throw invalid(`must not be '.' or '..'`);
  if (name !== name.toLowerCase()) throw invalid('must be lowercase');
}

/**
 * How an expression resolves (ES's `IndicesOptions`, from `ignore_unavailable`, `allow_no_indices` and
 * `expand_wildcards`). deeppage has no closed indices and no `index.hidden` setting: names that begin
 * with a dot stand for hidden indices, which wildcards and `_all` leave out unless `hidden` is asked for.
 */
export interface IndicesOptions {
  /** A missing concrete name is skipped rather than a 404. */
  ignoreUnavailable: boolean;
  /** An expression (or a wildcard in it) may resolve to no index; else a 404 names it. */
  allowNoIndices: boolean;
  /** Wildcards (and `_all`) expand to open indices: every index here. */
  expandOpen: boolean;
  /** Wildcards expand to hidden (dot-prefixed) indices too. */
  expandHidden: boolean;
}

/** ES's `strictExpandOpen`: the default of searches, counts, refreshes and most index reads. */
export const STRICT_EXPAND_OPEN: Readonly<IndicesOptions> = Object.freeze({ ignoreUnavailable: false, allowNoIndices: true, expandOpen: true, expandHidden: false });

/** ES's `strictExpandHidden`: hidden indices too (`_cat/shards`, `_cat/aliases`, `GET _alias`). */
export const STRICT_EXPAND_HIDDEN: Readonly<IndicesOptions> = Object.freeze({ ignoreUnavailable: false, allowNoIndices: true, expandOpen: true, expandHidden: true });

/**
 * The indices an expression names, sorted by name (the order that fixes shard indices, hence ties).
 * A missing concrete name is a 404 unless `ignoreUnavailable`; a wildcard that matches nothing is one
 * only without `allowNoIndices`.
 */
export function resolveExpression(expression: string | undefined, names: readonly string[], options: Readonly<IndicesOptions> = STRICT_EXPAND_OPEN, aliases?: AliasNames): string[] {
  return [...resolveWithAliases(expression, names, options, aliases).keys()];
}

/** Alias name → the indices that carry it, and whether the alias is hidden. */
export type AliasNames = ReadonlyMap<string, { indices: readonly string[]; hidden: boolean }>;

/**
 * An expression that is one name, neither a list nor a wildcard: when an index has that name, the
 * expression resolves to that index alone, reached by its own name (alias names never equal index names).
 */
export function isPlainName(expression: string | undefined): expression is string {
  return expression !== undefined && !/[,*]/.test(expression);
}

/**
 * {@link resolveExpression}, with the ways each index was reached: `null` for by its own name (or a
 * wildcard over index names), else the alias's name. Wildcards match alias names too, as
 * Elasticsearch's do (hidden aliases only when hidden ones are asked for); an exclusion drops the
 * indices it names and those of the aliases it names. Sorted by index name.
 */
export function resolveWithAliases(expression: string | undefined, names: readonly string[], options: Readonly<IndicesOptions> = STRICT_EXPAND_OPEN, aliases: AliasNames = new Map()): Map<string, Set<string | null>> {
  // One index by its own name (most searches): what the walk below gives it, without the walk.
  if (isPlainName(expression) && names.includes(expression)) return new Map([[expression, new Set([null])]]);
  const expands = (name: string, pattern: string, hidden = name.startsWith('.')) => options.expandOpen && (options.expandHidden || !hidden || pattern.startsWith('.'));
  const all = expression === undefined || expression === '' || expression === '_all';
  const chosen = new Map<string, Set<string | null>>();
  const choose = (index: string, via: string | null) => {
    let ways = chosen.get(index);
    if (!ways) chosen.set(index, (ways = new Set()));
    ways.add(via);
  };
  const drop = (pattern: (name: string) => boolean) => {
    for (const name of [...chosen.keys()]) if (pattern(name)) chosen.delete(name);
    for (const [alias, { indices }] of aliases) if (pattern(alias)) for (const name of indices) chosen.delete(name);
  };
  for (const part of all ? ['*'] : expression.split(',')) {
    if (part === '_all' || part.includes('*')) {
      if (part.startsWith('-') && chosen.size > 0) {
        const pattern = globPattern(part.slice(1));
        drop((name) => pattern.test(name));
        continue;
      }
      const pattern = globPattern(part === '_all' ? '*' : part);
      const matched = names.filter((n) => pattern.test(n) && expands(n, part));
      // `_all` means every index, not what aliases add to them.
      const viaAliases = part === '_all' || all ? [] : [...aliases].filter(([alias, { hidden }]) => pattern.test(alias) && expands(alias, part, hidden));
      if (matched.length === 0 && viaAliases.length === 0 && !options.allowNoIndices && !all) throw indexNotFound(part);
      matched.forEach((n) => choose(n, null));
      for (const [alias, { indices }] of viaAliases) for (const n of indices) choose(n, alias);
    } else if (part.startsWith('-') && chosen.size > 0) {
      drop((name) => name === part.slice(1));
    } else if (names.includes(part)) {
      choose(part, null);
    } else if (aliases.has(part)) {
      for (const n of aliases.get(part)!.indices) choose(n, part);
    } else if (!options.ignoreUnavailable) {
      throw indexNotFound(part);
    }
  }
  if (chosen.size === 0 && !options.allowNoIndices) throw noIndices(all ? '_all' : expression);
  return new Map([...chosen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** ES's 404 when a whole expression resolves to nothing and that is not allowed. */
function noIndices(expression: string): EsError {
  const error = indexNotFound(expression);
  if (expression !== '_all') return error;
  return new EsError(404, error.type, 'no such index [_all] and no indices exist', error.fields);
}
