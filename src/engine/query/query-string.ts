/**
 * A parsed URI `q=` as the DSL queries it stands for, over one index's mappings (Elasticsearch's
 * QueryStringQueryParser): a clause without a field goes to `df`, or to every field of the index
 * when none is given, each such term a `dis_max` (tie breaker 0) of its per-field queries; type
 * mismatches are lenient when all fields are searched.
 */
import { lowercase } from '../analysis/standard-analyzer.ts';
import { badRequest } from '../errors.ts';
import { globPattern } from '../patterns.ts';
import type { Mappings } from '../mapping.ts';
import type { QsNode, Query, QueryStringQuery } from './query.ts';

export function resolveQueryString(query: QueryStringQuery, mappings: Mappings): Query {
  if ('syntaxError' in query) throw syntaxError(query);
  const allFields = query.defaultFields === undefined || query.defaultFields.includes('*');
  const defaults = allFields ? [...mappings.fields.keys()] : query.defaultFields!;
  const lenient = query.lenient ?? allFields;
  const resolve = (node: QsNode): Query => {
    switch (node.kind) {
      case 'bool': {
        // An empty query string matches nothing.
        if (node.clauses.length === 0) return { kind: 'match_none', boost: 1 };
        const pick = (occur: string) => node.clauses.filter((c) => c.occur === occur).map((c) => resolve(c.node));
        return { kind: 'bool', must: pick('must'), filter: [], should: pick('should'), mustNot: pick('must_not'), boost: node.boost };
      }
      case 'term':
        return perField(node.field, (field) => ({ kind: 'match', field, query: node.text, operator: query.defaultOperator, zeroTermsQuery: 'none', lenient, boost: 1 }), node.boost);
      case 'phrase':
        return perField(node.field, (field) => ({ kind: 'match_phrase', field, query: node.text, slop: node.slop, zeroTermsQuery: 'none', boost: 1 }), node.boost);
      case 'range':
        return perField(
          node.field,
          (field) => ({
            kind: 'range',
            field,
            ...(node.lower !== undefined && (node.includeLower ? { gte: node.lower } : { gt: node.lower })),
            ...(node.upper !== undefined && (node.includeUpper ? { lte: node.upper } : { lt: node.upper })),
            boost: 1,
          }),
          node.boost,
        );
      case 'wildcard':
        if (node.pattern === '*' && (node.field === undefined || node.field === '*')) return { kind: 'match_all', boost: node.boost };
        if (node.pattern === '*') return perField(node.field, (field) => ({ kind: 'exists', field, boost: 1 }), node.boost);
        // A text field's analyzer lowercases the pattern; a keyword field takes it as written.
        return perField(node.field, (field) => ({ kind: 'wildcard', field, value: mappings.get(field)?.type === 'text' ? lowercase(node.pattern) : node.pattern, caseInsensitive: false, boost: 1 }), node.boost, true);
      case 'exists':
        return { kind: 'exists', field: node.field, boost: node.boost };
    }
  };

  /** One query per field the clause names (its own, a pattern's, or the defaults), as a dis_max when several. */
  function perField(field: string | undefined, build: (field: string) => Query, boost: number, termsOnly = false): Query {
    let fields = field === undefined ? defaults : field.includes('*') ? [...mappings.fields.keys()].filter((name) => globPattern(field).test(name)) : [field];
    // Lenient searches skip the fields whose type cannot take the clause (wildcards need terms).
    if (termsOnly && (field === undefined || lenient)) fields = fields.filter((name) => ['keyword', 'text'].includes(mappings.get(name)?.type ?? ''));
    if (fields.length === 0) return { kind: 'match_none', boost };
    if (fields.length === 1) return withBoost(build(fields[0]), boost);
    return { kind: 'dis_max', queries: fields.map(build), tieBreaker: 0, boost };
  }
  return withBoost(resolve(query.root), query.boost);
}

function withBoost(query: Query, boost: number): Query {
  return boost === 1 ? query : { ...query, boost: Math.fround(query.boost * boost) };
}

/** ES's failure of every shard for a query string the syntax does not allow. */
function syntaxError(query: QueryStringQuery & { syntaxError: string }) {
  return badRequest('query_shard_exception', `Failed to parse query [${query.text}]`, {}, badRequest('parse_exception', query.syntaxError));
}

/**
 * Throws the syntax error of the first query string in the tree that does not parse. Elasticsearch
 * parses the query on every shard, so a shard with no documents fails too; segments resolve their
 * query strings as they run, and this check covers the shards that have none.
 */
export function checkQueryStrings(query: Query): void {
  switch (query.kind) {
    case 'query_string':
      if ('syntaxError' in query) throw syntaxError(query);
      return;
    case 'bool':
      for (const clause of [...query.must, ...query.filter, ...query.should, ...query.mustNot]) checkQueryStrings(clause);
      return;
    case 'constant_score':
      return checkQueryStrings(query.filter);
    case 'dis_max':
      for (const clause of query.queries) checkQueryStrings(clause);
      return;
  }
}
