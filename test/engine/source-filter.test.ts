import { describe, expect, it } from 'vitest';
import { filterSource } from '../../src/engine/search/source-filter.ts';

const source = { title: 'Dune', meta: { year: 1965, tags: ['sf'] }, authors: [{ name: 'Herbert', born: 1920 }, { name: 'Anon' }], 'a.b': 1 };
const filter = (includes: string[], excludes: string[] = []) => filterSource(source, { includes, excludes });

describe('_source filtering', () => {
  it('keeps everything without patterns', () => {
    expect(filter([])).toBe(source);
  });
  it('keeps named paths and whole objects', () => {
    expect(filter(['title', 'meta'])).toEqual({ title: 'Dune', meta: source.meta });
    expect(filter(['meta.year'])).toEqual({ meta: { year: 1965 } });
  });
  it('looks through arrays of objects', () => {
    expect(filter(['authors.name'])).toEqual({ authors: [{ name: 'Herbert' }, { name: 'Anon' }] });
    expect(filter([], ['authors.born'])).toEqual({ ...source, authors: [{ name: 'Herbert' }, { name: 'Anon' }] });
  });
  it('matches * wildcards, and regex characters literally', () => {
    expect(filter(['meta.*'])).toEqual({ meta: source.meta });
    expect(filter(['*', ], ['meta', 'authors'])).toEqual({ title: 'Dune', 'a.b': 1 });
    expect(filter(['t.tle'])).toEqual({});
  });
  it('matches many-star patterns without backtracking (a regular expression per pattern once took minutes)', () => {
    const long = { ['a'.repeat(60)]: 1, b: 2 };
    expect(filterSource(long, { includes: [`${'*a'.repeat(30)}*b`], excludes: [] })).toEqual({});
    expect(filterSource(long, { includes: ['*'], excludes: [`${'*a'.repeat(30)}*`] })).toEqual({ b: 2 });
  });
});
