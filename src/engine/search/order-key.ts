/**
 * The one key of "a sort under a query", and every name made from it. A request's key
 * ({@link OrderKey.of}) is made once, and every cache of a search finds what it keeps by it:
 *
 * - a snapshot keeps the sort's plan under {@link OrderKey.sort}, the name of its clauses
 *   (search-index/index-snapshot.ts);
 * - the run cache keeps a segment's own sorted run under the order the plan's keys resolve to
 *   ({@link orderName}, kept as the plan's `runKey`), and a merge of such runs laid out for the
 *   kernel under the same name (runs/run-cache.ts);
 * - it keeps a query run, a segment's matches in the page's order, under that order under the
 *   key's query ({@link OrderKey.queryRun});
 * - a scroll keeps its first batch's key, so its later batches name nothing again
 *   (contexts/cursors.ts).
 *
 * Runs are kept under {@link RunName}s, which only this module makes. No two orders or queries
 * share a name: free text comes with its length in front, and JSON delimits itself.
 */
import type { Query } from '../query/query.ts';
import type { SearchRequest, SortClause } from './request.ts';

declare const named: unique symbol;
/** What the run cache keeps a sorted run, or a merge laid out from runs, under. */
export type RunName = string & { readonly [named]: true };

/** Names how one key orders a segment: its kind, then what decides the order (field, direction, missing, mode). */
export function keyName(kind: 'number' | 'keyword' | 'doc', ...order: readonly (string | number)[]): string {
  return JSON.stringify([kind, ...order]);
}

/** The name of the order keys put a segment in, given their {@link keyName}s (a `_score` key: `_score asc|desc`). */
export function orderName(keys: readonly string[]): RunName {
  return `[${keys.join(',')}]` as RunName;
}

/** A run of some of a segment's documents (a slice's, search/slice.ts), named by the set. */
export function inSlice(run: RunName, docs: string): RunName {
  return `${run} slice ${docs}` as RunName;
}

/** A query run that holds scores belongs to its shard's snapshot (its term statistics): the run's name in that generation. */
export function inGeneration(run: RunName, generation: number): RunName {
  return `${run} generation ${generation}` as RunName;
}

type Keyed = Pick<SearchRequest, 'sort' | 'query' | 'minScore'>;

const MATCH_ALL: Keyed['query'] = { kind: 'match_all', boost: 1 };

export class OrderKey {
  #query: string | undefined;

  private constructor(
    /** The clauses, as asked. */
    readonly clauses: readonly SortClause[],
    /** Names the clauses: every field of every clause. */
    readonly sort: string,
    private readonly query: Query,
    private readonly minScore: number | undefined,
  ) {}

  /**
   * A request's key. Under a plain `match_all` it is the sort's alone, kept by the list of clauses
   * ({@link ofSort}); under any other query one is made for the request.
   */
  static of({ sort, query, minScore }: Keyed): OrderKey {
    if (minScore === undefined && query.kind === 'match_all' && query.boost === 1) return OrderKey.ofSort(sort);
    return new OrderKey(sort, OrderKey.ofSort(sort).sort, query, minScore);
  }

  /**
   * The key of the clauses under a plain `match_all`, made once per list of clauses: a search read
   * once and served again (a call kept by the HTTP layer, a scroll's batches) brings the same list.
   * Held weakly, by the lists themselves.
   */
  static ofSort(clauses: readonly SortClause[]): OrderKey {
    let key = bySort.get(clauses);
    if (key === undefined) bySort.set(clauses, (key = new OrderKey(clauses, sortName(clauses), MATCH_ALL, undefined)));
    return key;
  }

  /**
   * The name of a query run: a segment's matches in `order` (see {@link orderName}) under this
   * key's query, and `filter` (the aliases' a target was reached through), keeping scores or not.
   */
  queryRun(order: readonly string[], scored: boolean, filter: Query | undefined): RunName {
    this.#query ??= `${this.minScore ?? ''} ${JSON.stringify(this.query)}`;
    const filtered = filter === undefined ? '' : ` filter ${JSON.stringify(filter)}`;
    return `query ${orderName(order)} ${scored ? 'scored' : 'unscored'} ${this.#query}${filtered}` as RunName;
  }
}

const bySort = new WeakMap<readonly SortClause[], OrderKey>();

/**
 * The clauses' name: every field of every clause, strings with their length before them so that
 * no two lists of clauses share a name. (`JSON.stringify` of the clauses, and hashing its longer
 * text, took a twentieth of a shallow page's search.)
 */
function sortName(clauses: readonly SortClause[]): string {
  let name = 'sort:';
  for (const clause of clauses) {
    if (clause.kind !== 'field') {
      name += `${clause.kind} ${clause.order};`;
      continue;
    }
    const { field, order, missing, unmappedType = '', mode = '' } = clause;
    const given = typeof missing === 'number' ? `n${missing}` : `s${missing.length}:${missing}`;
    name += `field ${order} ${field.length}:${field} ${given} ${unmappedType.length}:${unmappedType} ${mode};`;
  }
  return name;
}

/** The fields {@link sortName} names: a field added to a clause and not named there fails to compile. */
const NAMED = ['kind', 'order', 'field', 'missing', 'unmappedType', 'mode'] as const;
type ClauseField<C> = C extends unknown ? keyof C : never;
const everyClauseField: Exclude<ClauseField<SortClause>, (typeof NAMED)[number]> extends never ? true : never = true;
void everyClauseField;
