import { describe, expect, it } from 'vitest';
import { parseSearchRequest } from '../../../src/engine/request/search-params.ts';
import { refusal } from './failure.ts';

const parse = (query: Record<string, string | undefined>, body?: unknown) => parseSearchRequest(query, body);
const everything = { includes: [], excludes: [] };

describe('query', () => {
  // The DSL itself is tested in query-dsl.test.ts and q= in query-string.test.ts; here, how a search takes them.
  it('is match_all when absent or given, with its boost', () => {
    expect(parse({}, {}).query).toEqual({ kind: 'match_all', boost: 1 });
    expect(parse({}, { query: { match_all: {} } }).query).toEqual({ kind: 'match_all', boost: 1 });
    expect(parse({}, { query: { match_all: { boost: 1.5 } } }).query).toEqual({ kind: 'match_all', boost: 1.5 });
  });

  it('takes the query DSL from the body', () => {
    expect(parse({}, { query: { term: { country: 'FR' } } }).query).toEqual({ kind: 'term', field: 'country', value: 'FR', caseInsensitive: false, boost: 1 });
    expect(refusal(() => parse({}, { query: { no_such_query: {} } }))).toEqual([400, 'parsing_exception', 'unknown query [no_such_query]']);
  });

  it('takes q= with df, default_operator and lenient, over the body', () => {
    const query = parse({ q: 'paris', df: 'name', default_operator: 'and', lenient: 'true' }, { query: { match_all: {} } }).query;
    expect(query).toMatchObject({ kind: 'query_string', text: 'paris', defaultFields: ['name'], defaultOperator: 'and', lenient: true });
    expect(refusal(() => parse({ df: 'name', lenient: 'true' }))).toEqual([400, 'illegal_argument_exception', "request [/_search] contains parameters [df, lenient] but missing query string parameter 'q'."]);
    expect(refusal(() => parse({ q: 'a', default_operator: 'xor' }))).toEqual([400, 'illegal_argument_exception', 'operator needs to be either [AND, OR], but not [xor]']);
  });
});

describe('_source', () => {
  it.each([
    [{ _source: 'false' }, false],
    [{ _source: 'true' }, everything],
    [{ _source: 'title,author.*' }, { includes: ['title', 'author.*'], excludes: [] }],
    [{ _source_includes: 'a,b' }, { includes: ['a', 'b'], excludes: [] }],
    [{ _source_excludes: 'secret' }, { includes: [], excludes: ['secret'] }],
    [{ _source: 'a', _source_includes: 'b', _source_excludes: 'c' }, { includes: ['b'], excludes: ['c'] }],
    [{ _source: 'true', _source_excludes: 'c' }, { includes: [], excludes: ['c'] }],
    [{ _source: 'false', _source_includes: 'b' }, false],
  ])('URI %j filters %j', (query, expected) => {
    expect(parse(query).source).toEqual(expected);
  });

  it.each([
    [false, false],
    [true, everything],
    ['title', { includes: ['title'], excludes: [] }],
    [['a', 'b.*'], { includes: ['a', 'b.*'], excludes: [] }],
    [{ includes: ['a'], excludes: 'b' }, { includes: ['a'], excludes: ['b'] }],
    [{ include: 'a', exclude: ['b', 'c'] }, { includes: ['a'], excludes: ['b', 'c'] }],
    [{}, everything],
  ])('body %j filters %j', (source, expected) => {
    expect(parse({}, { _source: source }).source).toEqual(expected);
  });

  it('takes the URI form over the body', () => {
    expect(parse({ _source_includes: 'b' }, { _source: false }).source).toEqual({ includes: ['b'], excludes: [] });
    expect(parse({ size: '1' }, { _source: false }).source).toBe(false);
  });

  it.each([
    [1, 'Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [VALUE_NUMBER]'],
    [null, 'Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [VALUE_NULL]'],
    [['a', 1], 'Unknown key for a VALUE_NUMBER in [_source].'],
    [{ fields: ['a'] }, 'Unknown key for a START_ARRAY in [fields].'],
    [{ includes: true }, 'Unknown key for a VALUE_BOOLEAN in [includes].'],
    [{ excludes: [{}] }, 'Unknown key for a START_OBJECT in [excludes].'],
  ])('refuses body %j', (source, reason) => {
    expect(refusal(() => parse({}, { _source: source }))).toEqual([400, 'parsing_exception', reason]);
  });
});
