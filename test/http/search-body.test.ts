import { describe, expect, it } from 'vitest';
import { parseSearchRequest } from '../../src/http/search-params.ts';
import { refusal } from './failure.ts';

const parse = (query: Record<string, string | undefined>, body?: unknown) => parseSearchRequest(query, body);
const everything = { includes: [], excludes: [] };

describe('query', () => {
  it('is match_all when absent or given, with or without boost and _name', () => {
    expect(parse({}, {}).query).toEqual({ kind: 'match_all' });
    expect(parse({}, { query: { match_all: {} } }).query).toEqual({ kind: 'match_all' });
    expect(parse({}, { query: { match_all: { boost: 1.5, _name: 'all' } } }).query).toEqual({ kind: 'match_all' });
    expect(parse({}, { query: { match_all: { boost: '2' } } }).query).toEqual({ kind: 'match_all' });
  });

  it.each([['term'], ['match'], ['terms'], ['range'], ['bool'], ['no_such_query']])('refuses %s as an unknown query', (name) => {
    expect(refusal(() => parse({}, { query: { [name]: { field: 'x' } } }))).toEqual([400, 'parsing_exception', `unknown query [${name}]`]);
  });

  it.each([
    ['match_all', '[_na] query malformed, must start with start_object'],
    [['match_all'], '[_na] query malformed, must start with start_object'],
    [null, '[_na] query malformed, must start with start_object'],
    [{}, 'query malformed, empty clause found'],
    [{ match_all: 1 }, '[match_all] query malformed, no start_object after query name'],
    [{ term: 'x' }, '[term] query malformed, no start_object after query name'],
    [{ match_all: {}, term: {} }, '[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]'],
    [{ match_all: { foo: 1 } }, '[match_all] query does not support [foo]'],
  ])('refuses the malformed query %j', (query, reason) => {
    expect(refusal(() => parse({}, { query }))).toEqual([400, 'parsing_exception', reason]);
  });

  it('refuses a boost that is not a number', () => {
    const query = { match_all: { boost: 'high' } };
    expect(refusal(() => parse({}, { query }))).toEqual([400, 'x_content_parse_exception', '[match_all] failed to parse field [boost]']);
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
