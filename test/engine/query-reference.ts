/**
 * Random documents and query trees for the query tests, and the plain reference evaluator they are
 * checked against: each query kind's rule read as simply as possible.
 */
import fc from 'fast-check';
import { analyze } from '../../src/engine/analysis/standard-analyzer.ts';
import type { Query } from '../../src/engine/query/query.ts';
import { compareTerms } from '../../src/engine/terms.ts';

export interface Doc {
  id: string;
  body?: string[];
  tag?: string[];
  n?: number[];
}

const WORDS = ['fox', 'Quick', 'dog', 'lazy', 'the', 'brown', 'dogs'];
export const docArb = fc.record(
  {
    body: fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 2 }),
    tag: fc.array(fc.constantFrom('a', 'b', 'c', 'ab', 'B', 'abc', 'ba', 'b\u{1F600}', 'b\uE000'), { minLength: 1, maxLength: 3 }),
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
  // Term ranges with any bounds: the span of the dictionary read is found by binary search.
  fc.record({ gt: fc.constantFrom('a', 'ab', 'b'), gte: fc.constantFrom('a', 'abc', 'b\u{1F600}'), lt: fc.constantFrom('b', 'ba', 'c'), lte: fc.constantFrom('ab', 'b\uE000', 'c') }, { requiredKeys: [] })
    .map((bounds): Query => ({ kind: 'range', field: 'tag', ...bounds, boost: 1 })),
  fc.constantFrom('body', 'tag', 'n', 'missing').map((field): Query => ({ kind: 'exists', field, boost: 1 })),
  fc.array(fc.constantFrom('d0', 'd1', 'd5', 'd9', 'nope'), { maxLength: 3 }).map((values): Query => ({ kind: 'ids', values, boost: 1 })),
  fc.tuple(fc.constantFrom('tag', 'body'), fc.constantFrom('a', 'b', 'x', 'ab', 'do', 'qu', 'Qu', 'b\uD83D', '')).map(([field, value]): Query => ({ kind: 'prefix', field, value, caseInsensitive: false, boost: 1 })),
  fc.tuple(fc.constantFrom('tag', 'body'), fc.constantFrom('*b', 'a?', '?', 'a*', 'ab*', 'b?', 'd*s', 'do?', 'b\uD83D*')).map(([field, value]): Query => ({ kind: 'wildcard', field, value, caseInsensitive: false, boost: 1 })),
  fc.tuple(fc.constantFrom('quick fox', 'lazy dogs', 'the', 'cat'), fc.constantFrom<'or' | 'and'>('or', 'and')).map(([query, operator]): Query => ({ kind: 'match', field: 'body', query, operator, zeroTermsQuery: 'none', lenient: false, boost: 1 })),
  fc.constantFrom('quick fox', 'lazy dog', 'fox quick').map((query): Query => ({ kind: 'match_phrase', field: 'body', query, slop: 0, zeroTermsQuery: 'none', boost: 1 })),
);

export const queryArb: fc.Arbitrary<Query> = fc.letrec<{ q: Query }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record({ must: fc.array(tie('q'), { maxLength: 2 }), filter: fc.array(tie('q'), { maxLength: 2 }), should: fc.array(tie('q'), { maxLength: 2 }), mustNot: fc.array(tie('q'), { maxLength: 1 }) }).map((b): Query => ({ kind: 'bool', ...b, boost: 1 })),
    tie('q').map((filter): Query => ({ kind: 'constant_score', filter, boost: 2 })),
  ),
})).q;

/** The terms a document holds in a field: its keyword values, or its text's tokens. */
function termsOf(field: string, doc: Doc): string[] {
  return field === 'body' ? (doc.body ?? []).flatMap((v) => analyze(v)) : (doc.tag ?? []);
}

/** Does the document match? The plain reading of each query's rules. */
export function matches(q: Query, doc: Doc): boolean {
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
      if (q.field === 'tag') {
        const within = (t: string) =>
          (q.gt === undefined || compareTerms(t, String(q.gt)) > 0) && (q.gte === undefined || compareTerms(t, String(q.gte)) >= 0) &&
          (q.lt === undefined || compareTerms(t, String(q.lt)) < 0) && (q.lte === undefined || compareTerms(t, String(q.lte)) <= 0);
        return (doc.tag ?? []).some(within);
      }
      return (doc.n ?? []).some((n) => n >= Number(q.gte) && n < Number(q.lt));
    case 'exists':
      return q.field === 'body' ? doc.body !== undefined : q.field === 'tag' ? doc.tag !== undefined : q.field === 'n' ? doc.n !== undefined : false;
    case 'ids':
      return q.values.includes(doc.id);
    case 'prefix':
      return termsOf(q.field, doc).some((t) => t.startsWith(q.value));
    case 'wildcard': {
      // No regular expression: `?` is one code point, `*` any run, matched by plain recursion.
      const pattern = [...q.value];
      const match = (t: string[], p: number, i: number): boolean =>
        p === pattern.length ? i === t.length : pattern[p] === '*' ? match(t, p + 1, i) || (i < t.length && match(t, p, i + 1)) : i < t.length && (pattern[p] === '?' || pattern[p] === t[i]) && match(t, p + 1, i + 1);
      return termsOf(q.field, doc).some((t) => match([...t], 0, 0));
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

/** The document's `_source`: single values unwrapped. */
export function sourceOf(doc: Doc): Record<string, unknown> {
  const { id: _id, ...fields } = doc;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
}
