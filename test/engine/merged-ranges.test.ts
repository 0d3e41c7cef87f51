/**
 * A filter range and excluded ranges on one field, as the front's cold pages send them (`> a` but
 * not `> b`): taken as one interval in segments where the field is single-valued, left as a
 * subtraction where it is not or where the exclusion makes a hole. Either way the documents are the
 * plain model's, through deletes, with and without the field's sorted run, for numbers, dates and
 * keywords, and a document with several values matches by any of them as Elasticsearch's do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { searchRequest, type Paging } from '../../src/engine/search/request.ts';
import { compareTerms } from '../../src/engine/terms.ts';
import { withTempEngine } from './helpers.ts';

const mappings = { properties: { n: { type: 'long' }, x: { type: 'double' }, k: { type: 'keyword' }, m: { type: 'long' } } };
const WORDS = ['a', 'ab', 'b', 'ba', 'c', 'é', '中'];

type Doc = {
  n?: number;
  x?: number;
  k?: string;
  /** Several values in some documents: never merged. */
  m?: number | number[];
};

const docArb: fc.Arbitrary<Doc> = fc.record(
  {
    n: fc.integer({ min: 0, max: 12 }),
    x: fc.constantFrom(-1.5, 0, 0.25, 2, 7.75),
    k: fc.constantFrom(...WORDS),
    m: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 2, maxLength: 3 })),
  },
  { requiredKeys: [] },
);

type Bounds = { gt?: number | string; gte?: number | string; lt?: number | string; lte?: number | string };
const FIELDS = ['n', 'x', 'k', 'm'] as const;
type Field = (typeof FIELDS)[number];

/** Bounds of every kind, one-sided ones (which cut an interval at an end) most often. */
function boundsArb(field: Field): fc.Arbitrary<Bounds> {
  const value = field === 'k' ? fc.constantFrom(...WORDS, 'aa', 'bz') : field === 'x' ? fc.constantFrom(-2, -1.5, 0, 0.1, 2, 7.75, 9) : fc.oneof(fc.integer({ min: -1, max: 13 }), fc.constantFrom(2.5, -0.5));
  return fc.oneof(
    fc.tuple(fc.constantFrom('gt', 'gte', 'lt', 'lte'), value).map(([end, v]): Bounds => ({ [end]: v })),
    fc.record({ gt: value, gte: value, lt: value, lte: value }, { requiredKeys: [] }),
  );
}

/** The plain model: any of the document's values within every bound given (whole-number fields take a fractional end inward). */
function inRange(field: Field, doc: Doc, b: Bounds): boolean {
  const values = ([] as (number | string)[]).concat(doc[field] ?? []);
  const whole = field === 'n' || field === 'm';
  const cmp = (v: number | string, bound: number | string) => (field === 'k' ? compareTerms(String(v), String(bound)) : (v as number) - (bound as number));
  return values.some((v) => {
    if (whole) {
      const lo = Math.max(b.gte === undefined ? -Infinity : Number.isInteger(b.gte) ? (b.gte as number) : Math.ceil(b.gte as number), b.gt === undefined ? -Infinity : Number.isInteger(b.gt) ? (b.gt as number) + 1 : Math.ceil(b.gt as number));
      const hi = Math.min(b.lte === undefined ? Infinity : Number.isInteger(b.lte) ? (b.lte as number) : Math.floor(b.lte as number), b.lt === undefined ? Infinity : Number.isInteger(b.lt) ? (b.lt as number) - 1 : Math.floor(b.lt as number));
      return (v as number) >= lo && (v as number) <= hi;
    }
    return (b.gt === undefined || cmp(v, b.gt) > 0) && (b.gte === undefined || cmp(v, b.gte) >= 0) && (b.lt === undefined || cmp(v, b.lt) < 0) && (b.lte === undefined || cmp(v, b.lte) <= 0);
  });
}

const range = (field: Field, bounds: Bounds): Query => ({ kind: 'range', field, ...bounds, boost: 1 });

describe('a filter range with excluded ranges on the same field', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  it('matches what the plain model matches, merged or not', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat({ max: 59 }), { maxLength: 8 }),
        fc.constantFrom(...FIELDS).chain((field) => fc.tuple(fc.constant(field), boundsArb(field), fc.array(boundsArb(field), { minLength: 1, maxLength: 2 }))),
        fc.boolean(),
        fc.constantFrom<Paging>('top_k', 'sorted_runs'),
        async (docs, deletes, [field, kept, excluded], withMatchAll, paging) => {
          const name = `merged-${round++}`;
          await engine.createIndex(name, { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings });
          try {
            // Segments of 7 documents: some hold several values of `m`, some none.
            for (const [i, doc] of docs.entries()) {
              await engine.write([{ action: 'index', index: name, id: `d${i}`, source: doc }]);
              if (i % 7 === 6) engine.refresh(name);
            }
            const gone = new Set(deletes.filter((i) => i < docs.length));
            if (gone.size > 0) await engine.write([...gone].map((i) => ({ action: 'delete' as const, index: name, id: `d${i}` })));
            engine.refresh(name);
            const query: Query = { kind: 'bool', must: [], should: [], filter: [...(withMatchAll ? [{ kind: 'match_all', boost: 1 } as Query] : []), range(field, kept)], mustNot: excluded.map((b) => range(field, b)), boost: 1 };
            const expected = docs
              .map((doc, i) => ({ doc, id: `d${i}` }))
              .filter(({ doc, id }) => !gone.has(Number(id.slice(1))) && inRange(field, doc, kept) && !excluded.some((b) => inRange(field, doc, b)))
              .map(({ id }) => id)
              .sort();
            const ids = () => engine.search(name, searchRequest({ query, size: 100, paging })).hits.hits.map((h) => h._id!).sort();
            expect(ids()).toEqual(expected);
            expect(engine.count(name, query).count).toBe(expected.length);
            // Again once the field's sorted run is kept (a range builds it between requests).
            await engine.runs.settled();
            expect(ids()).toEqual(expected);
            expect(engine.count(name, query).count).toBe(expected.length);
          } finally {
            await engine.deleteIndices(name);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
