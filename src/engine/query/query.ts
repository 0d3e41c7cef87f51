/**
 * A search's `query` as the engine takes it: the Elasticsearch query DSL parsed and checked for
 * shape (src/engine/request/query-dsl.ts), or a URI `q=` parsed from Lucene's query-string syntax
 * (src/engine/request/query-string.ts). Field names are as the request gave them (a pattern where the DSL
 * allows one); what a field is, and how its values are analyzed, is decided per index when the
 * query runs, as Elasticsearch turns a query builder into a Lucene query per shard.
 *
 * Every node carries `boost` (1 unless given): Elasticsearch multiplies the boosts down the tree
 * into each term's weight.
 */

/** A value as the request gave it: JSON string, number or boolean. */
export type QueryValue = string | number | boolean;

export type ZeroTermsQuery = 'none' | 'all';

export type Query =
  | { kind: 'match_all'; boost: number }
  | { kind: 'match_none'; boost: number }
  /** Exact term, not analyzed; on a text field it compares with the indexed (lowercased) tokens. */
  | { kind: 'term'; field: string; value: QueryValue; caseInsensitive: boolean; boost: number }
  | { kind: 'terms'; field: string; values: QueryValue[]; boost: number }
  /**
   * Bounds as given (`from`/`to`/`include_lower`/`include_upper` already turned into these); dates
   * may be date math (`now-1d/d`), read with `format` and `timeZone` when given.
   */
  | { kind: 'range'; field: string; gt?: QueryValue; gte?: QueryValue; lt?: QueryValue; lte?: QueryValue; format?: string; timeZone?: string; boost: number }
  | { kind: 'exists'; field: string; boost: number }
  | { kind: 'ids'; values: string[]; boost: number }
  | { kind: 'prefix'; field: string; value: string; caseInsensitive: boolean; boost: number }
  /** `?` is one character, `*` any run of them. */
  | { kind: 'wildcard'; field: string; value: string; caseInsensitive: boolean; boost: number }
  | {
      kind: 'bool';
      must: Query[];
      filter: Query[];
      should: Query[];
      mustNot: Query[];
      /** As given (`"2"`, `"-1"`, `"75%"`, `"3<90%"`, or a number); see minimum-should-match.ts. */
      minimumShouldMatch?: string;
      boost: number;
    }
  /** The text is analyzed with the field's analyzer; each token a term, or'ed or and'ed. */
  | { kind: 'match'; field: string; query: QueryValue; operator: 'or' | 'and'; minimumShouldMatch?: string; zeroTermsQuery: ZeroTermsQuery; lenient: boolean; boost: number }
  | { kind: 'match_phrase'; field: string; query: QueryValue; slop: number; zeroTermsQuery: ZeroTermsQuery; boost: number }
  | {
      kind: 'multi_match';
      query: QueryValue;
      /** Field names or patterns, each with its own boost (`title^3`). */
      fields: { field: string; boost: number }[];
      type: 'best_fields' | 'most_fields';
      /** best_fields: 0 unless given; most_fields: 1. */
      tieBreaker: number;
      operator: 'or' | 'and';
      minimumShouldMatch?: string;
      zeroTermsQuery: ZeroTermsQuery;
      lenient: boolean;
      boost: number;
    }
  | { kind: 'constant_score'; filter: Query; boost: number }
  | { kind: 'dis_max'; queries: Query[]; tieBreaker: number; boost: number }
  | QueryStringQuery;

/**
 * A URI `q=` (Elasticsearch's `query_string`): the parsed tree, plus what decides how it runs.
 * Fields are resolved per index: a clause without a field goes to `defaultFields` (`df`), or to
 * every text-searchable field when none is given, and then type mismatches are lenient.
 */
export type QueryStringQuery = {
  kind: 'query_string';
  /** The text as sent, for the error `Failed to parse query [<text>]`. */
  text: string;
  defaultFields?: string[];
  defaultOperator: 'or' | 'and';
  /** As given; when absent, lenient exactly when the default fields are all fields (`*`). */
  lenient?: boolean;
  boost: number;
} & (
  | { root: QsNode }
  /**
   * Text the syntax does not allow: Elasticsearch fails every shard with `query_shard_exception`
   * `Failed to parse query [<text>]`, caused by a `parse_exception` with this reason
   * (`Cannot parse '<text>': …`).
   */
  | { syntaxError: string }
);

/** One node of a parsed query string. */
export type QsNode =
  /** Clauses with Lucene's occurrences, decided by the parser from `AND`/`OR`/`NOT`/`+`/`-` and the default operator. */
  | { kind: 'bool'; clauses: { occur: 'must' | 'should' | 'must_not'; node: QsNode }[]; boost: number }
  /** A bare or fielded term, analyzed like a `match` of one word (it may give several tokens). */
  | { kind: 'term'; field?: string; text: string; boost: number }
  /** A quoted phrase, `"a b"~slop`. */
  | { kind: 'phrase'; field?: string; text: string; slop: number; boost: number }
  /** `[a TO b]`, `{a TO b}`, mixed; `*` leaves an end open; `>10`, `>=10`, `<10`, `<=10`. */
  | { kind: 'range'; field?: string; lower?: string; upper?: string; includeLower: boolean; includeUpper: boolean; boost: number }
  /** A term with `?` or `*` (a trailing `*` alone is a prefix), case as written; `\\` escapes `*`, `?` and `\\`. */
  | { kind: 'wildcard'; field?: string; pattern: string; boost: number }
  /** `_exists_:field`. */
  | { kind: 'exists'; field: string; boost: number };

/**
 * Whether the query may read `now` (date math such as `now-1d/d`, in any value it carries): what it
 * matches then changes with the clock, so its matches are never kept between searches.
 */
export function readsNow(query: Query): boolean {
  switch (query.kind) {
    case 'term':
      return isNow(query.value);
    case 'terms':
      return query.values.some(isNow);
    case 'range':
      return [query.gt, query.gte, query.lt, query.lte].some(isNow);
    case 'match':
    case 'match_phrase':
    case 'multi_match':
      return isNow(query.query);
    case 'bool':
      return [...query.must, ...query.filter, ...query.should, ...query.mustNot].some(readsNow);
    case 'constant_score':
      return readsNow(query.filter);
    case 'dis_max':
      return query.queries.some(readsNow);
    case 'query_string':
      return 'root' in query && nodeReadsNow(query.root);
    default:
      return false;
  }
}

function nodeReadsNow(node: QsNode): boolean {
  switch (node.kind) {
    case 'bool':
      return node.clauses.some((clause) => nodeReadsNow(clause.node));
    case 'term':
      return isNow(node.text);
    case 'range':
      return isNow(node.lower) || isNow(node.upper);
    default:
      return false;
  }
}

const isNow = (value: unknown) => typeof value === 'string' && value.trimStart().startsWith('now');
