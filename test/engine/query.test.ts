/**
 * Queries through the engine against a plain reference evaluator: for random documents (written,
 * some deleted, in several segments and shards) and random query trees, the hit set is the
 * reference's, pages by a field concatenate to the reference order, `_count` agrees; BM25 scores are
 * Elasticsearch's own for its documented examples.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { compareTerms } from '../../src/engine/terms.ts';
import { tempEngine } from './helpers.ts';

interface Doc {
  id: string;
  body?: string[];
  tag?: string[];
  n?: number[];
}

const WORDS = ['fox', 'Quick', 'dog', 'lazy', 'the', 'brown', 'dogs'];
const docArb = fc.record(
  {
    body: fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 2 }),
    tag: fc.array(fc.constantFrom('a', 'b', 'c', 'ab', 'B'), { minLength: 1, maxLength: 3 }),
    n: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const leafArb: fc.Arbitrary<Query> = fc.oneof(
  fc.constantFrom('a', 'b', 'ab', 'B').map((value): Query => ({ kind: 'term', field: 'tag', value, caseInsensitive: false, boost: 1 })),
  fc.constantFrom('fox', 'dog', 'quick', 'Quick').map((value): Query => ({ kind: 'term', field: 'body', value, caseInsensitive: false, boost: 1 })),
  fc.integer({ min: -5, max: 5 }).map((value): Query => ({ kind: 'term', field: 'n', value, caseInsensitive: false, boost: 1 })),
  fc.array(fc.constantFrom('a', 'c', 'B'), { minLength: 1, maxLength: 2 }).map((values): Query => ({ kind: 'terms', field: 'tag', values, boost: 1 })),
  fc.tuple(fc.integer({ min: -6, max: 6 }), fc.integer({ min: -6, max: 6 })).map(([lo, hi]): Query => ({ kind: 'range', field: 'n', gte: lo, lt: hi, boost: 1 })),
  fc.constantFrom('a', 'b').map((lo): Query => ({ kind: 'range', field: 'tag', gt: lo, boost: 1 })),
  fc.constantFrom('body', 'tag', 'n', 'missing').map((field): Query => ({ kind: 'exists', field, boost: 1 })),
  fc.array(fc.constantFrom('d0', 'd1', 'd5', 'd9', 'nope'), { maxLength: 3 }).map((values): Query => ({ kind: 'ids', values, boost: 1 })),
  fc.constantFrom('a', 'b', 'x').map((value): Query => ({ kind: 'prefix', field: 'tag', value, caseInsensitive: false, boost: 1 })),
  fc.constantFrom('*b', 'a?', '?', 'a*').map((value): Query => ({ kind: 'wildcard', field: 'tag', value, caseInsensitive: false, boost: 1 })),
  fc.tuple(fc.constantFrom('quick fox', 'lazy dogs', 'the', 'cat'), fc.constantFrom<'or' | 'and'>('or', 'and')).map(([query, operator]): Query => ({ kind: 'match', field: 'body', query, operator, zeroTermsQuery: 'none', lenient: false, boost: 1 })),
  fc.constantFrom('quick fox', 'lazy dog', 'fox quick').map((query): Query => ({ kind: 'match_phrase', field: 'body', query, slop: 0, zeroTermsQuery: 'none', boost: 1 })),
);

const queryArb: fc.Arbitrary<Query> = fc.letrec<{ q: Query }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record({ must: fc.array(tie('q'), { maxLength: 2 }), filter: fc.array(tie('q'), { maxLength: 2 }), should: fc.array(tie('q'), { maxLength: 2 }), mustNot: fc.array(tie('q'), { maxLength: 1 }) }).map((b): Query => ({ kind: 'bool', ...b, boost: 1 })),
    tie('q').map((filter): Query => ({ kind: 'constant_score', filter, boost: 2 })),
  ),
})).q;

/** Does the document match? The plain reading of each query's rules. */
function matches(q: Query, doc: Doc): boolean {
  switch (q.kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'term':
      if (q.field === 'body') return (doc.body ?? []).some((v) => analyze(v).includes(String(q.value)));
      if (q.field === 'tag') return (doc.tag ?? []).includes(String(q.value));
      return (doc.n ?? []).includes(Number(q.value));
    case 'terms':
      return q.values.some((value) => (doc.tag ?? []).includes(String(value)));
    case 'range':
      if (q.field === 'tag') return (doc.tag ?? []).some((t) => compareTerms(t, String(q.gt)) > 0);
      return (doc.n ?? []).some((n) => n >= Number(q.gte) && n < Number(q.lt));
    case 'exists':
      return q.field === 'body' ? doc.body !== undefined : q.field === 'tag' ? doc.tag !== undefined : q.field === 'n' ? doc.n !== undefined : false;
    case 'ids':
      return q.values.includes(doc.id);
    case 'prefix':
      return (doc.tag ?? []).some((t) => t.startsWith(q.value));
    case 'wildcard': {
      const regex = new RegExp(`^${q.value.replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'u');
      return (doc.tag ?? []).some((t) => regex.test(t));
    }
    case 'match': {
      const terms = analyze(String(q.query));
      const has = (term: string) => (doc.body ?? []).some((v) => analyze(v).includes(term));
      return terms.length > 0 && (q.operator === 'and' ? terms.every(has) : terms.some(has));
    }
    case 'match_phrase': {
      const terms = analyze(String(q.query));
      return (doc.body ?? []).some((v) => {
        const tokens = analyze(v);
        return tokens.some((_, i) => terms.every((t, k) => tokens[i + k] === t));
      });
    }
    case 'bool': {
      const should = q.should.filter((s) => matches(s, doc)).length;
      const required = q.must.length + q.filter.length;
      return q.must.every((m) => matches(m, doc)) && q.filter.every((m) => matches(m, doc)) && !q.mustNot.some((m) => matches(m, doc)) && (required > 0 || q.should.length === 0 || should > 0);
    }
    case 'constant_score':
      return matches(q.filter, doc);
    default:
      throw new Error(`no reference for ${q.kind}`);
  }
}

describe('queries against a plain reference', () => {
  let t: ReturnType<typeof tempEngine>;
  let engine: Engine;
  beforeAll(() => {
    t = tempEngine();
    engine = t.engine;
  });
  afterAll(() => t.close());

  it('find the reference hits, page in the reference order by a field, and count the same', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(docArb, { minLength: 1, maxLength: 25 }), fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (raw, deletes, queries) => {
        const name = `q${round++}`;
        await engine.createIndex(name, { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: { properties: { body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } } });
        try {
          const docs: Doc[] = raw.map((d, i) => ({ id: `d${i}`, ...d }));
          const half = Math.ceil(docs.length / 2);
          // Two refreshes: several segments per shard, then deletes of some documents.
          await engine.write(docs.slice(0, half).map((d) => ({ action: 'index', index: name, id: d.id, source: sourceOf(d) })));
          engine.refresh(name);
          await engine.write(docs.slice(half).map((d) => ({ action: 'index', index: name, id: d.id, source: sourceOf(d) })));
          const gone = new Set(docs.filter((_, i) => deletes[i]).map((d) => d.id));
          await engine.write([...gone].map((id) => ({ action: 'delete', index: name, id })));
          engine.refresh(name);
          const live = docs.filter((d) => !gone.has(d.id));
          for (const query of queries) {
            const expected = live.filter((d) => matches(query, d));
            const all = engine.search(name, searchRequest({ query, size: 100 }));
            expect(all.hits.hits.map((h) => h._id).sort(), JSON.stringify(query)).toEqual(expected.map((d) => d.id).sort());
            expect(engine.count(name, query).count).toBe(expected.length);
            // By n (least value, missing last), then the tie-break: pages of 3 concatenate to the whole order.
            const sort = [{ kind: 'field' as const, field: 'n', order: 'asc' as const, missing: '_last' as const }];
            const whole = engine.search(name, searchRequest({ query, size: 100, sort })).hits.hits.map((h) => h._id);
            const paged: string[] = [];
            for (let from = 0; from < expected.length; from += 3) paged.push(...engine.search(name, searchRequest({ query, from, size: 3, sort })).hits.hits.map((h) => h._id));
            expect(paged).toEqual(whole);
            const least = (d: Doc) => (d.n ? Math.min(...d.n) : Infinity);
            expect(whole.map((id) => least(live.find((d) => d.id === id)!))).toEqual(expected.map(least).sort((a, b) => a - b));
          }
        } finally {
          await engine.deleteIndices(name);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('takes wildcard patterns with any literal character, a hyphen or a slash too', async () => {
    await engine.createIndex('patterns', { mappings: { properties: { code: { type: 'keyword' } } } });
    await engine.write(['a-b', 'a/b', 'a.b', 'ab'].map((code, i) => ({ action: 'index', index: 'patterns', id: String(i), source: { code } })), 'true');
    const ids = (value: string) => engine.search('patterns', searchRequest({ query: { kind: 'wildcard', field: 'code', value, caseInsensitive: false, boost: 1 } })).hits.hits.map((h) => h._id).sort();
    expect(ids('a-*')).toEqual(['0']);
    expect(ids('a/?')).toEqual(['1']);
    expect(ids('a.*')).toEqual(['2']);
    expect(ids('a?b')).toEqual(['0', '1', '2']);
  });

  it("scores Elasticsearch's count/30_min_score documents as it does", async () => {
    await engine.createIndex('scores', { settings: { number_of_shards: 1 }, mappings: { properties: { field: { type: 'text' } } } });
    await engine.write(
      [
        { action: 'index', index: 'scores', id: '1', source: { field: 'foo bar' } },
        { action: 'index', index: 'scores', id: '2', source: { field: 'foo bar bar bar bar' } },
      ],
      'true',
    );
    const query: Query = { kind: 'match', field: 'field', query: 'foo', operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 };
    const { hits } = engine.search('scores', searchRequest({ query }));
    expect(hits.hits.map((h) => [h._id, h._score])).toEqual([
      ['1', Math.fround(0.22108284)],
      ['2', Math.fround(0.15512443)],
    ]);
    expect(hits.max_score).toBe(Math.fround(0.22108284));

    // Sorted by a field, hits carry no score unless track_scores asks for them.
    const sort = [{ kind: 'doc' as const, order: 'desc' as const }];
    const plain = engine.search('scores', searchRequest({ query, sort })).hits;
    expect([plain.max_score, ...plain.hits.map((h) => h._score)]).toEqual([null, null, null]);
    const tracked = engine.search('scores', searchRequest({ query, sort, trackScores: true })).hits;
    expect(tracked.hits.map((h) => [h._id, h._score])).toEqual([
      ['2', Math.fround(0.15512443)],
      ['1', Math.fround(0.22108284)],
    ]);
    expect(tracked.max_score).toBe(Math.fround(0.22108284));
  });
});

function sourceOf(doc: Doc): Record<string, unknown> {
  const { id: _id, ...fields } = doc;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
}
