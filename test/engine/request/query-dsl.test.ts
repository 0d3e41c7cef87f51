import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Query, QueryValue } from '../../../src/engine/query/query.ts';
import { EsError } from '../../../src/engine/errors.ts';
import { MAX_NESTED_DEPTH, parseQueryDsl } from '../../../src/engine/request/query-dsl.ts';
import { failure, refusal } from './failure.ts';

const parse = parseQueryDsl;

/** Status, type and reason of the refusal and of each of its causes, outermost first. */
function causes(run: () => unknown): [number, string, string][] {
  const chain: [number, string, string][] = [];
  for (let e: EsError | undefined = failure(run); e; e = e.causedBy) chain.push([e.status, e.type, e.reason]);
  return chain;
}

const notYet = (what: string) => [400, 'illegal_argument_exception', `${what} is not supported by deeppage yet`];

describe('match_all and match_none', () => {
  it.each(['match_all', 'match_none'] as const)('%s takes a boost, 1 unless given', (kind) => {
    expect(parse({ [kind]: {} })).toEqual({ kind, boost: 1 });
    expect(parse({ [kind]: { boost: 1.5 } })).toEqual({ kind, boost: 1.5 });
    expect(parse({ [kind]: { boost: '2' } })).toEqual({ kind, boost: 2 });
  });

  it('refuses a field boost of a long run of digits and a letter at once (a regular expression once took minutes to)', () => {
    const digits = `${'1'.repeat(200_000)}x`;
    const [status, type, reason] = refusal(() => parse({ multi_match: { query: 'a', fields: [`title^${digits}`] } }));
    expect([status, type, reason === `For input string: "${digits}"`]).toEqual([400, 'number_format_exception', true]);
  });
});

describe('term', () => {
  it.each([['kimchy'], [42], [true]])('short form %j', (value) => {
    expect(parse({ term: { user: value } })).toEqual({ kind: 'term', field: 'user', value, caseInsensitive: false, boost: 1 });
  });

  it('long form with its options', () => {
    expect(parse({ term: { user: { value: 'Kimchy', case_insensitive: true, boost: 2 } } })).toEqual({
      kind: 'term',
      field: 'user',
      value: 'Kimchy',
      caseInsensitive: true,
      boost: 2,
    });
    expect(parse({ term: { user: { value: 1.5 } } })).toEqual({ kind: 'term', field: 'user', value: 1.5, caseInsensitive: false, boost: 1 });
    expect(parse({ term: { user: { term: 'x', case_insensitive: 'false' } } })).toMatchObject({ value: 'x', caseInsensitive: false });
  });
});

describe('terms', () => {
  it('takes an array of values and a boost beside the field', () => {
    expect(parse({ terms: { tags: ['a', 2, false] } })).toEqual({ kind: 'terms', field: 'tags', values: ['a', 2, false], boost: 1 });
    expect(parse({ terms: { boost: 3, tags: [] } })).toEqual({ kind: 'terms', field: 'tags', values: [], boost: 3 });
  });
});

describe('range', () => {
  const range = (options: Record<string, unknown>) => parse({ range: { age: options } });

  it('keeps gt/gte/lt/lte, format and time_zone', () => {
    expect(range({ gte: 10, lt: 20 })).toEqual({ kind: 'range', field: 'age', gte: 10, lt: 20, boost: 1 });
    expect(range({ gt: 'now-1d/d', lte: 'now', format: 'strict_date', time_zone: '+01:00', boost: 2 })).toEqual({
      kind: 'range',
      field: 'age',
      gt: 'now-1d/d',
      lte: 'now',
      format: 'strict_date',
      timeZone: '+01:00',
      boost: 2,
    });
    expect(range({})).toEqual({ kind: 'range', field: 'age', boost: 1 });
  });

  it('turns the legacy from/to/include_lower/include_upper into gt/gte/lt/lte', () => {
    expect(range({ from: 1, to: 5 })).toEqual({ kind: 'range', field: 'age', gte: 1, lte: 5, boost: 1 });
    expect(range({ from: 1, to: 5, include_lower: false, include_upper: 'false' })).toMatchObject({ gt: 1, lt: 5 });
    expect(range({ include_lower: false, from: 1 })).toMatchObject({ gt: 1 });
  });

  it('lets the last bound given win, and reads null as no bound', () => {
    expect(range({ gt: 1, gte: 2 })).toEqual({ kind: 'range', field: 'age', gte: 2, boost: 1 });
    expect(range({ gte: 2, include_lower: false })).toEqual({ kind: 'range', field: 'age', gt: 2, boost: 1 });
    expect(range({ gte: null, lt: null })).toEqual({ kind: 'range', field: 'age', boost: 1 });
  });

  it('takes the default relation, intersects, in any case', () => {
    expect(range({ gte: 1, relation: 'INTERSECTS' })).toEqual({ kind: 'range', field: 'age', gte: 1, boost: 1 });
  });
});

describe('exists and ids', () => {
  it('exists names a field', () => {
    expect(parse({ exists: { field: 'user', boost: 0.5 } })).toEqual({ kind: 'exists', field: 'user', boost: 0.5 });
  });

  it('ids takes values as a set of strings', () => {
    expect(parse({ ids: { values: ['1', 2, '1'] } })).toEqual({ kind: 'ids', values: ['1', '2'], boost: 1 });
    expect(parse({ ids: { values: 'x', boost: 2 } })).toEqual({ kind: 'ids', values: ['x'], boost: 2 });
    expect(parse({ ids: {} })).toEqual({ kind: 'ids', values: [], boost: 1 });
  });
});

describe('prefix and wildcard', () => {
  it.each(['prefix', 'wildcard'] as const)('%s short and long forms', (kind) => {
    const expected = { kind, field: 'user', value: 'ki*', caseInsensitive: false, boost: 1 };
    expect(parse({ [kind]: { user: 'ki*' } })).toEqual(expected);
    expect(parse({ [kind]: { user: { value: 'ki*' } } })).toEqual(expected);
    expect(parse({ [kind]: { user: { value: 'ki*', case_insensitive: true, boost: 3 } } })).toEqual({ ...expected, caseInsensitive: true, boost: 3 });
  });

  it('wildcard also takes its pattern under `wildcard`', () => {
    expect(parse({ wildcard: { user: { wildcard: 'k?m*' } } })).toMatchObject({ kind: 'wildcard', value: 'k?m*' });
  });
});

describe('match', () => {
  const defaults = { kind: 'match', field: 'title', operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 };

  it('short form', () => {
    expect(parse({ match: { title: 'quick fox' } })).toEqual({ ...defaults, query: 'quick fox' });
    expect(parse({ match: { title: 7 } })).toEqual({ ...defaults, query: 7 });
  });

  it('long form with its options', () => {
    const options = { query: 'quick fox', operator: 'AND', minimum_should_match: '75%', zero_terms_query: 'ALL', lenient: true, boost: 2 };
    expect(parse({ match: { title: options } })).toEqual({
      ...defaults,
      query: 'quick fox',
      operator: 'and',
      minimumShouldMatch: '75%',
      zeroTermsQuery: 'all',
      lenient: true,
      boost: 2,
    });
    expect(parse({ match: { title: { query: 'x', minimum_should_match: 2, auto_generate_synonyms_phrase_query: false } } })).toEqual({
      ...defaults,
      query: 'x',
      minimumShouldMatch: '2',
    });
  });
});

describe('match_phrase', () => {
  const defaults = { kind: 'match_phrase', field: 'body', query: 'a b', slop: 0, zeroTermsQuery: 'none', boost: 1 };

  it('short and long forms', () => {
    expect(parse({ match_phrase: { body: 'a b' } })).toEqual(defaults);
    expect(parse({ match_phrase: { body: { query: 'a b', slop: 2, zero_terms_query: 'all', boost: 0.5 } } })).toEqual({
      ...defaults,
      slop: 2,
      zeroTermsQuery: 'all',
      boost: 0.5,
    });
  });
});

describe('multi_match', () => {
  const defaults = { kind: 'multi_match', query: 'fox', type: 'best_fields', tieBreaker: 0, operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 };

  it('reads field boosts and fills each type’s tie breaker', () => {
    expect(parse({ multi_match: { query: 'fox', fields: ['title^3', 'body', '*_name^0.5'] } })).toEqual({
      ...defaults,
      fields: [
        { field: 'title', boost: 3 },
        { field: 'body', boost: 1 },
        { field: '*_name', boost: 0.5 },
      ],
    });
    expect(parse({ multi_match: { query: 'fox', fields: 'title', type: 'most_fields' } })).toEqual({
      ...defaults,
      fields: [{ field: 'title', boost: 1 }],
      type: 'most_fields',
      tieBreaker: 1,
    });
  });

  it('takes its options', () => {
    const options = { query: 'fox', fields: ['a', 'a^2'], tie_breaker: 0.3, operator: 'and', minimum_should_match: '1', zero_terms_query: 'all', lenient: true, boost: 4 };
    expect(parse({ multi_match: options })).toEqual({
      ...defaults,
      fields: [{ field: 'a', boost: 2 }],
      tieBreaker: 0.3,
      operator: 'and',
      minimumShouldMatch: '1',
      zeroTermsQuery: 'all',
      lenient: true,
      boost: 4,
    });
  });

  it('is lenient unless told otherwise when it searches all fields', () => {
    expect(parse({ multi_match: { query: 'fox' } })).toEqual({ ...defaults, fields: [], lenient: true });
    expect(parse({ multi_match: { query: 'fox', fields: ['*'] } })).toMatchObject({ lenient: true });
    expect(parse({ multi_match: { query: 'fox', fields: ['*'], lenient: false } })).toMatchObject({ lenient: false });
  });
});

describe('bool', () => {
  const all: Query = { kind: 'match_all', boost: 1 };
  const user: Query = { kind: 'term', field: 'user', value: 'x', caseInsensitive: false, boost: 1 };
  const empty = { kind: 'bool', must: [], filter: [], should: [], mustNot: [], boost: 1 };

  it('takes each clause list as one object or an array', () => {
    expect(parse({ bool: {} })).toEqual(empty);
    expect(parse({ bool: { must: { match_all: {} }, filter: [{ term: { user: 'x' } }, { match_all: {} }] } })).toEqual({
      ...empty,
      must: [all],
      filter: [user, all],
    });
    expect(parse({ bool: { should: [], must_not: { term: { user: 'x' } }, boost: 2 } })).toEqual({ ...empty, mustNot: [user], boost: 2 });
    expect(parse({ bool: { mustNot: [{ match_all: {} }], must: null } })).toEqual({ ...empty, mustNot: [all] });
  });

  it('keeps minimum_should_match as text', () => {
    expect(parse({ bool: { should: { match_all: {} }, minimum_should_match: '3<90%' } })).toEqual({ ...empty, should: [all], minimumShouldMatch: '3<90%' });
    expect(parse({ bool: { minimum_should_match: -1 } })).toEqual({ ...empty, minimumShouldMatch: '-1' });
    expect(parse({ bool: { minimum_should_match: null } })).toEqual(empty);
  });

  it('takes adjust_pure_negative at its default', () => {
    expect(parse({ bool: { adjust_pure_negative: true } })).toEqual(empty);
  });
});

describe('constant_score and dis_max', () => {
  const all: Query = { kind: 'match_all', boost: 1 };

  it('constant_score wraps its filter', () => {
    expect(parse({ constant_score: { filter: { match_all: {} } } })).toEqual({ kind: 'constant_score', filter: all, boost: 1 });
    expect(parse({ constant_score: { filter: { match_all: {} }, boost: 1.2 } })).toEqual({ kind: 'constant_score', filter: all, boost: 1.2 });
  });

  it('dis_max takes one clause or an array, tie breaker 0 unless given', () => {
    expect(parse({ dis_max: { queries: { match_all: {} } } })).toEqual({ kind: 'dis_max', queries: [all], tieBreaker: 0, boost: 1 });
    expect(parse({ dis_max: { queries: [{ match_all: {} }, { match_none: {} }], tie_breaker: 0.7, boost: 2 } })).toEqual({
      kind: 'dis_max',
      queries: [all, { kind: 'match_none', boost: 1 }],
      tieBreaker: 0.7,
      boost: 2,
    });
  });
});

describe('malformed clauses', () => {
  it.each([
    ['foo', 'parsing_exception', 'Unknown key for a VALUE_STRING in [query].'],
    [['match_all'], 'parsing_exception', 'Unknown key for a START_ARRAY in [query].'],
    [null, 'parsing_exception', 'Unknown key for a VALUE_NULL in [query].'],
    [{}, 'illegal_argument_exception', 'query malformed, empty clause found'],
    [{ match: 'x' }, 'parsing_exception', '[match] query malformed, no start_object after query name'],
    [{ bogus: 1 }, 'parsing_exception', '[bogus] query malformed, no start_object after query name'],
    [{ match_all: {}, term: {} }, 'parsing_exception', '[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]'],
    [{ bogus: {} }, 'parsing_exception', 'unknown query [bogus]'],
    [{ boool: {} }, 'parsing_exception', 'unknown query [boool] did you mean [bool]?'],
    [{ match_: {} }, 'parsing_exception', 'unknown query [match_] did you mean any of [match, match_all, match_none]?'],
    [{ constructor: {} }, 'parsing_exception', 'unknown query [constructor]'],
  ])('%j is refused', (query, type, reason) => {
    expect(refusal(() => parse(query))).toEqual([400, type, reason]);
  });

  it('names the unknown query in its cause', () => {
    expect(failure(() => parse({ bogus: {} })).causedBy).toMatchObject({ type: 'named_object_not_found_exception', reason: 'unknown field [bogus]' });
  });

  it('refuses an ES query deeppage does not run yet', () => {
    expect(refusal(() => parse({ fuzzy: { user: 'ki' } }))).toEqual(notYet('[fuzzy] query'));
    expect(refusal(() => parse({ query_string: { query: 'x' } }))).toEqual(notYet('[query_string] query'));
  });

  it(`refuses queries nested more than ${MAX_NESTED_DEPTH} deep`, () => {
    const nest = (depth: number): unknown => (depth === 1 ? { match_all: {} } : { constant_score: { filter: nest(depth - 1) } });
    expect(parse(nest(MAX_NESTED_DEPTH))).toMatchObject({ kind: 'constant_score' });
    expect(refusal(() => parse(nest(MAX_NESTED_DEPTH + 1)))).toEqual([
      400,
      'illegal_argument_exception',
      'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]',
    ]);
  });

  it('wraps the depth error once per enclosing bool, as ES does', () => {
    const nest = (depth: number): unknown => (depth === 1 ? { match_all: {} } : { bool: { must: nest(depth - 1) } });
    const chain = causes(() => parse(nest(MAX_NESTED_DEPTH + 1)));
    expect(chain).toHaveLength(MAX_NESTED_DEPTH + 1);
    expect(chain[0]).toEqual([400, 'x_content_parse_exception', '[bool] failed to parse field [must]']);
    expect(chain[MAX_NESTED_DEPTH][1]).toBe('illegal_argument_exception');
  });
});

describe('query errors', () => {
  const IAE = 'illegal_argument_exception';
  const PE = 'parsing_exception';
  it.each([
    // term
    [{ term: { a: 'x', b: 'y' } }, PE, "[term] query doesn't support multiple fields, found [a] and [b]"],
    [{ term: { a: { value: 'x' }, b: { value: 'y' } } }, PE, "[term] query doesn't support multiple fields, found [a] and [b]"],
    [{ term: { user: { value: 'x', foo: 1 } } }, PE, '[term] query does not support [foo]'],
    [{ term: { user: ['a', 'b'] } }, PE, '[term] query does not support array of values'],
    [
      { term: { user: { value: ['a'] } } },
      PE,
      '[term] query does not support arrays for value - use a bool query with multiple term clauses in the should section or use a Terms query if scoring is not required',
    ],
    [{ term: { user: {} } }, IAE, 'value cannot be null'],
    [{ term: { user: { value: null } } }, IAE, 'value cannot be null'],
    [{ term: {} }, IAE, 'field name is null or empty'],
    [{ term: { user: null } }, IAE, 'field name is null or empty'],
    [{ term: { user: { value: 'x', boost: 'high' } } }, 'number_format_exception', 'For input string: "high"'],
    [{ term: { user: { value: 'x', boost: true } } }, 'x_content_parse_exception', '[term] failed to parse field [boost]'],
    [{ term: { user: { value: 'x', case_insensitive: 'yes' } } }, IAE, 'Failed to parse value [yes] as only [true] or [false] are allowed.'],
    // terms
    [{ terms: { user: ['a', null] } }, PE, 'No value specified for terms query'],
    [{ terms: { a: ['x'], b: ['y'] } }, PE, '[terms] query does not support multiple fields'],
    [{ terms: { a: ['x'], b: { index: 'i', id: '1', path: 'p' } } }, PE, '[terms] query does not support more than one field. Already got: [a] but also found [b]'],
    [{ terms: { a: ['x'], foo: 'y' } }, PE, '[terms] query does not support [foo]'],
    [{ terms: { a: null } }, PE, '[terms] unknown token [VALUE_NULL] after [a]'],
    [{ terms: { boost: 2 } }, PE, '[terms] query requires a field name, followed by array of terms or a document lookup specification'],
    // range
    [{ range: { a: { gt: 1 }, b: { lt: 2 } } }, PE, "[range] query doesn't support multiple fields, found [a] and [b]"],
    [{ range: { age: { gte: 1, foo: 2 } } }, PE, '[range] query does not support [foo]'],
    [{ range: { age: 5 } }, PE, '[range] query does not support [age]'],
    [{ range: {} }, IAE, 'field name is null or empty'],
    [{ range: { age: { gte: 1, relation: 'disjoint' } } }, IAE, '[range] query does not support relation [disjoint]'],
    [{ range: { age: { gte: 1, relation: 'near' } } }, IAE, 'near is not a valid relation'],
    // exists, ids
    [{ exists: {} }, PE, '[exists] must be provided with a [field]'],
    [{ exists: { field: 'a', foo: 1 } }, PE, '[exists] query does not support [foo]'],
    [{ exists: { field: { name: 'a' } } }, PE, '[exists] unknown token [START_OBJECT] after [field]'],
    [{ exists: { field: '' } }, IAE, 'field name is null or empty'],
    [{ ids: { foo: ['1'] } }, PE, '[ids] unknown field [foo]'],
    [{ ids: { value: ['1'] } }, PE, '[ids] unknown field [value] did you mean [values]?'],
    [{ ids: { values: 5 } }, PE, "[ids] values doesn't support values of type: VALUE_NUMBER"],
    [{ ids: { values: [null] } }, PE, '[ids] failed to parse field [values]'],
    // match_all, match_none
    [{ match_all: { foo: 1 } }, PE, '[match_all] unknown field [foo]'],
    [{ match_all: { name: 'x' } }, PE, '[match_all] unknown field [name] did you mean [_name]?'],
    [{ match_all: { boost: 'high' } }, PE, '[match_all] failed to parse field [boost]'],
    [{ match_all: { boost: {} } }, PE, "[match_all] boost doesn't support values of type: START_OBJECT"],
    [{ match_none: { foo: 1 } }, PE, '[match_none] query does not support [foo]'],
    // prefix, wildcard
    [{ prefix: { a: 'x', b: 'y' } }, PE, "[prefix] query doesn't support multiple fields, found [a] and [b]"],
    [{ prefix: { user: { value: 'x', foo: 1 } } }, PE, '[prefix] query does not support [foo]'],
    [{ prefix: { user: { case_insensitive: true } } }, IAE, 'value cannot be null'],
    [{ wildcard: { user: { value: 'x*', flags: 'ALL' } } }, PE, '[wildcard] query does not support [flags]'],
    [{ wildcard: { user: null } }, IAE, 'Expected text but found VALUE_NULL'],
    // match
    [{ match: { a: 'x', b: 'y' } }, PE, "[match] query doesn't support multiple fields, found [a] and [b]"],
    [{ match: { title: { query: 'x', foo: 1 } } }, PE, '[match] query does not support [foo]'],
    [{ match: { title: { query: 'x', zero_terms_query: 'some' } } }, PE, 'Unsupported zero_terms_query value [some]'],
    [{ match: { title: { operator: 'and' } } }, PE, 'No text specified for text query'],
    [{ match: { title: null } }, PE, 'No text specified for text query'],
    [{ match: {} }, PE, 'No text specified for text query'],
    [{ match: { title: { query: { text: 'x' } } } }, PE, '[match] unknown token [START_OBJECT] after [query]'],
    [{ match: { title: { query: 'x', operator: 'xor' } } }, IAE, 'No enum constant org.elasticsearch.index.query.Operator.XOR'],
    // match_phrase
    [{ match_phrase: { body: { query: 'a b', slop: -1 } } }, IAE, 'No negative slop allowed.'],
    [{ match_phrase: { body: { query: 'a b', operator: 'and' } } }, PE, '[match_phrase] query does not support [operator]'],
    [{ match_phrase: { body: { query: 'a', zero_terms_query: 'x' } } }, PE, 'Unsupported zero_terms_query value [x]'],
    [{ match_phrase: { body: null } }, IAE, '[match_phrase] requires query value'],
    [{ match_phrase: {} }, IAE, '[match_phrase] requires fieldName'],
    // multi_match
    [{ multi_match: { fields: ['a'] } }, PE, 'No text specified for multi_match query'],
    [{ multi_match: { query: 'x', foo: 1 } }, PE, '[multi_match] query does not support [foo]'],
    [{ multi_match: { query: 'x', fields: { a: 1 } } }, PE, '[multi_match] query does not support [fields]'],
    [{ multi_match: { query: 'x', fields: ['a^high'] } }, 'number_format_exception', 'For input string: "high"'],
    [{ multi_match: { query: 'x', type: 'best' } }, 'parse_exception', 'failed to parse [multi_match] query type [best]. unknown type.'],
    [{ multi_match: { query: 'x', zero_terms_query: 'x' } }, PE, 'Unsupported zero_terms_query value [x]'],
    // constant_score, dis_max
    [{ constant_score: { boost: 2 } }, PE, "[constant_score] requires a 'filter' element"],
    [{ constant_score: { filter: 'x' } }, PE, '[constant_score] query does not support [filter]'],
    [{ constant_score: { filter: [{ match_all: {} }] } }, PE, 'unexpected token [START_ARRAY]'],
    [{ constant_score: { filter: { match_all: {} }, query: { match_all: {} } } }, PE, '[constant_score] query does not support [query]'],
    [{ constant_score: { filter: {} } }, IAE, 'query malformed, empty clause found'],
    [{ dis_max: { tie_breaker: 0.5 } }, PE, "[dis_max] requires 'queries' field with at least one clause"],
    [{ dis_max: { queries: [] } }, PE, '[_na] query malformed, must start with start_object'],
    [{ dis_max: { queries: ['x'] } }, PE, '[_na] query malformed, must start with start_object'],
    [{ dis_max: { queries: [{ match_all: {} }], foo: 1 } }, PE, '[dis_max] query does not support [foo]'],
    // bool's own fields
    [{ bool: { foo: [] } }, 'x_content_parse_exception', '[bool] unknown field [foo]'],
    [{ bool: { mus: [] } }, 'x_content_parse_exception', '[bool] unknown field [mus] did you mean [must]?'],
    [{ bool: { must: 'x' } }, 'x_content_parse_exception', "[bool] must doesn't support values of type: VALUE_STRING"],
    [{ bool: { minimum_should_match: [1] } }, 'x_content_parse_exception', "[bool] minimum_should_match doesn't support values of type: START_ARRAY"],
  ])('%j is refused', (query, type, reason) => {
    expect(refusal(() => parse(query))).toEqual([400, type, reason]);
  });

  it('refuses what deeppage does not run yet', () => {
    const refused: [unknown, string][] = [
      [{ match: { title: { query: 'x', analyzer: 'standard' } } }, '[match] parameter [analyzer]'],
      [{ match: { title: { query: 'x', fuzziness: 'AUTO' } } }, '[match] parameter [fuzziness]'],
      [{ match: { title: { query: 'x', prefix_length: 0 } } }, '[match] parameter [prefix_length]'],
      [{ match_phrase: { title: { query: 'x', analyzer: 'standard' } } }, '[match_phrase] parameter [analyzer]'],
      [{ multi_match: { query: 'x', type: 'phrase' } }, '[multi_match] type [phrase]'],
      [{ multi_match: { query: 'x', type: 'cross_fields' } }, '[multi_match] type [cross_fields]'],
      [{ multi_match: { query: 'x', fuzziness: 1 } }, '[multi_match] parameter [fuzziness]'],
      [{ multi_match: { query: 'x', slop: 1 } }, '[multi_match] parameter [slop]'],
      [{ prefix: { user: { value: 'x', rewrite: 'constant_score' } } }, '[prefix] parameter [rewrite]'],
      [{ wildcard: { user: { value: 'x', rewrite: 'top_terms_10' } } }, '[wildcard] parameter [rewrite]'],
      [{ range: { age: { gte: 1, relation: 'WITHIN' } } }, '[range] relation [WITHIN]'],
      [{ range: { age: { gte: 1, relation: 'contains' } } }, '[range] relation [contains]'],
      [{ terms: { user: { index: 'users', id: '2', path: 'followers' } } }, '[terms] lookup'],
      [{ bool: { adjust_pure_negative: false } }, '[bool] parameter [adjust_pure_negative: false]'],
    ];
    for (const [query, what] of refused) expect(refusal(() => parse(query)), JSON.stringify(query)).toEqual(notYet(what));
  });

  it.each([
    [{ match_all: { _name: 'n' } }],
    [{ match_none: { _name: 'n' } }],
    [{ term: { user: { value: 'x', _name: 'n' } } }],
    [{ terms: { user: ['x'], _name: 'n' } }],
    [{ range: { age: { gte: 1, _name: 'n' } } }],
    [{ exists: { field: 'user', _name: 'n' } }],
    [{ ids: { values: ['1'], _name: 'n' } }],
    [{ prefix: { user: { value: 'x', _name: 'n' } } }],
    [{ wildcard: { user: { value: 'x', _name: 'n' } } }],
    [{ match: { title: { query: 'x', _name: 'n' } } }],
    [{ match_phrase: { title: { query: 'x', _name: 'n' } } }],
    [{ multi_match: { query: 'x', _name: 'n' } }],
    [{ bool: { _name: 'n' } }],
    [{ constant_score: { filter: { match_all: {} }, _name: 'n' } }],
    [{ dis_max: { queries: [{ match_all: {} }], _name: 'n' } }],
  ])('refuses the named query %j', (query) => {
    expect(refusal(() => parse(query))).toEqual(notYet('[_name] (named queries)'));
  });
});

describe('boost', () => {
  const deboost = 'use a value between 0 and 1 to deboost';

  it('refuses a negative boost, printing the query as ES does with its boost at 1.0', () => {
    const printed = '{\n  "term" : {\n    "user" : {\n      "value" : "x",\n      "boost" : 1.0\n    }\n  }\n}';
    expect(refusal(() => parse({ term: { user: { value: 'x', boost: -1 } } }))).toEqual([
      400,
      'illegal_argument_exception',
      `negative [boost] are not allowed in [${printed}], ${deboost}`,
    ]);
    const filter = '{\n  "constant_score" : {\n    "filter" : {\n      "match_all" : { }\n    },\n    "boost" : 1.0\n  }\n}';
    expect(refusal(() => parse({ constant_score: { filter: { match_all: {} }, boost: '-2' } }))[2]).toBe(`negative [boost] are not allowed in [${filter}], ${deboost}`);
  });

  it.each([
    [{ match_none: { boost: -0 } }],
    [{ terms: { user: ['a'], boost: -1 } }],
    [{ range: { age: { gte: 1, boost: -1 } } }],
    [{ exists: { field: 'a', boost: -1 } }],
    [{ prefix: { user: { value: 'x', boost: -1 } } }],
    [{ wildcard: { user: { value: 'x', boost: -1 } } }],
    [{ match: { title: { query: 'x', boost: -1 } } }],
    [{ match_phrase: { title: { query: 'x', boost: -1 } } }],
    [{ multi_match: { query: 'x', boost: -1 } }],
    [{ dis_max: { queries: { match_all: {} }, boost: -1 } }],
  ])('refuses the negative boost in %j', (query) => {
    const [status, type, reason] = refusal(() => parse(query));
    expect([status, type]).toEqual([400, 'illegal_argument_exception']);
    expect(reason).toMatch(/^negative \[boost\] are not allowed in \[\{\n[^]*\}\], use a value between 0 and 1 to deboost$/);
  });

  it('wraps the refusal where ES reads boost with its ObjectParser', () => {
    expect(causes(() => parse({ bool: { boost: -1 } })).map(([, type]) => type)).toEqual(['x_content_parse_exception', 'illegal_argument_exception']);
    expect(causes(() => parse({ bool: { boost: -1 } }))[0][2]).toBe('[bool] failed to parse field [boost]');
    expect(causes(() => parse({ match_all: { boost: -1 } })).map(([, type]) => type)).toEqual([
      'parsing_exception',
      'x_content_parse_exception',
      'illegal_argument_exception',
    ]);
    expect(causes(() => parse({ ids: { boost: 'x' } }))).toEqual([
      [400, 'parsing_exception', '[ids] failed to parse field [boost]'],
      [400, 'x_content_parse_exception', '[ids] failed to parse field [boost]'],
      [400, 'number_format_exception', 'For input string: "x"'],
    ]);
  });
});

describe('errors inside a bool clause', () => {
  const wrapped = (field: string, type: string, reason: string) => [
    [400, 'x_content_parse_exception', `[bool] failed to parse field [${field}]`],
    [400, type, reason],
  ];

  it.each<[Record<string, unknown>, string, string, string]>([
    [{ must: [{ match_all: {} }, { bogus: {} }] }, 'must', 'parsing_exception', 'unknown query [bogus]'],
    [{ filter: { term: { a: 'x', b: 'y' } } }, 'filter', 'parsing_exception', "[term] query doesn't support multiple fields, found [a] and [b]"],
    [{ should: [null] }, 'should', 'parsing_exception', '[_na] query malformed, must start with start_object'],
    [{ must: ['x'] }, 'must', 'parsing_exception', '[_na] query malformed, must start with start_object'],
    [{ must: [[{ match_all: {} }]] }, 'must', 'illegal_state_exception', 'expected value but got [START_ARRAY]'],
    [{ must: {} }, 'must', 'illegal_argument_exception', 'query malformed, empty clause found'],
    [{ filter: { fuzzy: { a: 'x' } } }, 'filter', 'illegal_argument_exception', '[fuzzy] query is not supported by deeppage yet'],
  ])('%j', (body, field, type, reason) => {
    expect(causes(() => parse({ bool: body })).slice(0, 2)).toEqual(wrapped(field, type, reason));
  });

  it('wraps once per bool level', () => {
    expect(causes(() => parse({ bool: { should: { bool: { must: { term: {} } } } } }))).toEqual([
      [400, 'x_content_parse_exception', '[bool] failed to parse field [should]'],
      [400, 'x_content_parse_exception', '[bool] failed to parse field [must]'],
      [400, 'illegal_argument_exception', 'field name is null or empty'],
    ]);
  });

  it('passes errors inside constant_score and dis_max through unwrapped', () => {
    expect(refusal(() => parse({ constant_score: { filter: { bogus: {} } } }))).toEqual([400, 'parsing_exception', 'unknown query [bogus]']);
    expect(refusal(() => parse({ dis_max: { queries: [{ term: {} }] } }))).toEqual([400, 'illegal_argument_exception', 'field name is null or empty']);
  });
});

// Property tests: the parser against a serializer of the tree it produces, and against any JSON.

const fieldName = fc.stringMatching(/^[a-z][a-z0-9_.]{0,6}$/).filter((f) => f !== 'boost');
const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));
const queryValue: fc.Arbitrary<QueryValue> = fc.oneof(fc.string(), fc.integer(), finite, fc.boolean());
const boost = fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1e6, noNaN: true }).map((x) => (x === 0 ? 0 : x)));
const msm = fc.option(fc.stringMatching(/^-?\d{1,2}%?$/), { nil: undefined });
const zeroTerms = fc.constantFrom('none' as const, 'all' as const);
const operatorName = fc.constantFrom('or' as const, 'and' as const);
const withMsm = <T extends object>(q: T, m: string | undefined): T => (m === undefined ? q : { ...q, minimumShouldMatch: m });

const leaf: fc.Arbitrary<Query> = fc.oneof(
  fc.record({ kind: fc.constantFrom('match_all' as const, 'match_none' as const), boost }),
  fc.record({ kind: fc.constant('term' as const), field: fieldName, value: queryValue, caseInsensitive: fc.boolean(), boost }),
  fc.record({ kind: fc.constant('terms' as const), field: fieldName, values: fc.array(queryValue, { maxLength: 4 }), boost }),
  fc
    .record({ field: fieldName, lower: fc.option(fc.tuple(fc.boolean(), queryValue)), upper: fc.option(fc.tuple(fc.boolean(), queryValue)), boost })
    .map(({ field, lower, upper, boost }) => ({
      kind: 'range' as const,
      field,
      ...(lower && { [lower[0] ? 'gte' : 'gt']: lower[1] }),
      ...(upper && { [upper[0] ? 'lte' : 'lt']: upper[1] }),
      boost,
    })),
  fc.record({ kind: fc.constant('exists' as const), field: fieldName, boost }),
  fc.record({ kind: fc.constant('ids' as const), values: fc.uniqueArray(fc.string(), { maxLength: 4 }), boost }),
  fc.record({ kind: fc.constantFrom('prefix' as const, 'wildcard' as const), field: fieldName, value: fc.string(), caseInsensitive: fc.boolean(), boost }),
  fc
    .tuple(
      fc.record({ kind: fc.constant('match' as const), field: fieldName, query: queryValue, operator: operatorName, zeroTermsQuery: zeroTerms, lenient: fc.boolean(), boost }),
      msm,
    )
    .map(([q, m]) => withMsm(q, m)),
  fc.record({ kind: fc.constant('match_phrase' as const), field: fieldName, query: queryValue, slop: fc.nat(10), zeroTermsQuery: zeroTerms, boost }),
  fc
    .tuple(
      fc.record({
        kind: fc.constant('multi_match' as const),
        query: queryValue,
        fields: fc.uniqueArray(fc.record({ field: fieldName, boost }), { maxLength: 3, selector: (f) => f.field }),
        type: fc.constantFrom('best_fields' as const, 'most_fields' as const),
        tieBreaker: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => (x === 0 ? 0 : x)),
        operator: operatorName,
        zeroTermsQuery: zeroTerms,
        lenient: fc.boolean(),
        boost,
      }),
      msm,
    )
    .map(([q, m]) => withMsm(q, m)),
);

const { tree } = fc.letrec<{ tree: Query }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, leaf, tie('bool'), tie('constant'), tie('dismax')) as fc.Arbitrary<Query>,
  bool: fc
    .tuple(
      fc.record({
        kind: fc.constant('bool' as const),
        must: fc.array(tie('tree'), { maxLength: 2 }),
        filter: fc.array(tie('tree'), { maxLength: 2 }),
        should: fc.array(tie('tree'), { maxLength: 2 }),
        mustNot: fc.array(tie('tree'), { maxLength: 2 }),
        boost,
      }),
      msm,
    )
    .map(([q, m]) => withMsm(q, m)) as fc.Arbitrary<Query>,
  constant: fc.record({ kind: fc.constant('constant_score' as const), filter: tie('tree'), boost }) as fc.Arbitrary<Query>,
  dismax: fc.record({
    kind: fc.constant('dis_max' as const),
    queries: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
    tieBreaker: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => (x === 0 ? 0 : x)),
    boost,
  }) as fc.Arbitrary<Query>,
}));

/**
 * The DSL for a tree. `short` writes the short forms where they can say it, leaves out the options
 * at their defaults and gives single clauses as objects; otherwise every option is spelled out.
 */
function toDsl(q: Query, short: boolean): unknown {
  const opt = <T>(value: T, fallback: T) => (short && value === fallback ? undefined : value);
  const clauses = (list: Query[]) => (short && list.length === 0 ? undefined : short && list.length === 1 ? toDsl(list[0], short) : list.map((c) => toDsl(c, short)));
  const spell = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  switch (q.kind) {
    case 'match_all':
    case 'match_none':
      return { [q.kind]: spell({ boost: opt(q.boost, 1) }) };
    case 'term':
    case 'prefix':
    case 'wildcard':
      if (short && q.boost === 1 && !q.caseInsensitive) return { [q.kind]: { [q.field]: q.value } };
      return { [q.kind]: { [q.field]: spell({ value: q.value, case_insensitive: opt(q.caseInsensitive, false), boost: opt(q.boost, 1) }) } };
    case 'terms':
      return { terms: spell({ [q.field]: q.values, boost: opt(q.boost, 1) }) };
    case 'range':
      return { range: { [q.field]: spell({ gt: q.gt, gte: q.gte, lt: q.lt, lte: q.lte, boost: opt(q.boost, 1) }) } };
    case 'exists':
      return { exists: spell({ field: q.field, boost: opt(q.boost, 1) }) };
    case 'ids':
      return { ids: spell({ values: q.values, boost: opt(q.boost, 1) }) };
    case 'match':
      if (short && q.operator === 'or' && q.zeroTermsQuery === 'none' && !q.lenient && q.boost === 1 && q.minimumShouldMatch === undefined) {
        return { match: { [q.field]: q.query } };
      }
      return {
        match: {
          [q.field]: spell({
            query: q.query,
            operator: opt(q.operator, 'or'),
            minimum_should_match: q.minimumShouldMatch,
            zero_terms_query: opt(q.zeroTermsQuery, 'none'),
            lenient: opt(q.lenient, false),
            boost: opt(q.boost, 1),
          }),
        },
      };
    case 'match_phrase':
      if (short && q.slop === 0 && q.zeroTermsQuery === 'none' && q.boost === 1) return { match_phrase: { [q.field]: q.query } };
      return { match_phrase: { [q.field]: spell({ query: q.query, slop: opt(q.slop, 0), zero_terms_query: opt(q.zeroTermsQuery, 'none'), boost: opt(q.boost, 1) }) } };
    case 'multi_match':
      return {
        multi_match: spell({
          query: q.query,
          fields: short && q.fields.length === 0 ? undefined : q.fields.map((f) => (short && f.boost === 1 ? f.field : `${f.field}^${f.boost}`)),
          type: opt(q.type, 'best_fields'),
          tie_breaker: opt(q.tieBreaker, q.type === 'best_fields' ? 0 : 1),
          operator: opt(q.operator, 'or'),
          minimum_should_match: q.minimumShouldMatch,
          zero_terms_query: opt(q.zeroTermsQuery, 'none'),
          lenient: opt(q.lenient, q.fields.length === 0 || q.fields.some((f) => f.field === '*')),
          boost: opt(q.boost, 1),
        }),
      };
    case 'bool':
      return {
        bool: spell({
          must: clauses(q.must),
          filter: clauses(q.filter),
          should: clauses(q.should),
          must_not: clauses(q.mustNot),
          minimum_should_match: q.minimumShouldMatch,
          boost: opt(q.boost, 1),
        }),
      };
    case 'constant_score':
      return { constant_score: spell({ filter: toDsl(q.filter, short), boost: opt(q.boost, 1) }) };
    case 'dis_max':
      return { dis_max: spell({ queries: clauses(q.queries), tie_breaker: opt(q.tieBreaker, 0), boost: opt(q.boost, 1) }) };
    case 'query_string':
      throw new Error('not a DSL query');
  }
}

describe('properties', () => {
  it('parses the DSL of any tree, short or long, back to the same tree', () => {
    fc.assert(
      fc.property(tree, fc.boolean(), (query, short) => {
        expect(parse(JSON.parse(JSON.stringify(toDsl(query, short))))).toEqual(query);
      }),
      { numRuns: 500 },
    );
  });

  /** Query-shaped JSON: known and unknown query names over bodies of real and stray options. */
  const names = fc.constantFrom('match_all', 'match_none', 'term', 'terms', 'range', 'exists', 'ids', 'prefix', 'wildcard', 'bool', 'match', 'match_phrase', 'multi_match', 'constant_score', 'dis_max', 'fuzzy', 'bogus');
  const options = fc.constantFrom(
    'boost', '_name', 'value', 'query', 'field', 'fields', 'values', 'must', 'filter', 'should', 'must_not', 'minimum_should_match', 'operator',
    'zero_terms_query', 'slop', 'tie_breaker', 'type', 'gt', 'gte', 'from', 'include_lower', 'relation', 'case_insensitive', 'lenient', 'queries',
    'adjust_pure_negative', 'f', 'g', 'analyzer', 'rewrite',
  );
  const { clause } = fc.letrec<{ clause: Record<string, unknown> }>((tie) => ({
    clause: fc.dictionary(names, tie('body'), { maxKeys: 2 }) as fc.Arbitrary<Record<string, unknown>>,
    body: fc.oneof({ depthSize: 'small' }, fc.dictionary(options, tie('value'), { maxKeys: 4 }), fc.jsonValue({ maxDepth: 2 })),
    value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), tie('clause'), fc.array(tie('clause'), { maxLength: 3 }), tie('body')),
  }));

  it('never throws anything but a 4xx EsError, with 4xx causes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), clause), (value) => {
        try {
          parse(value);
        } catch (e) {
          expect(e).toBeInstanceOf(EsError);
          for (let cause: EsError | undefined = e as EsError; cause; cause = cause.causedBy) {
            expect(cause.status).toBeGreaterThanOrEqual(400);
            expect(cause.status).toBeLessThan(500);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
