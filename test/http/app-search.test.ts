/**
 * `_search` through the app, against a model of where ES puts each document: the shard its `_id`
 * routes to and its write order there. Hits order by the sort keys, then shard index, then that order.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTerms } from '../../src/engine/terms.ts';
import { Corpus, expectError, expectShardFailure, ids, testApp, type Json, type ModelDoc, type SortKey, type TestApp } from './app-helpers.ts';

let t: TestApp;
let corpus: Corpus;
const expected = (index: string, keys?: SortKey[]) => corpus.expected(index, keys);
const docs = (index: string) => corpus.docs.get(index)!;

const search = (path: string, body?: object) => t.json(body ? 'POST' : 'GET', path, body);
const field = (name: string) => (d: ModelDoc) => d.source[name];
const NAMES = ['bravo', 'Alpha', 'alpha', 'émile', 'zulu', '\u{1F600}smile', '\uE000private', 'Zed', 'bravo'];

beforeAll(async () => {
  t = testApp();
  corpus = new Corpus(t);
  const load = corpus.load.bind(corpus);
  const small = Array.from({ length: 30 }, (_, i) => ({ ...(i % 7 !== 0 && { n: i % 4 }), name: NAMES[i % NAMES.length], title: `book ${i}` }));
  await load('small', 3, [small.slice(0, 12), small.slice(12)]);
  await load('other', 1, [[{ n: 1 }, { n: 2 }, { n: 3 }]]);
  await load('wide', 1, [[{ n: 1 }, { n: 2 }]], { max_result_window: 20_000 });
  await load('big', 2, [Array.from({ length: 10_050 }, (_, i) => ({ i }))]);
  const ties = Array.from({ length: 90 }, (_, i) => ({ group: i % 3, tag: `t${i % 2}` }));
  await load('ties', 4, [ties.slice(0, 40), ties.slice(40, 41), ties.slice(41)]);
}, 120_000);
afterAll(() => t.close());

describe('response shape and defaults', () => {
  it('returns 10 hits from 0, scored 1 by match_all, in shard then write order', async () => {
    const res = await search('/small/_search');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timed_out: false, _shards: { total: 3, successful: 3, skipped: 0, failed: 0 } });
    expect(typeof res.body.took).toBe('number');
    expect(res.body.hits.total).toEqual({ value: 30, relation: 'eq' });
    expect(res.body.hits.max_score).toBe(1);
    expect(ids(res)).toEqual(expected('small').slice(0, 10));
    const first = corpus.doc('small', ids(res)[0]);
    expect(res.body.hits.hits[0]).toEqual({ _index: 'small', _id: first.id, _score: 1, _source: first.source });
    for (const hit of res.body.hits.hits) expect(hit.sort).toBeUndefined();
  });

  it('takes from and size from the URI and the body, the URI winning', async () => {
    const all = expected('small');
    expect(ids(await search('/small/_search?from=4&size=3'))).toEqual(all.slice(4, 7));
    expect(ids(await search('/small/_search', { from: 4, size: 3 }))).toEqual(all.slice(4, 7));
    expect(ids(await search('/small/_search?size=2&from=1', { from: 4, size: 3 }))).toEqual(all.slice(1, 3));
    expect(ids(await search('/small/_search?size=2', { from: 4, size: 3 }))).toEqual(all.slice(4, 6));
    expect(ids(await search('/small/_search', { from: '4', size: '3' }))).toEqual(all.slice(4, 7));
  });

  it('answers 200 with no hits and the full total when from is past the end, and counts only for size=0', async () => {
    const past = await search('/small/_search?from=100');
    expect(past.body.hits).toEqual({ total: { value: 30, relation: 'eq' }, max_score: null, hits: [] });
    const counted = await search('/small/_search', { size: 0, sort: ['n'] });
    expect(counted.body.hits).toEqual({ total: { value: 30, relation: 'eq' }, max_score: null, hits: [] });
    // Elasticsearch only counts when size is 0, scored query or not: no score is tracked (elastic/elasticsearch#32938).
    const scoredCount = await search('/small/_search', { size: 0, query: { bool: { must: [{ match_all: {} }] } } });
    expect(scoredCount.body.hits).toEqual({ total: { value: 30, relation: 'eq' }, max_score: null, hits: [] });
  });
});

describe('sorting', () => {
  const n = field('n');
  it.each<[string, string, object | undefined, SortKey[]]>([
    ['URI field:order', '?sort=n:desc', undefined, [[n, 'desc']]],
    ['URI list', '?sort=n:desc,name.keyword:asc', undefined, [[n, 'desc'], [field('name'), 'asc']]],
    ['body string', '', { sort: 'n' }, [[n, 'asc']]],
    ['body {f: order}', '', { sort: [{ n: 'desc' }] }, [[n, 'desc']]],
    ['body {f: {order}}', '', { sort: { 'name.keyword': { order: 'desc' } } }, [[field('name'), 'desc']]],
    ['URI appended to body', '?sort=name.keyword:desc', { sort: ['n'] }, [[n, 'asc'], [field('name'), 'desc']]],
  ])('%s', async (_, query, body, keys) => {
    const res = await search(`/small/_search${query}`, { ...body, size: 30 });
    expect(ids(res)).toEqual(expected('small', keys));
    expect(res.body.hits.max_score).toBeNull();
    for (const hit of res.body.hits.hits) {
      expect([hit._score, hit.sort.length]).toEqual([null, keys.length]);
      keys.forEach(([key], k) => key(corpus.doc('small', hit._id)) !== undefined && expect(hit.sort[k]).toBe(key(corpus.doc('small', hit._id))));
    }
  });

  it('puts missing values first on request', async () => {
    const res = await search('/small/_search', { size: 30, sort: [{ n: { order: 'desc', missing: '_first' } }] });
    const missing = docs('small').filter((d) => d.source.n === undefined).map((d) => d.id);
    expect(ids(res)).toEqual([...expected('small').filter((id) => missing.includes(id)), ...expected('small', [[n, 'desc']]).slice(0, 30 - missing.length)]);
  });

  it('shows a custom missing value in the sort array', async () => {
    const res = await search('/small/_search', { size: 30, sort: [{ n: { order: 'asc', missing: 0 } }] });
    const missing = res.body.hits.hits.filter((h: Json) => corpus.doc('small', h._id).source.n === undefined);
    expect(missing.length).toBeGreaterThan(0);
    for (const hit of missing) expect(hit.sort).toEqual([0]);
  });

  it('sorts by _score like no sort, and by _doc in shard ordinal order', async () => {
    const scored = await search('/small/_search', { size: 30, sort: ['_score'] });
    expect(ids(scored)).toEqual(expected('small'));
    expect(scored.body.hits.max_score).toBe(1);
    expect(scored.body.hits.hits[0]).toMatchObject({ _score: 1 });
    expect(scored.body.hits.hits[0].sort).toBeUndefined();
    const byDoc = await search('/small/_search', { size: 30, sort: ['_doc'] });
    expect(ids(byDoc)).toEqual([...docs('small')].sort((a, b) => a.ord - b.ord || a.shard - b.shard).map((d) => d.id));
    for (const hit of byDoc.body.hits.hits) expect(hit.sort).toEqual([corpus.doc('small', hit._id).ord]);
  });

  it('compares keywords across shards by code point', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const res = await search(`/small/_search?size=30&sort=name.keyword:${order}`);
      expect(ids(res)).toEqual(expected('small', [[field('name'), order]]));
      const values = res.body.hits.hits.map((h: Json) => h.sort[0]);
      expect(values).toEqual([...values].sort((a, b) => (order === 'asc' ? compareTerms(a, b) : compareTerms(b, a))));
    }
  });

  it('refuses unmapped fields (unless unmapped_type is given) and text fields as shard failures', async () => {
    expectShardFailure(await search('/small/_search?sort=nope'), 'query_shard_exception', 'No mapping found for [nope] in order to sort on');
    expect((await search('/small/_search', { sort: { nope: { unmapped_type: 'long' } } })).status).toBe(200);
    expectShardFailure(await search('/small/_search?sort=title'), 'illegal_argument_exception', /Text fields are not optimised for operations that require per-document field data/);
  });

  it("refuses a text field with ES 8's reason", async () => {
    const reason = 'Fielddata is disabled on [title] in [small]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [title] in order to load field data by uninverting the inverted index. Note that this can use significant memory.';
    expectShardFailure(await search('/small/_search?sort=title'), 'illegal_argument_exception', reason);
  });

  it('pages of many equal keys concatenate to the full order, with no duplicates or gaps', async () => {
    const sorts: [object, string[]][] = [
      [{}, expected('ties')],
      [{ sort: ['group'] }, expected('ties', [[field('group'), 'asc']])],
      [{ sort: [{ 'tag.keyword': 'desc' }, { group: 'asc' }] }, expected('ties', [[field('tag'), 'desc'], [field('group'), 'asc']])],
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: sorts.length - 1 }), fc.integer({ min: 1, max: 40 }), async (s, size) => {
        const [body, order] = sorts[s];
        const seen: string[] = [];
        for (let from = 0; from <= order.length; from += size) seen.push(...ids(await search(`/ties/_search?from=${from}&size=${size}`, body)));
        expect(seen).toEqual(order);
      }),
      { numRuns: 25 },
    );
  });
});

describe('result window', () => {
  const tooLarge = (window: number, was: number) =>
    `Result window is too large, from + size must be less than or equal to: [${window}] but was [${was}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`;

  it('allows from + size up to index.max_result_window, honouring a raised one', async () => {
    expect(ids(await search('/big/_search?from=9990&size=10'))).toHaveLength(10);
    expect((await search('/big/_search', { from: 10_000, size: 0 })).status).toBe(200);
    const wide = await search('/wide/_search?from=15000&size=10');
    expect(wide.status).toBe(200);
    expect(wide.body.hits).toMatchObject({ total: { value: 2, relation: 'eq' }, hits: [] });
  });

  it.each([
    ['/big/_search?from=9991&size=10', undefined, 10_000, 10_001],
    ['/big/_search?from=10000', undefined, 10_000, 10_010],
    ['/big/_search', { from: 5_000, size: 5_001 }, 10_000, 10_001],
    ['/wide/_search?from=19995', undefined, 20_000, 20_005],
  ])('refuses %s %j as a shard failure with ES message', async (path, body, window, was) => {
    const res = await search(path, body);
    expectShardFailure(res, 'illegal_argument_exception', tooLarge(window, was));
    expect(res.body.error.caused_by).toMatchObject({ type: 'illegal_argument_exception', reason: tooLarge(window, was) });
  });

  it('fails only the shards of an index whose window is exceeded', async () => {
    const res = await search('/small,wide/_search?from=15000&size=5');
    expect(res.status).toBe(200);
    expect(res.body._shards).toMatchObject({ total: 4, successful: 1, skipped: 0, failed: 3 });
    expect(res.body._shards.failures[0]).toMatchObject({ index: 'small', reason: { type: 'illegal_argument_exception', reason: tooLarge(10_000, 15_005) } });
    expect(res.body.hits).toMatchObject({ total: { value: 2, relation: 'eq' }, hits: [] });
  });

  it('lists identical failures of one index once in _shards.failures', async () => {
    expect((await search('/small,wide/_search?from=15000&size=5')).body._shards.failures).toHaveLength(1);
  });

  it('lists one failed_shards entry per failing index when all shards fail', async () => {
    const res = await search('/big,small/_search?from=10000');
    expect(res.body.error.failed_shards.map((f: Json) => f.index)).toEqual(['big', 'small']);
  });
});

describe('from and size validation', () => {
  it.each([
    ['?from=-2', undefined, '[from] parameter cannot be negative but was [-2]'],
    ['', { from: -2 }, '[from] parameter cannot be negative but was [-2]'],
    ['?size=-5', undefined, '[size] parameter cannot be negative, found [-5]'],
    ['', { size: -5 }, '[size] parameter cannot be negative, found [-5]'],
    ['?from=abc', undefined, 'Failed to parse int parameter [from] with value [abc]'],
    ['?size=1.5', undefined, 'Failed to parse int parameter [size] with value [1.5]'],
    ['?size=', undefined, 'Failed to parse int parameter [size] with value []'],
    ['?size=2147483648', undefined, 'Failed to parse int parameter [size] with value [2147483648]'],
  ])('refuses %s %j with illegal_argument_exception', async (query, body, reason) => {
    const res = await search(`/small/_search${query}`, body);
    expectError(res, 400, 'illegal_argument_exception', reason);
    expect(res.body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason }]);
  });

  it('refuses a body from or size that is not a number', async () => {
    for (const body of [{ from: 'abc' }, { size: 'ten' }, { size: [1] }, { from: {} }]) expect((await search('/small/_search', body)).status).toBe(400);
  });
});

describe('totals', () => {
  it.each<[string, object | undefined, unknown]>([
    ['', undefined, { value: 10_000, relation: 'gte' }],
    ['?track_total_hits=true', undefined, { value: 10_050, relation: 'eq' }],
    ['', { track_total_hits: true }, { value: 10_050, relation: 'eq' }],
    ['?track_total_hits=100', undefined, { value: 100, relation: 'gte' }],
    ['', { track_total_hits: 20_000 }, { value: 10_050, relation: 'eq' }],
    ['?track_total_hits=4&size=0', undefined, { value: 4, relation: 'gte' }],
    ['?rest_total_hits_as_int=true', undefined, 10_050],
    ['?rest_total_hits_as_int=true&track_total_hits=false', undefined, -1],
  ])('%s %j gives hits.total %j', async (query, body, total) => {
    const res = await search(`/big/_search${query}`, body);
    expect(res.status).toBe(200);
    expect(res.body.hits.total).toEqual(total);
  });

  it.each([['?track_total_hits=false', undefined], ['', { track_total_hits: false }]])('omits hits.total for %s %j', async (query, body) => {
    const res = await search(`/big/_search${query}`, body);
    expect(Object.keys(res.body.hits)).toEqual(['max_score', 'hits']);
  });

  it('refuses an inexact bound with rest_total_hits_as_int, and bounds below -1', async () => {
    expectError(await search('/big/_search?rest_total_hits_as_int=true&track_total_hits=100'), 400, 'illegal_argument_exception', '[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 100');
    expectError(await search('/big/_search?track_total_hits=-2'), 400, 'illegal_argument_exception', '[track_total_hits] parameter must be positive or equals to -1, got -2');
  });
});

describe('_source, indices and queries', () => {
  const firstSource = async (path: string, body?: object) => (await search(path, body)).body.hits.hits[0]._source;
  const s0 = () => corpus.doc('small', expected('small')[0]).source;

  it('filters _source from the URI and the body', async () => {
    expect(await firstSource('/small/_search?_source=false')).toBeUndefined();
    expect(await firstSource('/small/_search?_source=name')).toEqual({ name: s0().name });
    expect(await firstSource('/small/_search?_source_excludes=name,title')).toEqual(s0().n === undefined ? {} : { n: s0().n });
    expect(await firstSource('/small/_search', { _source: ['title'] })).toEqual({ title: s0().title });
    expect(await firstSource('/small/_search', { _source: { excludes: ['n', 'name'] } })).toEqual({ title: s0().title });
    expect(await firstSource('/small/_search', { _source: false })).toBeUndefined();
    expect(await firstSource('/small/_search?_source=name', { _source: false })).toEqual({ name: s0().name });
  });

  it.each([
    ['/small,other/_search', ['other', 'small']],
    ['/oth*,sm*/_search', ['other', 'small']],
    ['/_all/_search', ['big', 'other', 'small', 'ties', 'wide']],
    ['/*/_search', ['big', 'other', 'small', 'ties', 'wide']],
    ['/_search', ['big', 'other', 'small', 'ties', 'wide']],
    ['/small,nothing*/_search', ['small']],
  ])('%s searches %j, in name then shard order', async (path, names) => {
    const res = await search(`${path}?track_total_hits=true&size=40`);
    expect(res.status).toBe(200);
    expect(res.body.hits.total.value).toBe(names.reduce((sum, name) => sum + docs(name).length, 0));
    expect(res.body._shards.total).toBe(names.reduce((sum, name) => sum + t.engine.resolve(name)[0].shards.length, 0));
    expect(ids(res)).toEqual(names.flatMap((name) => expected(name)).slice(0, 40));
  });

  it('answers an empty result for a wildcard that matches nothing', async () => {
    expect((await search('/nothing*/_search')).body).toMatchObject({ _shards: { total: 0 }, hits: { total: { value: 0, relation: 'eq' }, max_score: null, hits: [] } });
    // With no shard to check them, search_after and from are not refused (once a 500).
    for (const body of [{ from: 1, search_after: [1] }, { from: 1, search_after: [1], query: { match: { title: 'book' } } }]) {
      expect((await search('/nothing*/_search', body)).body).toMatchObject({ _shards: { total: 0 }, hits: { total: { value: 0, relation: 'eq' }, hits: [] } });
    }
  });

  it('takes match_all and the query DSL, and refuses unknown query types with 400 parsing_exception', async () => {
    expect(ids(await search('/small/_search', { query: { match_all: {} } }))).toEqual(expected('small').slice(0, 10));
    const book3 = await search('/small/_search', { query: { match_phrase: { title: 'book 3' } } });
    expect(book3.body.hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(corpus.doc('small', ids(book3)[0]).source).toMatchObject({ title: 'book 3' });
    expectError(await search('/small/_search', { query: { no_such_query: { title: 'x' } } }), 400, 'parsing_exception', 'unknown query [no_such_query]');
  });

  it('refuses a query of more than 4096 clauses as current Elasticsearch 8 does: a 400, never a 500', async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const many = await search('/small/_search', { query: { match: { title: words(4097) } } });
    expectShardFailure(many, 'illegal_argument_exception', 'Query rewrite failed: too many clauses');
    expect(many.body.error.failed_shards[0].reason.caused_by).toEqual({ type: 'too_many_nested_clauses', reason: 'Query contains too many nested clauses; maxClauseCount is set to 4096' });
    const nested = { bool: { should: [{ match: { title: words(2048) } }, { bool: { filter: [{ match: { title: words(2049) } }] } }] } };
    expectShardFailure(await search('/small/_count', { query: nested }), 'illegal_argument_exception', 'Query rewrite failed: too many clauses');
    expect((await search('/small/_search', { query: { match: { title: words(4096) } } })).status).toBe(200);
  });
});

describe('a q= that does not parse, on an index with no documents', () => {
  it('fails every shard as ES does (each shard parses the query, empty or not), for searches and counts', async () => {
    const t = testApp();
    try {
      await t.createIndex('nothing-yet', { number_of_shards: 2 });
      for (const path of ['/nothing-yet/_search?q=a:%28', '/nothing-yet/_count?q=a:%28']) {
        const res = await t.json('GET', path);
        expectShardFailure(res, 'query_shard_exception', 'Failed to parse query [a:(]');
        expect(res.body.error.root_cause[0].index).toBe('nothing-yet');
      }
      expect((await t.json('GET', '/nothing-yet/_search?q=a:b')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
