/**
 * `_source` filters have one home (src/engine/request/search-source.ts), read as ES reads a
 * fetch-source context: from URI parameters, from a body, and from an `_mget` doc. Properties hold
 * the three to one another where ES reads them alike, and ES's cases pin where they differ.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceFromBody, sourceFromMgetDoc, sourceFromParams } from '../../../src/engine/request/search-source.ts';
import { refusal } from './failure.ts';

/** A pattern as a URI list can carry it: no comma, not empty. */
const pattern = fc.stringMatching(/^[a-z.*_]{1,8}$/);
const patterns = fc.array(pattern, { minLength: 1, maxLength: 4 });
const WHOLE = { includes: [], excludes: [] };

describe('the three readers agree where ES reads alike', () => {
  it('lists of patterns: URI parameters, a body and an _mget doc give one filter', () => {
    fc.assert(
      fc.property(patterns, patterns, (includes, excludes) => {
        const filter = { includes, excludes };
        expect(sourceFromParams({ _source_includes: includes.join(','), _source_excludes: excludes.join(',') })).toEqual(filter);
        expect(sourceFromBody({ includes, excludes })).toEqual(filter);
        expect(sourceFromMgetDoc({ includes, excludes })).toEqual(filter);
        expect(sourceFromBody({ include: includes, exclude: excludes })).toEqual(filter);
        expect(sourceFromParams({ _source: includes.join(',') })).toEqual(sourceFromBody(includes));
        expect(sourceFromMgetDoc(includes)).toEqual(sourceFromBody(includes));
      }),
    );
  });

  it('booleans: true is the whole source, false none', () => {
    for (const [given, expected] of [[true, WHOLE], [false, false]] as const) {
      expect(sourceFromParams({ _source: String(given) })).toEqual(expected);
      expect(sourceFromBody(given)).toEqual(expected);
      expect(sourceFromMgetDoc(given)).toEqual(expected);
    }
  });
});

describe('where ES reads them differently', () => {
  it('URI: false wins over any list; none given is undefined', () => {
    expect(sourceFromParams({})).toBeUndefined();
    expect(sourceFromParams({ _source: 'false', _source_includes: 'a' })).toBe(false);
    expect(sourceFromParams({ _source: 'a', _source_includes: 'b' })).toEqual({ includes: ['b'], excludes: [] });
  });

  it('body (FetchSourceContext.fromXContent): each key replaces its list, the strings "true"/"false" are patterns, and only strings are', () => {
    expect(sourceFromBody({ include: ['a'], includes: ['b'] })).toEqual({ includes: ['b'], excludes: [] });
    expect(sourceFromBody('true')).toEqual({ includes: ['true'], excludes: [] });
    expect(refusal(() => sourceFromBody(['a', 1]))).toEqual([400, 'parsing_exception', 'Unknown key for a VALUE_NUMBER in [_source].']);
    expect(refusal(() => sourceFromBody({ fields: ['a'] }))).toEqual([400, 'parsing_exception', 'Unknown key for a START_ARRAY in [fields].']);
  });

  it('_mget doc (MultiGetRequest): "true"/"false" are booleans, the spellings add up, values are read as text, its own errors', () => {
    expect(sourceFromMgetDoc('false')).toBe(false);
    expect(sourceFromMgetDoc({ include: ['a'], includes: 'b', exclude: 1 })).toEqual({ includes: ['a', 'b'], excludes: ['1'] });
    expect(sourceFromMgetDoc(['a', 1, true])).toEqual({ includes: ['a', '1', 'true'], excludes: [] });
    expect(refusal(() => sourceFromMgetDoc(1))).toEqual([400, 'parse_exception', 'illegal type for _source: [VALUE_NUMBER]']);
    expect(refusal(() => sourceFromMgetDoc({ fields: 'a' }))).toEqual([400, 'parse_exception', 'source definition may not contain [fields]']);
    expect(refusal(() => sourceFromMgetDoc({ includes: [{}] }))).toEqual([400, 'parse_exception', 'unexpected token while parsing source settings']);
  });
});
