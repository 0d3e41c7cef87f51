/**
 * Queries through the engine against a plain reference evaluator: for random documents (written,
 * some deleted, in several segments and shards) and random query trees, the hit set is the
 * reference's, pages by a field concatenate to the reference order, `_count` agrees; BM25 scores are
 * Elasticsearch's own for its documented examples.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { withTempEngine } from './helpers.ts';
import { docArb, matches, queryArb, sourceOf, type Doc } from './query-reference.ts';

describe('queries against a plain reference', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

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
            for (let from = 0; from < expected.length; from += 3) paged.push(...engine.search(name, searchRequest({ query, from, size: 3, sort })).hits.hits.map((h) => h._id!));
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

  it('matches many-star wildcard patterns in linear time (one regular expression per pattern once backtracked for minutes)', async () => {
    await engine.createIndex('stars', { mappings: { properties: { code: { type: 'keyword' } } } });
    await engine.write([{ action: 'index', index: 'stars', id: '1', source: { code: 'a'.repeat(60) } }], 'true');
    const ids = (value: string) => engine.search('stars', searchRequest({ query: { kind: 'wildcard', field: 'code', value, caseInsensitive: true, boost: 1 } })).hits.hits.map((h) => h._id);
    expect(ids(`${'*a'.repeat(30)}*b`)).toEqual([]);
    expect(ids(`${'*A'.repeat(30)}*`)).toEqual(['1']);
    expect(ids(`a${'?*'.repeat(29)}a`)).toEqual(['1']);
    expect(ids(`a${'?*'.repeat(60)}a`)).toEqual([]);
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
      ['1', 0.22108284],
      ['2', 0.15512443],
    ]);
    expect(hits.max_score).toBe(0.22108284);

    // Sorted by a field, hits carry no score unless track_scores asks for them.
    const sort = [{ kind: 'doc' as const, order: 'desc' as const }];
    const plain = engine.search('scores', searchRequest({ query, sort })).hits;
    expect([plain.max_score, ...plain.hits.map((h) => h._score)]).toEqual([null, null, null]);
    const tracked = engine.search('scores', searchRequest({ query, sort, trackScores: true })).hits;
    expect(tracked.hits.map((h) => [h._id, h._score])).toEqual([
      ['2', 0.15512443],
      ['1', 0.22108284],
    ]);
    expect(tracked.max_score).toBe(0.22108284);
  });
});
