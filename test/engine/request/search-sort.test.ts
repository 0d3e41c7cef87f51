import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SortClause } from '../../../src/engine/search/request.ts';
import { parseSearchRequest } from '../../../src/engine/request/search-params.ts';
import { failure, refusal } from './failure.ts';

const uriSort = (sort: string) => parseSearchRequest({ sort }, undefined).sort;
const bodySort = (sort: unknown) => parseSearchRequest({}, { sort }).sort;
const field = (name: string, order: 'asc' | 'desc' = 'asc', extra: object = {}): SortClause => ({
  kind: 'field',
  field: name,
  order,
  missing: '_last',
  ...extra,
});

describe('URI sort', () => {
  it('reads field:order pairs, _score and _doc, with their default orders', () => {
    expect(uriSort('price:desc,name:asc,_score,plain,_doc,_score:asc')).toEqual([
      field('price', 'desc'),
      field('name'),
      { kind: 'score', order: 'desc' },
      field('plain'),
      { kind: 'doc', order: 'asc' },
      { kind: 'score', order: 'asc' },
    ]);
  });

  it('splits the order off at the last colon', () => {
    expect(uriSort('a:b:desc')).toEqual([field('a:b', 'desc')]);
  });

  it('adds no clause for any other suffix, as ES does', () => {
    expect(uriSort('price:DESC,name:up,other:,kept:asc')).toEqual([field('kept')]);
  });

  it('splits like Java: trailing empty items vanish, an empty URI sort adds nothing', () => {
    expect(uriSort('a,b,,')).toEqual([field('a'), field('b')]);
    expect(uriSort('')).toEqual([]);
  });

  it('appends to the body sort, as ES applies URI clauses after the body', () => {
    expect(parseSearchRequest({ sort: 'b:desc' }, { sort: ['a'] }).sort).toEqual([field('a'), field('b', 'desc')]);
  });

  it('matches the rule for any list of clauses (property)', () => {
    const name = fc.string({ unit: fc.constantFrom(...'abz_.-*ü9'), minLength: 1, maxLength: 6 });
    const suffix = fc.constantFrom(undefined, 'asc', 'desc', 'ASC', 'up', '');
    fc.assert(
      fc.property(fc.array(fc.tuple(name, suffix), { maxLength: 6 }), (items) => {
        const text = items.map(([n, s]) => (s === undefined ? n : `${n}:${s}`)).join(',');
        const expected = items.flatMap(([n, s]): SortClause[] => {
          if (s !== undefined && s !== 'asc' && s !== 'desc') return [];
          if (n === '_score') return [{ kind: 'score', order: s ?? 'desc' }];
          if (n === '_doc') return [{ kind: 'doc', order: s ?? 'asc' }];
          return [field(n, s)];
        });
        expect(uriSort(text)).toEqual(expected);
      }),
    );
  });
});

describe('body sort', () => {
  it('takes a name, an object or an array of both', () => {
    expect(bodySort('price')).toEqual([field('price')]);
    expect(bodySort({ price: 'desc' })).toEqual([field('price', 'desc')]);
    expect(bodySort(['_score', { price: 'desc' }, 'name', '_doc'])).toEqual([
      { kind: 'score', order: 'desc' },
      field('price', 'desc'),
      field('name'),
      { kind: 'doc', order: 'asc' },
    ]);
    expect(bodySort([])).toEqual([]);
  });

  it('reads each key of an object as its own clause, in order', () => {
    expect(bodySort({ a: 'asc', b: 'desc' })).toEqual([field('a'), field('b', 'desc')]);
  });

  it('takes order, missing, unmapped_type and mode options', () => {
    expect(bodySort([{ price: { order: 'desc', missing: '_first', unmapped_type: 'long', mode: 'max' } }])).toEqual([
      field('price', 'desc', { missing: '_first', unmappedType: 'long', mode: 'max' }),
    ]);
    expect(bodySort({ price: { missing: 0 } })).toEqual([field('price', 'asc', { missing: 0 })]);
    expect(bodySort({ price: { missing: 'n/a', mode: 'MIN' } })).toEqual([field('price', 'asc', { missing: 'n/a', mode: 'min' })]);
    expect(bodySort({ _score: { order: 'asc' } })).toEqual([{ kind: 'score', order: 'asc' }]);
    expect(bodySort({ _doc: { order: 'desc' } })).toEqual([{ kind: 'doc', order: 'desc' }]);
  });

  it('reads the order without regard to case, as SortOrder.fromString does', () => {
    expect(bodySort({ price: 'DESC' })).toEqual([field('price', 'desc')]);
  });

  it('refuses an unknown order', () => {
    expect(refusal(() => bodySort({ price: 'up' }))).toEqual([400, 'illegal_argument_exception', 'Unknown SortOrder [up]']);
    expect(failure(() => bodySort([{ price: { order: 'sideways' } }])).reason).toBe('Unknown SortOrder [sideways]');
  });

  it.each([
    [42, 'illegal_argument_exception', 'malformed sort format, either start with array, object, or an actual string'],
    [true, 'illegal_argument_exception', 'malformed sort format, either start with array, object, or an actual string'],
    [['a', 1], 'illegal_argument_exception', 'malformed sort format, within the sort array, an object, or an actual string are allowed'],
    [[['a']], 'illegal_argument_exception', 'malformed sort format, within the sort array, an object, or an actual string are allowed'],
    [{ price: 1 }, 'x_content_parse_exception', '[field_sort] Expected START_OBJECT but was: VALUE_NUMBER'],
    [{ price: { foo: 1 } }, 'x_content_parse_exception', '[field_sort] unknown field [foo]'],
    [{ price: { order: 1 } }, 'x_content_parse_exception', "[field_sort] order doesn't support values of type: VALUE_NUMBER"],
    [{ price: { missing: {} } }, 'x_content_parse_exception', "[field_sort] missing doesn't support values of type: START_OBJECT"],
    [{ price: { unmapped_type: ['long'] } }, 'x_content_parse_exception', "[field_sort] unmapped_type doesn't support values of type: START_ARRAY"],
    [{ _score: { missing: '_last' } }, 'x_content_parse_exception', '[_score] unknown field [missing]'],
    [{ price: { mode: 'avg' } }, 'illegal_argument_exception', 'sort mode [avg] is not supported by deeppage yet'],
    [{ price: { mode: 'median' } }, 'illegal_argument_exception', 'sort mode [median] is not supported by deeppage yet'],
    [{ price: { mode: 'sum' } }, 'illegal_argument_exception', 'sort mode [sum] is not supported by deeppage yet'],
    [{ price: { mode: 'middle' } }, 'illegal_argument_exception', 'Unknown SortMode [middle]'],
    [{ price: { nested: { path: 'x' } } }, 'illegal_argument_exception', 'sort option [nested] is not supported by deeppage yet'],
    [{ price: { format: 'strict_date' } }, 'illegal_argument_exception', 'sort option [format] is not supported by deeppage yet'],
    [{ _script: { type: 'number' } }, 'illegal_argument_exception', '[_script] sort is not supported by deeppage yet'],
    [{ _geo_distance: { pin: [0, 0] } }, 'illegal_argument_exception', '[_geo_distance] sort is not supported by deeppage yet'],
  ])('refuses %j', (sort, type, reason) => {
    expect(refusal(() => bodySort(sort))).toEqual([400, type, reason]);
  });

  it('refuses _shard_doc, which needs a point in time', () => {
    expect(refusal(() => bodySort('_shard_doc'))).toEqual([
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];',
    ]);
  });
});
