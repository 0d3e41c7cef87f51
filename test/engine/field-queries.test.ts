/**
 * Every leaf query kind on every field a query can name (one field of each mapped type, the
 * metadata fields, an unmapped field) against a plain model of what Elasticsearch 8 answers: the
 * documents it matches, or the error it refuses with. A field that answers nothing where
 * Elasticsearch finds documents (`term` on `_id` once did) fails here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import type { Engine } from '../../src/engine/engine.ts';
import { EsError } from '../../src/engine/errors.ts';
import type { Query, QueryValue } from '../../src/engine/query/query.ts';
import { searchRequest } from '../../src/engine/search/request.ts';
import { compareTerms } from '../../src/engine/terms.ts';
import { withTempEngine } from './helpers.ts';

const INDEX = 'fields.q';
const MAPPINGS = { properties: { tag: { type: 'keyword' }, body: { type: 'text' }, n: { type: 'long' }, x: { type: 'double' }, when: { type: 'date' }, flag: { type: 'boolean' } } };
const TYPES: Record<string, string> = { tag: 'keyword', body: 'text', n: 'long', x: 'double', when: 'date', flag: 'boolean' };

/** Instants the documents hold, as written and in epoch millis. */
const INSTANTS = ['2024-01-01T23:59:59.999Z', '2024-01-02T00:00:00Z', '2024-01-02T13:45:00Z', '2024-01-03T00:00:00Z', '2024-02-01T00:00:00Z'];
/**
 * Date values a query gives, each with the instants it covers: from the value rounded down to the
 * value rounded up, where rounding up fills a missing time of day with its end but a missing month
 * or day with 1, as Elasticsearch's round-up parser does (`2024-01` covers January 1st only).
 */
const DATE_TERMS: Record<string, [number, number]> = {
  '2024-01-02': [Date.UTC(2024, 0, 2), Date.UTC(2024, 0, 3) - 1],
  '2024-01-02T13:45:00Z': [Date.UTC(2024, 0, 2, 13, 45), Date.UTC(2024, 0, 2, 13, 45)],
  '2024-01-02T13': [Date.UTC(2024, 0, 2, 13), Date.UTC(2024, 0, 2, 14) - 1],
  '2024-01': [Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 2) - 1],
  '2024': [Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 2) - 1],
  '1704153600000': [Date.UTC(2024, 0, 2), Date.UTC(2024, 0, 2)],
};

interface Doc {
  id: string;
  routing?: string;
  tag?: string[];
  body?: string;
  n?: number[];
  x?: number;
  when?: string;
  flag?: boolean;
  /** Filled in once written: the document's `_seq_no`, read back by id. */
  seq?: number;
}

const docArb = fc.record(
  {
    routing: fc.constantFrom('r1', 'r2', 'R1'),
    tag: fc.array(fc.constantFrom('a', 'b', 'ab', 'B'), { minLength: 1, maxLength: 2 }),
    body: fc.array(fc.constantFrom('Quick', 'fox', 'dog', 'the'), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
    n: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 1, maxLength: 2 }),
    x: fc.constantFrom(-1.5, 0, 2.25),
    when: fc.constantFrom(...INSTANTS),
    flag: fc.boolean(),
  },
  { requiredKeys: [] },
);

const FIELDS = [...Object.keys(TYPES), '_id', '_index', '_routing', '_seq_no', '_version', '_source', 'missing'];

/** Values a query may give each field. */
function valuesFor(field: string): fc.Arbitrary<QueryValue> {
  switch (field) {
    case 'tag':
      return fc.constantFrom('a', 'b', 'ab', 'B');
    case 'body':
      return fc.constantFrom('fox', 'quick', 'Quick', 'dog');
    case 'n':
      // Fractions too: a long field takes a range's fractional ends inward, and no term matches one.
      return fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constantFrom('1', '-2', 0.5, -1.5, '1.5', -5e-324));
    case 'x':
      return fc.constantFrom(-1.5, 0, 2.25, '2.25');
    case 'when':
      return fc.constantFrom(...Object.keys(DATE_TERMS));
    case 'flag':
      return fc.constantFrom(true, false, 'true');
    case '_id':
      return fc.constantFrom('d0', 'd1', 'd3', 'D0', 'nope');
    case '_index':
      return fc.constantFrom(INDEX, 'fields.*', '*', 'other', 'FIELDS.Q');
    case '_routing':
      return fc.constantFrom('r1', 'r2', 'R1', 'r3');
    case '_seq_no':
      return fc.integer({ min: 0, max: 6 });
    default:
      return fc.constantFrom('a', 1);
  }
}

/** Patterns for `prefix` and `wildcard`. */
const PATTERNS = ['a', 'b', 'q', 'd', 'r', 'f', 'fields', 'x'];

const leafArb: fc.Arbitrary<Query> = fc.constantFrom(...FIELDS).chain((field) =>
  fc.oneof(
    fc.tuple(valuesFor(field), fc.boolean()).map(([value, caseInsensitive]): Query => ({ kind: 'term', field, value, caseInsensitive, boost: 1 })),
    fc.array(valuesFor(field), { minLength: 1, maxLength: 3 }).map((values): Query => ({ kind: 'terms', field, values, boost: 1 })),
    valuesFor(field).map((query): Query => ({ kind: 'match', field, query, operator: 'or', zeroTermsQuery: 'none', lenient: false, boost: 1 })),
    fc.constantFrom(...PATTERNS).map((value): Query => ({ kind: 'prefix', field, value, caseInsensitive: false, boost: 1 })),
    fc.constantFrom(...PATTERNS).map((p) => `${p}*`).map((value): Query => ({ kind: 'wildcard', field, value, caseInsensitive: false, boost: 1 })),
    fc.constant<Query>({ kind: 'exists', field, boost: 1 }),
    fc.tuple(valuesFor(field), valuesFor(field)).map(([gte, lte]): Query => ({ kind: 'range', field, gte, lte, boost: 1 })),
  ),
);

/** What the model says: the matching documents, or the reason Elasticsearch refuses the query with. */
type Answer = { ids: string[] } | { refused: string };

function refuse(reason: string): never {
  throw new Refused(reason);
}
class Refused extends Error {}

/** The plain model: each field's values, read the simplest way, and each query kind's rule. */
function answer(query: Query, docs: readonly Doc[]): Answer {
  try {
    return { ids: docs.filter((doc) => matches(query, doc)).map((doc) => doc.id) };
  } catch (e) {
    if (e instanceof Refused) return { refused: e.message };
    throw e;
  }
}

function matches(query: Query, doc: Doc): boolean {
  switch (query.kind) {
    case 'term':
      return termMatches(query.field, query.value, query.caseInsensitive, doc);
    case 'terms':
      return query.values.map((value) => termMatches(query.field, value, false, doc)).some(Boolean);
    case 'match':
      if (query.field === 'body') return analyze(String(query.query)).some((token) => analyze(doc.body ?? '').includes(token));
      if (query.field === '_version' || query.field === '_source') refuse(`failed to create query: Field [${query.field}] of type [${query.field}] does not support match queries`);
      return termMatches(query.field, query.query, false, doc);
    case 'prefix':
    case 'wildcard': {
      const kind = query.kind;
      const stem = query.value.replace(/\*$/, '');
      return termsOf(query.field, doc, () => refuse(`Can only use ${kind} queries on keyword, text and wildcard fields - not on [${query.field}] which is of type [${TYPES[query.field] ?? query.field}]`)).some((t) => t.startsWith(stem));
    }
    case 'exists':
      if (query.field === '_source') refuse('The _source field is not searchable');
      if (['_id', '_index', '_seq_no', '_version'].includes(query.field)) return true;
      if (query.field === '_routing') return doc.routing !== undefined;
      return (doc as unknown as Record<string, unknown>)[query.field] !== undefined;
    case 'range':
      return rangeMatches(query.field, query.gte!, query.lte!, doc);
    default:
      throw new Error(`no model for ${query.kind}`);
  }
}

function termMatches(field: string, value: QueryValue, caseInsensitive: boolean, doc: Doc): boolean {
  const same = (a: string, b: string) => (caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b);
  switch (field) {
    case 'tag':
      return (doc.tag ?? []).some((t) => same(t, String(value)));
    case 'body':
      return analyze(doc.body ?? '').some((t) => same(t, String(value)));
    case 'n':
      return Number.isInteger(Number(value)) && (doc.n ?? []).includes(Number(value));
    case 'x':
      return doc.x === Number(value);
    case 'when': {
      if (doc.when === undefined) return false;
      const [lo, hi] = DATE_TERMS[String(value)];
      const at = Date.parse(doc.when);
      return lo <= at && at <= hi;
    }
    case 'flag':
      return doc.flag !== undefined && doc.flag === (value === true || value === 'true');
    case '_id':
      return same(doc.id, String(value));
    case '_index': {
      const pattern = new RegExp(`^${String(value).replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`, caseInsensitive ? 'i' : '');
      return pattern.test(INDEX);
    }
    case '_routing':
      return doc.routing !== undefined && same(doc.routing, String(value));
    case '_seq_no':
      return doc.seq === Number(value);
    case '_version':
    case '_source':
      return refuse(`The ${field} field is not searchable`);
    default:
      return false;
  }
}

/** The terms a prefix or wildcard reads: keywords, text tokens, the index name, routing values; other types refuse. */
function termsOf(field: string, doc: Doc, refused: () => never): string[] {
  switch (field) {
    case 'tag':
      return doc.tag ?? [];
    case 'body':
      return analyze(doc.body ?? '');
    case '_index':
      return [INDEX];
    case '_routing':
      return doc.routing === undefined ? [] : [doc.routing];
    case 'missing':
      return [];
    default:
      return refused();
  }
}

function rangeMatches(field: string, gte: QueryValue, lte: QueryValue, doc: Doc): boolean {
  const numbers = (values: number[], lo: number, hi: number) => values.some((v) => lo <= v && v <= hi);
  const terms = (values: string[]) => values.some((t) => compareTerms(t, String(gte)) >= 0 && compareTerms(t, String(lte)) <= 0);
  switch (field) {
    case 'tag':
      return terms(doc.tag ?? []);
    case 'body':
      return terms(analyze(doc.body ?? ''));
    case '_routing':
      return terms(doc.routing === undefined ? [] : [doc.routing]);
    case 'n':
      // Whole numbers: a fractional end is taken inward (gte 0.5 is ≥ 1, lte -1.5 is ≤ -2).
      return numbers(doc.n ?? [], Math.ceil(Number(gte)), Math.floor(Number(lte)));
    case 'x':
      return numbers(doc.x === undefined ? [] : [doc.x], Number(gte), Number(lte));
    case 'when':
      // A date range's lower bound rounds down, its upper bound up: the units of both values.
      return numbers(doc.when === undefined ? [] : [Date.parse(doc.when)], DATE_TERMS[String(gte)][0], DATE_TERMS[String(lte)][1]);
    case 'flag': {
      const bit = (v: QueryValue) => (v === true || v === 'true' ? 1 : 0);
      return numbers(doc.flag === undefined ? [] : [doc.flag ? 1 : 0], bit(gte), bit(lte));
    }
    case '_seq_no':
      return numbers([doc.seq!], Number(gte), Number(lte));
    case 'missing':
      return false;
    default:
      return refuse(`failed to create query: Field [${field}] of type [${field}] does not support range queries`);
  }
}

/** What the engine answers: the hits' ids, or the reason of the shard failure it refuses with. */
function engineAnswer(engine: Engine, query: Query): Answer {
  try {
    const ids = engine.search(INDEX, searchRequest({ query, size: 100 })).hits.hits.map((hit) => hit._id!);
    return { ids };
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    expect(e.status).toBe(400);
    return { refused: (e.causedBy ?? e).reason };
  }
}

describe('every query kind on every field', () => {
  let engine!: Engine;
  withTempEngine((made) => (engine = made));

  it('answers what Elasticsearch answers, or refuses as it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(docArb, { minLength: 1, maxLength: 12 }), fc.array(leafArb, { minLength: 1, maxLength: 12 }), async (raw, queries) => {
        await engine.createIndex(INDEX, { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
        try {
          const docs: Doc[] = raw.map((d, i) => ({ id: `d${i}`, ...d }));
          const half = Math.ceil(docs.length / 2);
          const write = (some: Doc[]) =>
            engine.write(some.map(({ id, routing, seq: _seq, ...source }) => ({ action: 'index' as const, index: INDEX, id, source, ...(routing !== undefined && { routing }) })));
          await write(docs.slice(0, half));
          engine.refresh(INDEX);
          await write(docs.slice(half));
          engine.refresh(INDEX);
          for (const doc of docs) {
            const hit = engine.search(INDEX, searchRequest({ query: { kind: 'ids', values: [doc.id], boost: 1 }, size: 1, seqNoPrimaryTerm: true })).hits.hits[0];
            doc.seq = hit._seq_no;
          }
          for (const query of queries) {
            const expected = answer(query, docs);
            const got = engineAnswer(engine, query);
            if ('ids' in expected && 'ids' in got) expect(got.ids.sort(), JSON.stringify(query)).toEqual(expected.ids.sort());
            else expect(got, JSON.stringify(query)).toEqual(expected);
          }
        } finally {
          await engine.deleteIndices(INDEX);
        }
      }),
      { numRuns: 60 },
    );
  });
});
