import { describe, expect, it } from 'vitest';
import { filterPath } from '../../src/http/filter-path.ts';

const response = {
  took: 3,
  _shards: { total: 5, failed: 0 },
  hits: { total: { value: 2, relation: 'eq' }, hits: [{ _id: 'a', _source: { n: 1, m: 2 } }, { _id: 'b', _source: { n: 3 } }] },
};

describe('filter_path', () => {
  it('keeps named paths, through arrays', () => {
    expect(filterPath(response, 'took,hits.hits._id')).toEqual({ took: 3, hits: { hits: [{ _id: 'a' }, { _id: 'b' }] } });
  });
  it('matches * within a name and ** across levels', () => {
    expect(filterPath(response, 'hits.total.v*')).toEqual({ hits: { total: { value: 2 } } });
    expect(filterPath(response, '**.n')).toEqual({ hits: { hits: [{ _source: { n: 1 } }, { _source: { n: 3 } }] } });
  });
  it('excludes paths with a leading -', () => {
    expect(filterPath(response, '-hits,-_shards')).toEqual({ took: 3 });
    expect(filterPath(response, 'hits.hits,-hits.hits._source.m')).toEqual({ hits: { hits: [{ _id: 'a', _source: { n: 1 } }, { _id: 'b', _source: { n: 3 } }] } });
  });
  it('gives an empty object when nothing matches', () => {
    expect(filterPath(response, 'nothing')).toEqual({});
  });
});
