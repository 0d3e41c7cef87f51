/**
 * `POST /_aliases`: a list of alias changes checked together and applied together. Elasticsearch
 * applies the list atomically; so does this: every action is resolved and checked first, and only
 * then are the indices' aliases changed (engine.ts makes that durable).
 */
import { badRequest, EsError, illegalArgument } from '../errors.ts';
import { checkIndexName } from '../index-names.ts';
import { globPattern } from '../patterns.ts';
import type { SearchIndex } from '../search-index.ts';
import type { AliasAction, AliasProps } from './alias.ts';

/** An action's outcome as Elasticsearch reports it when some action failed (`action_results`). */
export interface AliasActionResult {
  action: { type: AliasAction['type']; indices: string[]; aliases: string[] };
  status: number;
  error: EsError | null;
}

export interface AliasChanges {
  /** Indices whose aliases change, to be made durable. */
  changed: Set<SearchIndex>;
  /** `remove_index` actions: indices to delete. */
  removed: SearchIndex[];
  /** Per action; some with status 404 when a `remove` found nothing to remove. */
  results: AliasActionResult[];
  /** Applies every change in memory. */
  apply(): void;
}

/** What the actions need of the engine: index expressions resolved to indices (404 for a missing one). */
export interface AliasContext {
  resolveIndices(expression: string): SearchIndex[];
  indexNamed(name: string): SearchIndex | undefined;
}

export function planAliasActions(actions: readonly AliasAction[], given: AliasContext): AliasChanges {
  // An index a `remove_index` of the same request deletes leaves its name free for an alias (the
  // swap of an index for an alias of the same name, in one request).
  const leaving = new Set(actions.flatMap((action) => (action.type === 'remove_index' ? action.indices.flatMap((expression) => given.resolveIndices(expression)) : [])));
  const indexNamed = (name: string) => {
    const index = given.indexNamed(name);
    return index && !leaving.has(index) ? index : undefined;
  };
  const context: AliasContext = { ...given, indexNamed };
  const changes: (() => void)[] = [];
  const changed = new Set<SearchIndex>();
  const removed: SearchIndex[] = [];
  const results: AliasActionResult[] = [];
  let applied = 0;
  // What the aliases will be once the earlier actions apply: later actions are checked against it.
  const pending = new Map<SearchIndex, Map<string, AliasProps>>();
  const aliasesOf = (index: SearchIndex) => {
    let aliases = pending.get(index);
    if (!aliases) pending.set(index, (aliases = new Map(index.aliases)));
    return aliases;
  };
  for (const action of actions) {
    const indices = action.indices.flatMap((expression) => context.resolveIndices(expression));
    const result: AliasActionResult = { action: { type: action.type, indices: indices.map((index) => index.name), aliases: action.type === 'remove_index' ? [] : action.aliases }, status: 200, error: null };
    results.push(result);
    if (action.type === 'add') {
      for (const alias of action.aliases) checkAliasName(alias, context);
      for (const index of indices) for (const alias of action.aliases) aliasesOf(index).set(alias, action.props);
      if (indices.length > 0) applied++;
    } else if (action.type === 'remove') {
      let found = 0;
      const missing = new Set(action.aliases);
      for (const index of indices) {
        const aliases = aliasesOf(index);
        for (const name of action.aliases) {
          const pattern = name === '_all' ? /^.*$/ : globPattern(name);
          for (const alias of [...aliases.keys()]) {
            if (!pattern.test(alias)) continue;
            aliases.delete(alias);
            missing.delete(name);
            found++;
          }
        }
      }
      if (found > 0) applied++;
      if (found === 0 || missing.size > 0) {
        const error = aliasesMissing([...missing].length > 0 ? [...missing] : action.aliases);
        if (action.mustExist) throw error;
        if (found === 0) Object.assign(result, { status: 404, error });
      }
    } else {
      for (const expression of action.indices) {
        if (expression.includes('*') || expression === '_all') throw illegalArgument('Wildcard expressions or all indices are not allowed');
      }
      removed.push(...indices);
      if (indices.length > 0) applied++;
    }
  }
  // ES: when no action is left to apply, the request fails as not found.
  if (applied === 0) throw aliasesMissing(actions.flatMap((action) => (action.type === 'remove_index' ? [] : action.aliases)));
  for (const [index, aliases] of pending) {
    changes.push(() => {
      index.aliases.clear();
      for (const [alias, props] of aliases) index.aliases.set(alias, props);
    });
    changed.add(index);
  }
  checkWriteIndices(pending, context);
  checkHidden(pending, context);
  return { changed, removed, results, apply: () => changes.forEach((change) => change()) };
}

/** ES's checks on an alias name: an index name's, and no index of that name. */
export function checkAliasName(alias: string, context: Pick<AliasContext, 'indexNamed'>): void {
  try {
    checkIndexName(alias);
  } catch (error) {
    if (!(error instanceof EsError)) throw error;
    throw badRequest('invalid_alias_name_exception', error.reason.replace(/^Invalid index name/, 'Invalid alias name'));
  }
  if (context.indexNamed(alias)) throw badRequest('invalid_alias_name_exception', `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`);
}

/** ES's 404 for aliases that are not there (`aliases [a,b] missing`, names sorted as ES's set keeps them). */
export function aliasesMissing(aliases: readonly string[]): EsError {
  const names = [...new Set(aliases)].sort().join(',');
  return new EsError(404, 'aliases_not_found_exception', `aliases [${names}] missing`, { 'resource.type': 'aliases', 'resource.id': names });
}

/** An alias may mark at most one of its indices as the write index (ES's metadata check). */
function checkWriteIndices(pending: ReadonlyMap<SearchIndex, ReadonlyMap<string, AliasProps>>, context: AliasContext): void {
  const writers = new Map<string, string[]>();
  const note = (index: SearchIndex, aliases: ReadonlyMap<string, AliasProps>) => {
    for (const [alias, props] of aliases) {
      if (props.isWriteIndex !== true) continue;
      let names = writers.get(alias);
      if (!names) writers.set(alias, (names = []));
      names.push(index.name);
    }
  };
  for (const [index, aliases] of pending) note(index, aliases);
  for (const [alias, names] of writers) {
    // Indices the actions leave alone keep their marks.
    for (const other of context.resolveIndices('_all')) {
      if (pending.has(other) || other.aliases.get(alias)?.isWriteIndex !== true) continue;
      names.push(other.name);
    }
    if (names.length > 1) throw moreThanOneWriteIndex(alias, names);
  }
}

/** An alias is hidden on all its indices or on none (ES's metadata check). */
function checkHidden(pending: ReadonlyMap<SearchIndex, ReadonlyMap<string, AliasProps>>, context: AliasContext): void {
  const touched = new Set([...pending.values()].flatMap((aliases) => [...aliases.keys()]));
  for (const alias of touched) {
    const hidden: string[] = [], shown: string[] = [];
    for (const index of context.resolveIndices('_all')) {
      const props = (pending.get(index) ?? index.aliases).get(alias);
      if (props) (props.isHidden ? hidden : shown).push(index.name);
    }
    if (hidden.length > 0 && shown.length > 0) {
      throw badRequest(
        'illegal_state_exception',
        `alias [${alias}] has is_hidden set to true on indices [${hidden.sort().join(',')}] but does not have is_hidden set to true on indices [${shown.sort().join(',')}]; alias must have the same is_hidden setting on all indices`,
      );
    }
  }
}

/** ES's check that an alias marks one write index at most. */
export function moreThanOneWriteIndex(alias: string, indices: readonly string[]): EsError {
  return badRequest('illegal_state_exception', `alias [${alias}] has more than one write index [${[...indices].sort().join(',')}]`);
}

/** ES's answer when an alias stands where a request needs concrete indices (deleting an index, alias actions). */
export function aliasNotConcrete(name: string): EsError {
  return illegalArgument(`The provided expression [${name}] matches an alias, specify the corresponding concrete indices instead.`);
}
