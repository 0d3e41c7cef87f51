/**
 * The client's answer made from the cluster's page answer (page-answer.ts), against a model that
 * edits the parsed JSON: hits before the page dropped, the page cut to size, the tie-breaker out of
 * each hit's sort, `pit_id` out, `hits.total` as `track_total_hits` asks, aggregations put in; and
 * the rest of the text (a `_source` with a long beyond 2^53) the cluster's bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageAnswer } from '../../src/front/rank/page-answer.ts';

const hitArb = fc.record({ _index: fc.constant('i'), _id: fc.string(), _score: fc.constant(null), _source: fc.dictionary(fc.string(), fc.jsonValue()), sort: fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { minLength: 2, maxLength: 4 }) });

describe('a page answer', () => {
  it('is the cluster\'s answer edited as the model edits it', () => {
    fc.assert(
      fc.property(fc.array(hitArb, { maxLength: 12 }), fc.nat(6), fc.integer({ min: 1, max: 8 }), fc.nat(50_000), fc.oneof(fc.boolean(), fc.nat(20_000)), fc.boolean(), fc.option(fc.jsonValue(), { nil: undefined }), (hits, skip, size, total, trackTotalHits, restTotalHitsAsInt, aggregations) => {
        const cluster = { pit_id: 'abc==', took: 3, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { max_score: null, hits } };
        const text = pageAnswer(JSON.stringify(cluster, null, 1), { skip, size, dropTieBreaker: true, total, trackTotalHits, restTotalHitsAsInt, aggregations: aggregations === undefined ? undefined : JSON.stringify(aggregations) });
        const shown = restTotalHitsAsInt ? total : trackTotalHits === false ? undefined : trackTotalHits === true || total <= trackTotalHits ? { value: total, relation: 'eq' } : { value: trackTotalHits, relation: 'gte' };
        const expected = {
          took: 3,
          timed_out: false,
          _shards: cluster._shards,
          hits: { ...(shown !== undefined && { total: shown }), max_score: null, hits: hits.slice(skip, skip + size).map((hit) => ({ ...hit, sort: hit.sort.slice(0, -1) })) },
          ...(aggregations !== undefined && { aggregations }),
        };
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(expected)));
      }),
    );
  });

  it('keeps the cluster\'s bytes of what it does not edit', () => {
    const text = '{"pit_id":"x","took":1,"hits":{"max_score":null,"hits":[{"_id":"1","_source":{"n":9223372036854775807,"f":1.0},"sort":[9223372036854775807,4294967296]}]}}';
    expect(pageAnswer(text, { skip: 0, size: 10, dropTieBreaker: true, total: 1, trackTotalHits: true, restTotalHitsAsInt: false })).toBe(
      '{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[{"_id":"1","_source":{"n":9223372036854775807,"f":1.0},"sort":[9223372036854775807]}]}}',
    );
  });
});
