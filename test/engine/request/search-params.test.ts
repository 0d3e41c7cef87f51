import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACK_TOTAL_HITS, searchRequest } from '../../../src/engine/search/request.ts';
import { parseSearchRequest } from '../../../src/engine/request/search-params.ts';
import { failure, refusal } from './failure.ts';

const parse = (query: Record<string, string | undefined>, body?: unknown) => parseSearchRequest(query, body);
const INT_MAX = 2 ** 31 - 1;

it('fills in ES defaults when nothing is given', () => {
  expect(parse({})).toEqual(searchRequest());
  expect(parse({}, {})).toEqual(searchRequest());
  expect(parse({}).trackTotalHits).toBe(DEFAULT_TRACK_TOTAL_HITS);
});

describe('from and size', () => {
  it('come from the URI or the body, the URI winning', () => {
    expect(parse({ from: '20', size: '5' })).toMatchObject({ from: 20, size: 5 });
    expect(parse({}, { from: 20, size: 5 })).toMatchObject({ from: 20, size: 5 });
    expect(parse({ from: '7' }, { from: 20, size: 5 })).toMatchObject({ from: 7, size: 5 });
    expect(parse({ from: '+3', size: '007' })).toMatchObject({ from: 3, size: 7 });
  });

  it('accept numeric strings and truncate fractions in the body', () => {
    expect(parse({}, { from: '10', size: ' 4 ' })).toMatchObject({ from: 10, size: 4 });
    expect(parse({}, { from: 1.9, size: '2.7' })).toMatchObject({ from: 1, size: 2 });
    expect(parse({}, { from: -0.5, size: '1e1' })).toMatchObject({ from: 0, size: 10 });
  });

  it.each([['abc'], [''], ['1.5'], [' 1'], ['1e3'], ['0x10'], ['2147483648'], ['-2147483649'], ['٣']])(
    'refuse URI value %j as Integer.parseInt would',
    (value) => {
      expect(refusal(() => parse({ size: value }))).toEqual([400, 'illegal_argument_exception', `Failed to parse int parameter [size] with value [${value}]`]);
    },
  );

  it.each([
    ['abc', 'abc'],
    [true, 'true'],
    [null, 'null'],
    [{ a: 1 }, '{"a":1}'],
    [[1], '[1]'],
  ])('refuse body value %j', (value, shown) => {
    expect(refusal(() => parse({}, { from: value }))).toEqual([400, 'x_content_parse_exception', `[from] failed to parse field value [${shown}]`]);
  });

  it('refuse a long run of digits with a letter at once (a regular expression once took minutes to)', () => {
    const digits = `${'1'.repeat(200_000)}x`;
    expect(refusal(() => parse({}, { size: digits }))).toEqual([400, 'x_content_parse_exception', `[size] failed to parse field value [${digits}]`]);
  });

  it('refuse body values beyond int32 as Jackson does', () => {
    const tooBig = [400, 'input_coercion_exception', 'Numeric value (2147483648) out of range of int'];
    expect(refusal(() => parse({}, { size: 2147483648 }))).toEqual(tooBig);
    expect(failure(() => parse({}, { from: '-2147483649' })).reason).toBe('Numeric value (-2147483649) out of range of int');
    expect(parse({}, { size: INT_MAX }).size).toBe(INT_MAX);
  });

  it('may not be negative, in the URI or the body', () => {
    expect(refusal(() => parse({ from: '-2' }))).toEqual([400, 'illegal_argument_exception', '[from] parameter cannot be negative but was [-2]']);
    expect(refusal(() => parse({}, { size: -5 }))).toEqual([400, 'illegal_argument_exception', '[size] parameter cannot be negative, found [-5]']);
    expect(failure(() => parse({ size: '-1' })).reason).toBe('[size] parameter cannot be negative, found [-1]');
  });

  it('are checked in the body even when the URI overrides them, as ES parses the body first', () => {
    expect(failure(() => parse({ from: '1' }, { from: -2 })).reason).toBe('[from] parameter cannot be negative but was [-2]');
  });

  it('round-trip every non-negative int32 through the URI (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: INT_MAX }), fc.integer({ min: 0, max: INT_MAX }), (from, size) => {
        expect(parse({ from: String(from), size: String(size) })).toMatchObject({ from, size });
      }),
    );
  });

  it('refuse every negative int32 with the negative-value message (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: -1 }), (n) => {
        expect(failure(() => parse({ from: String(n) })).reason).toBe(`[from] parameter cannot be negative but was [${n}]`);
      }),
    );
  });

  it('refuse every string that is not an int32 with the exact message (property)', () => {
    const notInt = fc.oneof(
      fc.string().filter((s) => !/^[+-]?\d+$/.test(s)),
      fc.bigInt({ min: 2n ** 31n, max: 2n ** 70n }).map((n) => (n % 2n === 0n ? String(n) : `-${n + 1n}`)),
      fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }).map(String),
    );
    fc.assert(
      fc.property(notInt, (value) => {
        expect(refusal(() => parse({ from: value }))).toEqual([400, 'illegal_argument_exception', `Failed to parse int parameter [from] with value [${value}]`]);
      }),
    );
  });
});

describe('track_total_hits', () => {
  it.each([
    [{ track_total_hits: 'true' }, undefined, true],
    [{ track_total_hits: 'false' }, undefined, false],
    [{ track_total_hits: '100' }, undefined, 100],
    [{}, { track_total_hits: true }, true],
    [{}, { track_total_hits: false }, false],
    [{}, { track_total_hits: 4 }, 4],
    [{}, { track_total_hits: '4' }, 4],
    [{}, { track_total_hits: 'true' }, true],
    [{ track_total_hits: '0' }, { track_total_hits: true }, 0],
  ])('%j with body %j counts %j', (query, body, expected) => {
    expect(parse(query, body).trackTotalHits).toBe(expected);
  });

  it('reads -1 as "do not count" and int max as "count exactly", as ES stores the bound', () => {
    expect(parse({ track_total_hits: '-1' }).trackTotalHits).toBe(false);
    expect(parse({}, { track_total_hits: -1 }).trackTotalHits).toBe(false);
    expect(parse({ track_total_hits: String(INT_MAX) }).trackTotalHits).toBe(true);
  });

  it('refuses bounds below -1 and values that are neither booleans nor ints', () => {
    const reason = '[track_total_hits] parameter must be positive or equals to -1, got -2';
    expect(refusal(() => parse({ track_total_hits: '-2' }))).toEqual([400, 'illegal_argument_exception', reason]);
    expect(refusal(() => parse({}, { track_total_hits: -2 }))).toEqual([400, 'illegal_argument_exception', reason]);
    expect(refusal(() => parse({ track_total_hits: 'yes' }))).toEqual([
      400,
      'illegal_argument_exception',
      'Failed to parse int parameter [track_total_hits] with value [yes]',
    ]);
    expect(failure(() => parse({}, { track_total_hits: 'yes' })).reason).toBe('[track_total_hits] failed to parse field value [yes]');
  });
});

describe('rest_total_hits_as_int', () => {
  it('counts exactly unless told otherwise; a bare flag means true', () => {
    expect(parse({ rest_total_hits_as_int: 'true' })).toMatchObject({ restTotalHitsAsInt: true, trackTotalHits: true });
    expect(parse({ rest_total_hits_as_int: '' })).toMatchObject({ restTotalHitsAsInt: true, trackTotalHits: true });
    expect(parse({ rest_total_hits_as_int: 'false' })).toMatchObject({ restTotalHitsAsInt: false, trackTotalHits: DEFAULT_TRACK_TOTAL_HITS });
    expect(parse({ rest_total_hits_as_int: 'true', track_total_hits: 'false' }).trackTotalHits).toBe(false);
    expect(parse({ rest_total_hits_as_int: 'true' }, { track_total_hits: -1 }).trackTotalHits).toBe(false);
  });

  it('refuses a count bound, which would make the int total inexact', () => {
    const reason = '[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 100';
    expect(refusal(() => parse({ rest_total_hits_as_int: 'true', track_total_hits: '100' }))).toEqual([400, 'illegal_argument_exception', reason]);
    expect(failure(() => parse({ rest_total_hits_as_int: '' }, { track_total_hits: 100 })).reason).toBe(reason);
  });

  it('takes only true or false', () => {
    expect(refusal(() => parse({ rest_total_hits_as_int: 'yes' }))).toEqual([
      400,
      'illegal_argument_exception',
      'Failed to parse value [yes] as only [true] or [false] are allowed.',
    ]);
  });
});

describe('URI parameters', () => {
  it('takes, with valid values, those read elsewhere and those that change nothing on one node', () => {
    const taken = {
      ...{ pretty: '', human: 'true', error_trace: 'false', filter_path: 'took', timeout: '1s', request_cache: 'false', allow_no_indices: 'x', ignore_unavailable: 'x' },
      ...{ expand_wildcards: 'x', preference: 'x', routing: 'x', typed_keys: 'true', batched_reduce_size: '2', ccs_minimize_roundtrips: 'false', search_type: 'query_then_fetch' },
      ...{ max_concurrent_shard_requests: '5', pre_filter_shard_size: '1', explain: 'false' },
    };
    expect(parse(taken)).toEqual(searchRequest());
  });

  it('reads version, seq_no_primary_term, stored_fields, docvalue_fields and allow_partial_search_results', () => {
    expect(parse({ version: 'true', seq_no_primary_term: 'true', allow_partial_search_results: 'false' })).toEqual(searchRequest({ version: true, seqNoPrimaryTerm: true, allowPartial: false }));
    expect(parse({ stored_fields: 'a,b', docvalue_fields: 'n,m' })).toEqual(searchRequest({ storedFields: ['a', 'b'], source: false, docValueFields: [{ field: 'n' }, { field: 'm' }] }));
    expect(parse({ stored_fields: '_none_' }).storedFields).toBe(false);
    expect(parse({ stored_fields: 'a,_source' }).source).toEqual(searchRequest().source);
  });

  it('refuses unknown ones, naming the path', () => {
    expect(refusal(() => parse({ foo: '1' }))).toEqual([400, 'illegal_argument_exception', 'request [/_search] contains unrecognized parameter: [foo]']);
    expect(failure(() => parseSearchRequest({ zeta: '', alpha: '1', size: '1' }, undefined, '/books/_search')).reason).toBe(
      'request [/books/_search] contains unrecognized parameters: [alpha], [zeta]',
    );
  });

  it('skips parameters whose value is undefined', () => {
    expect(parse({ foo: undefined, size: undefined })).toEqual(searchRequest());
  });

  it.each([['terminate_after']])('refuses %s, which deeppage does not support yet', (name) => {
    expect(refusal(() => parse({ [name]: '1m' }))).toEqual([400, 'illegal_argument_exception', `[${name}] is not supported by deeppage yet`]);
  });
});

describe('cursors', () => {
  it('reads search_after, pit and scroll', () => {
    expect(parse({}, { sort: ['n'], search_after: [1, 'a', null, true] }).after).toEqual([1, 'a', null, true]);
    expect(parse({}, { pit: { id: 'abc', keep_alive: '2m' } }).pit).toEqual({ id: 'abc', keepAliveMs: 120_000 });
    expect(parse({}, { pit: { id: 'abc' } }).pit).toEqual({ id: 'abc' });
    expect(parse({ scroll: '1m' }).scroll).toBe(60_000);
  });

  it('refuses malformed values in ES words', () => {
    expect(refusal(() => parse({}, { search_after: 5 }))).toEqual([400, 'parsing_exception', 'Unknown key for a VALUE_NUMBER in [search_after].']);
    expect(refusal(() => parse({}, { search_after: [{}] }))[2]).toBe('Expected [VALUE_STRING] or [VALUE_NUMBER] or [VALUE_BOOLEAN] or [VALUE_NULL] but found [START_OBJECT] inside search_after.');
    expect(refusal(() => parse({}, { pit: { keep_alive: '1m' } }))).toEqual([400, 'x_content_parse_exception', '[pit] Required [id]']);
    expect(refusal(() => parse({}, { pit: { id: 'a', other: 1 } }))[2]).toBe('[pit] unknown field [other]');
    expect(refusal(() => parse({ scroll: '1x' }))[2]).toBe('failed to parse setting [scroll] with value [1x] as a time value: unit is missing or unrecognized');
  });

  it('checks what cannot go together, all at once, as SearchRequest.validate does', () => {
    expect(refusal(() => parse({ scroll: '1m', from: '5', size: '0', track_total_hits: 'false', request_cache: 'true' }))).toEqual([
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: disabling [track_total_hits] is not allowed in a scroll context;2: using [from] is not allowed in a scroll context;3: [size] cannot be [0] in a scroll context;4: [request_cache] cannot be used in a scroll context;',
    ]);
    expect(refusal(() => parseSearchRequest({ routing: 'x' }, { pit: { id: 'a' } }, '/i/_search', true))[2]).toBe(
      'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;2: [routing] cannot be used with point in time. Do not specify any routing with point in time.;',
    );
    expect(refusal(() => parse({ scroll: '1m' }, { pit: { id: 'a' } }))[2]).toBe('Validation Failed: 1: using [point in time] is not allowed in a scroll context;');
    expect(refusal(() => parse({}, { sort: ['_shard_doc'] }))[2]).toBe('Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];');
    expect(parse({}, { sort: [{ _shard_doc: 'desc' }], pit: { id: 'a' } }).sort).toEqual([{ kind: 'shard_doc', order: 'desc' }]);
  });
});

describe('body keys', () => {
  it('must come in an object', () => {
    expect(refusal(() => parse({}, [1]))).toEqual([400, 'parsing_exception', 'Expected [START_OBJECT] but found [START_ARRAY]']);
    expect(failure(() => parse({}, null)).reason).toBe('Expected [START_OBJECT] but found [VALUE_NULL]');
    expect(failure(() => parse({}, 'x')).type).toBe('parsing_exception');
  });

  it('reads version, seq_no_primary_term, stored_fields and docvalue_fields; takes timeout, and explain and profile when false', () => {
    const body = {
      ...{ timeout: '1s', explain: false, version: true },
      ...{ seq_no_primary_term: 'true', stored_fields: ['a'], docvalue_fields: ['n', { field: 'd', format: 'epoch_millis' }], profile: false },
    };
    expect(parse({}, body)).toEqual(
      searchRequest({ version: true, seqNoPrimaryTerm: true, storedFields: ['a'], source: false, docValueFields: [{ field: 'n' }, { field: 'd', format: 'epoch_millis' }] }),
    );
    expect(parse({ docvalue_fields: 'm' }, { docvalue_fields: ['n'] }).docValueFields).toEqual([{ field: 'n' }, { field: 'm' }]);
    expect(parse({ version: 'false' }, { version: true }).version).toBe(false);
  });

  it('reads track_scores from the body or the URI (which wins)', () => {
    expect(parse({}, { track_scores: true }).trackScores).toBe(true);
    expect(parse({ track_scores: 'false' }, { track_scores: true }).trackScores).toBe(false);
    expect(refusal(() => parse({}, { track_scores: 3 }))).toEqual([400, 'x_content_parse_exception', '[track_scores] failed to parse field value']);
  });

  it.each([
    ['foo', {}, 'Unknown key for a START_OBJECT in [foo].'],
    ['foo', 'x', 'Unknown key for a VALUE_STRING in [foo].'],
    ['foo', 1, 'Unknown key for a VALUE_NUMBER in [foo].'],
    ['foo', true, 'Unknown key for a VALUE_BOOLEAN in [foo].'],
    ['foo', [], 'Unknown key for a START_ARRAY in [foo].'],
    ['match', { title: 'x' }, 'Unknown key for a START_OBJECT in [match].'],
  ])('refuses unknown key %s = %j', (key, value, reason) => {
    expect(refusal(() => parse({}, { [key]: value }))).toEqual([400, 'parsing_exception', reason]);
  });

  const unsupported = ['aggs', 'aggregations', 'highlight', 'suggest', 'collapse', 'rescore', 'post_filter'];
  it.each(unsupported.map((key) => [key]))('refuses %s, which deeppage does not support yet', (key) => {
    expect(refusal(() => parse({}, { [key]: {} }))).toEqual([400, 'illegal_argument_exception', `[${key}] is not supported by deeppage yet`]);
  });
});

describe('flags, read as RestSearchAction and SearchSourceBuilder read each (src/engine/booleans.ts)', () => {
  it('reads version, seq_no_primary_term, explain, lenient, allow_partial_search_results and request_cache with a null default: bare, each is not given', () => {
    // `paramAsBoolean("version", null)` sets the source's version to null, over the body's.
    expect(parse({ version: '' }, { version: true }).version).toBe(false);
    expect(parse({ seq_no_primary_term: '' }).seqNoPrimaryTerm).toBe(false);
    expect(parse({ explain: '' })).toEqual(searchRequest());
    expect(parse({ allow_partial_search_results: '' }).allowPartial).toBe(true);
    expect(parse({ q: 'x', lenient: '' }).query).toEqual(parse({ q: 'x' }).query);
    expect(parse({ scroll: '1m', request_cache: '' }).scroll).toBe(60_000);
    expect(refusal(() => parse({ scroll: '1m', request_cache: 'true' }))).toEqual([400, 'action_request_validation_exception', 'Validation Failed: 1: [request_cache] cannot be used in a scroll context;']);
  });

  it('reads track_scores and rest_total_hits_as_int with a default: bare, each is true; blank, the default', () => {
    expect(parse({ track_scores: '' }).trackScores).toBe(true);
    expect(parse({ track_scores: ' ' }, { track_scores: true }).trackScores).toBe(false);
    expect(parse({ rest_total_hits_as_int: '' }).restTotalHitsAsInt).toBe(true);
  });

  it('reads body flags with parser.booleanValue: the empty string is false, another word refused with the words’ error', () => {
    for (const key of ['version', 'seq_no_primary_term', 'track_scores', 'explain', 'profile']) {
      expect(() => parse({}, { [key]: '' })).not.toThrow();
      expect(refusal(() => parse({}, { [key]: 'yes' }))).toEqual([400, 'illegal_argument_exception', 'Failed to parse value [yes] as only [true] or [false] are allowed.']);
    }
    expect(parse({}, { version: '', track_scores: 'true' })).toMatchObject({ version: false, trackScores: true });
    expect(refusal(() => parse({}, { track_scores: {} }))).toEqual([400, 'parsing_exception', 'Unknown key for a START_OBJECT in [track_scores].']);
  });
});
