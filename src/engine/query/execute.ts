/**
 * Runs a query over one segment: which documents match and, in query context, their scores, the
 * way Elasticsearch's query builders become Lucene queries over a shard. Term statistics for BM25
 * are the shard's (every segment of it, deleted documents included, as Lucene counts them).
 *
 * Deleted documents are left in; the caller filters them with the segment's live mask.
 */
import { analyze } from '../analysis/standard-analyzer.ts';
import { EsError, illegalArgument } from '../errors.ts';
import { escapeRegExp, globPattern, starPattern } from '../patterns.ts';
import { parseValue, type FieldMapping, type Mappings } from '../mapping.ts';
import { forEachValue, type FieldColumn, type KeywordColumn } from '../segments/segment.ts';
import { termNumber, type TextIndex } from '../segments/postings.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { compareTerms, lowerBound as termLowerBound } from '../terms.ts';
import { firstNotBefore, lowerBound, upperBound } from '../binary-search.ts';
import { lengthToNorm, phraseScorer, termScorer, type TermStatistics } from './bm25.ts';
import { failedToCreateQuery, parseBound } from './bounds.ts';
import { cannotUse, isMetadataField, matchMetadata } from './metadata-fields.ts';
import { allDocs, constantScore, everyDoc, disjunctionMax, intersect, NO_MATCHES, subtract, unite, type Matches } from './matches.ts';
import { minimumShouldMatch } from './minimum-should-match.ts';
import type { Query, QueryValue } from './query.ts';
import { resolveQueryString } from './query-string.ts';

/** What a query runs against: one segment, the shard it belongs to, and the index's mappings. */
export interface SegmentContext {
  live: LiveSegment;
  /** Every segment of the shard, for term statistics. */
  shard: readonly LiveSegment[];
  /** The shard's term statistics computed so far in this search, by field and term (one per shard, owned by the search). */
  statistics: Map<string, TermStatistics>;
  mappings: Mappings;
  /** The index's name (what `_index` matches). */
  index: string;
  /** `now` for date math, fixed for the whole search. */
  now: number;
  /** Leaf clauses built so far for this segment ({@link countClause}). */
  clauses?: { count: number };
  /**
   * The segment's live documents sorted by a numeric field (ascending, missing last), when the
   * search keeps such a run: a range over a single-valued field is then two binary searches.
   */
  sortedBy?: (field: string) => FieldRun | undefined;
}

/**
 * A segment's live documents sorted by a numeric field: its values in that order and their
 * positions. Read through functions, when needed: wasm memory may grow, and move, between reads.
 */
export interface FieldRun {
  values(): Float64Array;
  positions(): Uint32Array;
}

/**
 * The most leaf clauses a query may build (Lucene's `maxClauseCount`; Elasticsearch 8.0's default of
 * `indices.query.bool.max_clause_count`): each term of an analyzed `match`, each `term`, `range`,
 * `exists` and so on, counted over the whole tree as Lucene's IndexSearcher counts them.
 */
export const MAX_CLAUSE_COUNT = 4096;

/** A query over {@link MAX_CLAUSE_COUNT}: Elasticsearch fails every shard with this, a 400. */
export class TooManyClauses extends EsError {
  constructor() {
    super(400, 'illegal_argument_exception', 'Query rewrite failed: too many clauses', {}, new EsError(400, 'too_many_nested_clauses', `Query contains too many nested clauses; maxClauseCount is set to ${MAX_CLAUSE_COUNT}`));
  }
}

/** Counts one leaf clause for the segment; one too many fails the query. */
function countClause(context: SegmentContext): void {
  const clauses = (context.clauses ??= { count: 0 });
  if (++clauses.count > MAX_CLAUSE_COUNT) throw new TooManyClauses();
}

const f = Math.fround;

/** @param scored query context (scores wanted) or filter context. */
export function matchSegment(query: Query, context: SegmentContext, scored: boolean, boost = 1): Matches {
  const count = context.live.segment.count;
  const here = f(boost * query.boost);
  // Leaves count here; terms where they are built (termQuery), phrases in phraseQuery.
  if (LEAVES.has(query.kind)) countClause(context);
  switch (query.kind) {
    case 'match_all':
      return scored ? allDocs(count, here) : everyDoc(count, context.live.deleted, context.live.deletedCount);
    case 'match_none':
      return NO_MATCHES;
    case 'term':
      return termQuery(query.field, query.value, query.caseInsensitive, context, scored, here);
    case 'terms':
      return constantScore(unite(query.values.map((value) => termQuery(query.field, value, false, context, false, 1)), false), scored ? here : undefined);
    case 'range':
      return constantScore(rangeQuery(query, context), scored ? here : undefined);
    case 'exists':
      return constantScore(existsQuery(query.field, context), scored ? here : undefined);
    case 'ids':
      return constantScore(idsQuery(query.values, context), scored ? here : undefined);
    case 'prefix':
      return constantScore(termsWhere(query.kind, query.field, context, prefixTest(query.value, query.caseInsensitive)), scored ? here : undefined);
    case 'wildcard':
      return constantScore(termsWhere(query.kind, query.field, context, wildcardTest(query.value, query.caseInsensitive)), scored ? here : undefined);
    case 'constant_score':
      return constantScore(matchSegment(query.filter, context, false), scored ? here : undefined);
    case 'dis_max':
      return disjunctionMax(query.queries.map((q) => matchSegment(q, context, scored, here)), scored, query.tieBreaker);
    case 'bool':
      return boolQuery(query, context, scored, here);
    case 'match':
      return matchQuery(query.field, query.query, query, context, scored, here);
    case 'match_phrase':
      return phraseQuery(query.field, query.query, query.slop, query.zeroTermsQuery, context, scored, here);
    case 'multi_match': {
      const fields = query.fields.flatMap(({ field, boost: fieldBoost }) => expandField(field, context.mappings).map((name) => ({ name, boost: fieldBoost })));
      const perField = fields.map(({ name, boost: fieldBoost }) => matchQuery(name, query.query, query, context, scored, f(here * fieldBoost)));
      return disjunctionMax(perField, scored, query.tieBreaker);
    }
    case 'query_string':
      return matchSegment(resolveQueryString(query, context.mappings), context, scored, boost);
  }
}

const LEAVES = new Set<Query['kind']>(['match_all', 'match_none', 'terms', 'range', 'exists', 'ids', 'prefix', 'wildcard']);

function boolQuery(query: Extract<Query, { kind: 'bool' }>, context: SegmentContext, scored: boolean, boost: number): Matches {
  const { must, filter, should, mustNot } = query;
  const count = context.live.segment.count;
  if (must.length + filter.length + should.length + mustNot.length === 0) return allDocs(count, scored ? boost : undefined);
  const required = [...must.map((q) => matchSegment(q, context, scored, boost)), ...filter.map((q) => matchSegment(q, context, false))];
  const optional = should.map((q) => matchSegment(q, context, scored, boost));
  let minimum = query.minimumShouldMatch === undefined ? 0 : minimumShouldMatch(query.minimumShouldMatch, should.length);
  // Without a must or filter clause, a should clause must match (Lucene's plain boolean semantics).
  if (query.minimumShouldMatch === undefined && required.length === 0 && should.length > 0) minimum = 1;
  let matches: Matches;
  if (required.length === 0) {
    matches = should.length === 0 ? allDocs(count, scored ? 0 : undefined) : unite(optional, scored, Math.max(minimum, 1));
  } else {
    const req = intersect(required, scored, count);
    if (should.length === 0 || (minimum === 0 && !scored)) matches = req;
    else if (minimum > 0) matches = intersect([req, unite(optional, scored, minimum)], scored);
    else matches = withOptional(req, unite(optional, scored));
  }
  if (mustNot.length > 0) matches = subtract(matches, unite(mustNot.map((q) => matchSegment(q, context, false)), false));
  return matches;
}

/** Lucene's ReqOptSumScorer: the required score plus, where an optional clause matches too, its score (floats added). */
function withOptional(req: Matches, opt: Matches): Matches {
  if (!req.scores || !opt.scores) return req;
  const scores = Float64Array.from(req.scores);
  let at = 0;
  req.docs.forEach((doc, i) => {
    while (at < opt.docs.length && opt.docs[at] < doc) at++;
    if (at < opt.docs.length && opt.docs[at] === doc) scores[i] = f(scores[i] + opt.scores![at]);
  });
  return { docs: req.docs, scores };
}

function termQuery(field: string, value: QueryValue, caseInsensitive: boolean, context: SegmentContext, scored: boolean, boost: number): Matches {
  countClause(context);
  if (isMetadataField(field)) return matchMetadata(field, { kind: 'term', value, caseInsensitive }, context, scored, boost);
  const mapping = context.mappings.get(field);
  if (!mapping) return NO_MATCHES;
  const { segment } = context.live;
  if (mapping.type === 'text') {
    const term = String(value);
    const matches = (index: TextIndex) => (caseInsensitive ? index.terms.flatMap((t, n) => (t.toLowerCase() === term.toLowerCase() ? [n] : [])) : [termNumber(index, term)].filter((n) => n >= 0));
    const index = segment.texts.get(field);
    if (!index) return NO_MATCHES;
    const numbers = matches(index);
    if (numbers.length === 0) return NO_MATCHES;
    if (numbers.length > 1 || !scored) return constantScore(unite(numbers.map((n) => postingsOf(index, n)), false), scored ? boost : undefined);
    return scoredPostings(index, numbers[0], termScorer(boost, statistics('text', field, term, context)));
  }
  if (mapping.type === 'keyword') {
    const term = String(value);
    const column = segment.columns.get(field) as KeywordColumn | undefined;
    if (!column) return NO_MATCHES;
    let docs: Matches;
    if (caseInsensitive) docs = valuesWhere(column, keywordOrdinals(column, { test: (t) => t.toLowerCase() === term.toLowerCase() }));
    else {
      const ord = termLowerBound(column.terms, term);
      docs = column.terms[ord] === term ? valuesBetween(column, ord, ord, context.live) : NO_MATCHES;
    }
    if (!scored) return docs;
    // Keywords keep no norms or frequencies: every match scores as freq 1, length 1.
    const scorer = termScorer(boost, statistics('keyword', field, term, context));
    return { docs: docs.docs, scores: new Float64Array(docs.docs.length).fill(scorer.score(1, 1)) };
  }
  const [lo, hi] = termBounds(mapping, field, value, context.now);
  const column = segment.columns.get(field);
  if (!column) return NO_MATCHES;
  return constantScore(numbersBetween(field, column, lo, hi, context), scored ? boost : undefined);
}

/**
 * The values a term on a numeric field matches: the number itself, or on a date every instant of
 * the value's rounding unit, as Elasticsearch turns a term on a date into a range from the value
 * rounded down to the value rounded up (`2024-01-02` is the whole day; epoch millis one instant).
 */
function termBounds(mapping: FieldMapping, field: string, value: QueryValue, now: number): [lo: number, hi: number] {
  if (mapping.type === 'date') return [parseBound(mapping, field, value, { roundUp: false, now }), parseBound(mapping, field, value, { roundUp: true, now })];
  const number = fieldNumber(mapping, field, value);
  return [number, number];
}

/** The value as the numeric field reads it; a value it cannot read fails the query, as in Elasticsearch. */
function fieldNumber(mapping: FieldMapping, field: string, value: QueryValue): number {
  const number = parseValue(mapping, value);
  if (typeof number !== 'number') throw failedToCreateQuery(`For input string: "${String(value)}"`, field);
  return number;
}

function rangeQuery(query: Extract<Query, { kind: 'range' }>, context: SegmentContext): Matches {
  if (isMetadataField(query.field)) return matchMetadata(query.field, query, context, false, 1);
  const mapping = context.mappings.get(query.field);
  if (!mapping) return NO_MATCHES;
  const { segment } = context.live;
  if (mapping.type === 'keyword' || mapping.type === 'text') {
    const above = (t: string) =>
      (query.gt === undefined || compareTerms(t, String(query.gt)) > 0) &&
      (query.gte === undefined || compareTerms(t, String(query.gte)) >= 0);
    const past = (t: string) =>
      (query.lt !== undefined && compareTerms(t, String(query.lt)) >= 0) ||
      (query.lte !== undefined && compareTerms(t, String(query.lte)) > 0);
    const lower = query.gte ?? query.gt;
    return termsWhere('range', query.field, context, { test: (t) => above(t) && !past(t), from: lower === undefined ? undefined : String(lower), past });
  }
  const column = segment.columns.get(query.field);
  if (!column) return NO_MATCHES;
  const bound = (value: QueryValue | undefined, roundUp: boolean) => (value === undefined ? undefined : parseBound(mapping, query.field, value, { roundUp, now: context.now, format: query.format, timeZone: query.timeZone }));
  const gt = bound(query.gt, true), gte = bound(query.gte, false), lt = bound(query.lt, false), lte = bound(query.lte, true);
  // One closed interval: an open end moves to the next double inward.
  const lo = Math.max(gte ?? -Infinity, gt === undefined ? -Infinity : nextUp(gt));
  const hi = Math.min(lte ?? Infinity, lt === undefined ? Infinity : nextDown(lt));
  return numbersBetween(query.field, column, lo, hi, context);
}

/** Documents with a value of the numeric field in [lo, hi]: from its sorted run when kept (single-valued columns), else a scan. */
function numbersBetween(field: string, column: FieldColumn, lo: number, hi: number, context: SegmentContext): Matches {
  const sorted = column.several === undefined ? context.sortedBy?.(field) : undefined;
  return sorted ? sortedBetween(sorted, column, context.live, lo, hi) : valuesBetween(column, lo, hi, context.live);
}

/**
 * Documents with a value in [lo, hi] from the field's sorted run of the snapshot (its deletes left
 * out): the entries between two binary searches (missing values, NaN, sort last and fail both
 * bounds). They are known at once, by count and by the column's value; listed in position order
 * only when read.
 */
function sortedBetween(sorted: FieldRun, column: FieldColumn, live: SegmentContext['live'], lo: number, hi: number): Matches {
  if (!(lo <= hi)) return NO_MATCHES;
  const values = sorted.values();
  const a = lowerBound(values, lo);
  const b = upperBound(values, hi, a);
  const found = b - a;
  const count = live.segment.count;
  const { min } = column;
  const { deleted } = live;
  let docs: Uint32Array | undefined;
  return {
    known: {
      count: found,
      has: (doc) => min[doc] >= lo && min[doc] <= hi && !(deleted && deleted[doc] === 1),
    },
    get docs() {
      return (docs ??= listBetween(sorted.positions(), a, b, count));
    },
  };
}

/** Positions[a, b) in ascending order: few are sorted, many are marked and read back in order. */
function listBetween(positions: Uint32Array, a: number, b: number, count: number): Uint32Array {
  const found = b - a;
  if (found * 16 < count) return positions.slice(a, b).sort();
  const marked = new Uint8Array(count);
  for (let i = a; i < b; i++) marked[positions[i]] = 1;
  // Without a branch (a mark is 0 or 1): one slot of room for the write past the last.
  const docs = new Uint32Array(found + 1);
  let at = 0;
  for (let doc = 0; doc < count; doc++) {
    docs[at] = doc;
    at += marked[doc];
  }
  return docs.subarray(0, found);
}

function existsQuery(field: string, context: SegmentContext): Matches {
  if (isMetadataField(field)) return matchMetadata(field, { kind: 'exists' }, context, false, 1);
  const { segment } = context.live;
  const fields = [field, ...[...context.mappings.fields.keys()].filter((name) => name.startsWith(`${field}.`))];
  // A column every document has a value in (counted once per segment): every document, never listed.
  if (fields.some((name) => !segment.texts.has(name) && segment.valuedCount(name) === segment.count && segment.count > 0)) return everyDoc(segment.count, context.live.deleted, context.live.deletedCount);
  return unite(
    fields.map((name) => {
      const index = segment.texts.get(name);
      if (index) return docsWhere(segment.count, (doc) => index.lengths[doc] >= 0);
      const column = segment.columns.get(name);
      return column ? valuesWhere(column, () => true) : NO_MATCHES;
    }),
    false,
  );
}

function idsQuery(ids: readonly string[], context: SegmentContext): Matches {
  const locals = new Set<number>();
  for (const id of ids) {
    const local = context.live.segment.ids.find(id);
    if (local >= 0) locals.add(local);
  }
  return { docs: Uint32Array.from([...locals].sort((a, b) => a - b)) };
}

/** Documents holding a term that passes `test` (keywords by ordinal, text by its indexed terms). */
/**
 * Terms a query takes: each passes `test`; none sorts before `from`, and once `past` holds for a
 * term it holds for every later one, so only the span between is read (a prefix or a term range is
 * two binary searches, not a test of every term in the dictionary).
 */
interface TermSet {
  test(term: string): boolean;
  from?: string;
  past?(term: string): boolean;
}

/** The indexes [start, end) of `terms` (sorted) that may hold terms of `set`. */
function termSpan(terms: readonly string[], set: TermSet): [start: number, end: number] {
  const start = set.from === undefined ? 0 : termLowerBound(terms, set.from);
  const { past } = set;
  return [start, past ? firstNotBefore(start, terms.length, (i) => !past(terms[i])) : terms.length];
}

function termsWhere(kind: 'prefix' | 'wildcard' | 'range', field: string, context: SegmentContext, set: TermSet): Matches {
  // A range on a metadata field is answered before it comes here.
  if (kind !== 'range' && isMetadataField(field)) return matchMetadata(field, { kind, test: set.test }, context, false, 1);
  const mapping = context.mappings.get(field);
  if (!mapping) return NO_MATCHES;
  const { segment } = context.live;
  if (mapping.type === 'text') {
    const index = segment.texts.get(field);
    if (!index) return NO_MATCHES;
    const numbers: number[] = [];
    const [start, end] = termSpan(index.terms, set);
    for (let n = start; n < end; n++) if (set.test(index.terms[n])) numbers.push(n);
    return unite(numbers.map((n) => postingsOf(index, n)), false);
  }
  // A term range reaches here on keyword and text fields only.
  if (mapping.type !== 'keyword') throw cannotUse(kind as 'prefix' | 'wildcard', field, mapping.type);
  const column = segment.columns.get(field) as KeywordColumn | undefined;
  return column ? valuesWhere(column, keywordOrdinals(column, set)) : NO_MATCHES;
}

function prefixTest(prefix: string, caseInsensitive: boolean): TermSet {
  if (!caseInsensitive) return { test: (term) => term.startsWith(prefix), ...startingWith(prefix) };
  const wanted = prefix.toLowerCase();
  return { test: (term) => term.toLowerCase().startsWith(wanted) };
}

/** `?` is one code point, `*` any run; everything else literal (a backslash escapes the next character). */
function wildcardTest(pattern: string, caseInsensitive: boolean): TermSet {
  const parts = [''];
  /** The literal text before the first `*` or `?`: every match starts with it. */
  let literal: string | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      parts[parts.length - 1] += escapeRegExp(pattern[++i]);
      continue;
    }
    if (c !== '*' && c !== '?') parts[parts.length - 1] += escapeRegExp(c);
    else {
      literal ??= unescapeWildcard(pattern.slice(0, i));
      if (c === '*') parts.push('');
      else parts[parts.length - 1] += '.';
    }
  }
  const glob = starPattern(parts, caseInsensitive ? 'sui' : 'su');
  const test = (term: string) => glob.test(term);
  return caseInsensitive || literal === undefined ? { test } : { test, ...startingWith(literal) };
}

/**
 * The span of terms that start with `prefix`: contiguous, as in any order that compares strings
 * unit by unit (compareTerms ranks each UTF-16 unit, a lone surrogate too).
 */
function startingWith(prefix: string): Pick<TermSet, 'from' | 'past'> {
  if (prefix === '') return {};
  return { from: prefix, past: (term) => !term.startsWith(prefix) };
}

/** A wildcard pattern's text with its backslash escapes taken away. */
function unescapeWildcard(text: string): string {
  return text.replace(/\\(.)/gsu, '$1');
}

function matchQuery(
  field: string,
  text: QueryValue,
  options: { operator: 'or' | 'and'; minimumShouldMatch?: string; zeroTermsQuery: 'none' | 'all'; lenient: boolean },
  context: SegmentContext,
  scored: boolean,
  boost: number,
): Matches {
  const mapping = context.mappings.get(field);
  if (!mapping) return isMetadataField(field) ? metadataMatch(field, text, context, scored, boost) : NO_MATCHES;
  if (mapping.type !== 'text') {
    if (options.lenient && mapping.type !== 'keyword' && typeof parseValue(mapping, text) !== 'number') return NO_MATCHES;
    return termQuery(field, text, false, context, scored, boost);
  }
  const terms = analyze(String(text));
  if (terms.length === 0) return options.zeroTermsQuery === 'all' ? allDocs(context.live.segment.count, scored ? boost : undefined) : NO_MATCHES;
  const clauses = terms.map((term) => termQuery(field, term, false, context, scored, boost));
  if (terms.length === 1) return clauses[0];
  if (options.operator === 'and') return intersect(clauses, scored);
  const minimum = options.minimumShouldMatch === undefined ? 1 : Math.max(1, minimumShouldMatch(options.minimumShouldMatch, clauses.length));
  return unite(clauses, scored, minimum);
}

function phraseQuery(field: string, text: QueryValue, slop: number, zeroTermsQuery: 'none' | 'all', context: SegmentContext, scored: boolean, boost: number): Matches {
  const mapping = context.mappings.get(field);
  if (!mapping) return isMetadataField(field) ? metadataMatch(field, text, context, scored, boost) : NO_MATCHES;
  if (mapping.type !== 'text') return termQuery(field, text, false, context, scored, boost);
  const terms = analyze(String(text));
  if (terms.length === 0) return zeroTermsQuery === 'all' ? allDocs(context.live.segment.count, scored ? boost : undefined) : NO_MATCHES;
  if (terms.length === 1) return termQuery(field, terms[0], false, context, scored, boost);
  if (slop !== 0) throw illegalArgument('[match_phrase] with a [slop] other than 0 is not supported by deeppage yet');
  countClause(context);
  const index = context.live.segment.texts.get(field);
  if (!index) return NO_MATCHES;
  const numbers = terms.map((term) => termNumber(index, term));
  if (numbers.some((n) => n < 0)) return NO_MATCHES;
  const candidates = intersect(numbers.map((n) => postingsOf(index, n)), false);
  const docs: number[] = [];
  const freqs: number[] = [];
  const cursors = numbers.map((n) => index.starts[n]);
  for (const doc of candidates.docs) {
    const lists = numbers.map((n, k) => {
      let p = cursors[k];
      while (index.docs[p] !== doc) p++;
      cursors[k] = p;
      const from = index.positionStarts[p];
      return index.positions.subarray(from, from + index.freqs[p]);
    });
    let freq = 0;
    for (const start of lists[0]) if (lists.every((positions, k) => positions.includes(start + k))) freq++;
    if (freq > 0) {
      docs.push(doc);
      freqs.push(freq);
    }
  }
  if (!scored) return { docs: Uint32Array.from(docs) };
  const scorer = phraseScorer(boost, terms.map((term) => statistics('text', field, term, context)));
  return { docs: Uint32Array.from(docs), scores: Float64Array.from(docs, (doc, i) => scorer.score(freqs[i], lengthToNorm(index.lengths[doc]))) };
}

/** A `match` (or phrase, or query string clause) on a metadata field: a term where the field takes one. */
function metadataMatch(field: string, text: QueryValue, context: SegmentContext, scored: boolean, boost: number): Matches {
  countClause(context);
  return matchMetadata(field, { kind: 'match', value: text }, context, scored, boost);
}

/** Field names a `multi_match` entry names: the field itself, or those a `*` pattern matches. */
function expandField(pattern: string, mappings: Mappings): string[] {
  if (!pattern.includes('*')) return [pattern];
  const regex = globPattern(pattern);
  return [...mappings.fields.keys()].filter((name) => regex.test(name));
}

function postingsOf(index: TextIndex, n: number): Matches {
  return { docs: index.docs.subarray(index.starts[n], index.starts[n + 1]) };
}

function scoredPostings(index: TextIndex, n: number, scorer: { score(freq: number, norm: number): number }): Matches {
  const from = index.starts[n], to = index.starts[n + 1];
  const docs = index.docs.subarray(from, to);
  const scores = new Float64Array(to - from);
  for (let p = from; p < to; p++) scores[p - from] = scorer.score(index.freqs[p], lengthToNorm(index.lengths[index.docs[p]]));
  return { docs, scores };
}

/** A term's statistics over the shard, computed once per search. */
function statistics(kind: 'text' | 'keyword', field: string, term: string, context: SegmentContext): TermStatistics {
  const key = JSON.stringify([kind, field, term]);
  let stats = context.statistics.get(key);
  if (!stats) context.statistics.set(key, (stats = kind === 'text' ? textStatistics(field, term, context) : keywordStatistics(field, term, context)));
  return stats;
}

/** A text term's statistics over the shard. */
function textStatistics(field: string, term: string, context: SegmentContext): TermStatistics {
  let docFreq = 0, docCount = 0, sumTotalTermFreq = 0;
  for (const { segment } of context.shard) {
    const index = segment.texts.get(field);
    if (!index) continue;
    docCount += index.docCount;
    sumTotalTermFreq += index.sumTotalTermFreq;
    const n = termNumber(index, term);
    if (n >= 0) docFreq += index.starts[n + 1] - index.starts[n];
  }
  return { docFreq, docCount, sumTotalTermFreq };
}

/** A keyword term's statistics over the shard: documents only (a keyword has no frequencies), so sumTotalTermFreq is the value count. */
function keywordStatistics(field: string, term: string, context: SegmentContext): TermStatistics {
  let docFreq = 0, docCount = 0, sumTotalTermFreq = 0;
  for (const { segment } of context.shard) {
    const counts = segment.keywordCounts(field);
    if (!counts) continue;
    const { terms } = segment.columns.get(field) as KeywordColumn;
    const at = termLowerBound(terms, term);
    if (terms[at] === term) docFreq += counts.docFreq[at];
    docCount += counts.docCount;
    sumTotalTermFreq += counts.valueCount;
  }
  return { docFreq, docCount, sumTotalTermFreq };
}

/** A keyword column's ordinals whose term passes `test`, as a test on ordinals. */
function keywordOrdinals(column: KeywordColumn, set: TermSet): (ord: number) => boolean {
  const pass = new Uint8Array(column.terms.length);
  const [start, end] = termSpan(column.terms, set);
  for (let ord = start; ord < end; ord++) pass[ord] = set.test(column.terms[ord]) ? 1 : 0;
  return (ord) => pass[ord] === 1;
}

/** Documents with at least one value passing `test`. */
function valuesWhere(column: FieldColumn, test: (value: number) => boolean): Matches {
  const { min, max, several } = column;
  const n = min.length;
  const docs = new Uint32Array(n);
  const numbers = column.kind === 'number';
  let found = 0;
  for (let doc = 0; doc < n; doc++) {
    // Documents holding several values (min and max differ) go the long way; a missing number's NaN does too.
    if (several !== undefined && max![doc] !== min[doc]) {
      let hit = false;
      forEachValue(column, doc, (value) => {
        hit ||= test(value);
      });
      if (hit) docs[found++] = doc;
      continue;
    }
    const value = min[doc];
    if ((numbers ? value === value : value >= 0) && test(value)) docs[found++] = doc;
  }
  return { docs: docs.slice(0, found) };
}

/** Documents with at least one value in [lo, hi]: {@link valuesWhere}'s loop with the test written in. */
function valuesBetween(column: FieldColumn, lo: number, hi: number, live: SegmentContext['live']): Matches {
  const { min, max, several } = column;
  if (!(lo <= hi)) return NO_MATCHES;
  const n = min.length;
  if (several === undefined) return singleValuesBetween(min, lo, hi, live);
  const docs = new Uint32Array(n);
  let found = 0;
  for (let doc = 0; doc < n; doc++) {
    if (several !== undefined && max![doc] !== min[doc]) {
      let hit = false;
      forEachValue(column, doc, (value) => {
        hit ||= value >= lo && value <= hi;
      });
      if (hit) docs[found++] = doc;
      continue;
    }
    // A missing value (NaN, or ordinal -1 below any bound given as an ordinal) fails the test.
    const value = min[doc];
    if (value >= lo && value <= hi) docs[found++] = doc;
  }
  return { docs: docs.slice(0, found) };
}

/**
 * {@link valuesBetween} over a single-valued column, known by a count (live documents only) and a
 * test; listed only when read (a `_count`, or a conjunction that reads only the test, never lists
 * them). Both passes run without a branch per document (`+(test)` turns a comparison into 0 or 1
 * without one; a branch would mispredict at every match).
 */
function singleValuesBetween(values: Float64Array | Int32Array, lo: number, hi: number, { deleted }: SegmentContext['live']): Matches {
  const n = values.length;
  let count = 0;
  if (deleted) for (let doc = 0; doc < n; doc++) count += +(values[doc] >= lo) & +(values[doc] <= hi) & (deleted[doc] ^ 1);
  else for (let doc = 0; doc < n; doc++) count += +(values[doc] >= lo) & +(values[doc] <= hi);
  let docs: Uint32Array | undefined;
  return {
    known: { count, has: (doc) => values[doc] >= lo && values[doc] <= hi && !(deleted && deleted[doc] === 1), between: { values, lo, hi } },
    get docs() {
      if (docs) return docs;
      // One slot of room for the write past the last match.
      const list = new Uint32Array(count + 1);
      let found = 0;
      if (deleted) {
        for (let doc = 0; doc < n; doc++) {
          list[found] = doc;
          found += +(values[doc] >= lo) & +(values[doc] <= hi) & (deleted[doc] ^ 1);
        }
      } else {
        for (let doc = 0; doc < n; doc++) {
          list[found] = doc;
          found += +(values[doc] >= lo) & +(values[doc] <= hi);
        }
      }
      return (docs = list.subarray(0, count));
    },
  };
}

const bits = new Float64Array(1);
const bitsAsInt = new BigInt64Array(bits.buffer);

/** The next double above `x` (x itself for +∞ or NaN). */
function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  bits[0] = x;
  bitsAsInt[0] += x > 0 ? 1n : -1n;
  return bits[0];
}

/** The next double below `x`. */
function nextDown(x: number): number {
  return -nextUp(-x);
}

function docsWhere(count: number, test: (doc: number) => boolean): Matches {
  const docs: number[] = [];
  for (let doc = 0; doc < count; doc++) if (test(doc)) docs.push(doc);
  return { docs: Uint32Array.from(docs) };
}
