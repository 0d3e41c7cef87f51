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
import type { ScoredTerm, WasmArray, WasmKernels } from '../../core/index.ts';
import { lengthToNorm, normsOf, phraseScorer, termScorer, type TermScorer, type TermStatistics } from './bm25.ts';
import { closedInterval, nextDown, nextUp, termBounds } from './bounds.ts';
import { numbersBetween, valuesBetween, type FieldRun } from './column-ranges.ts';
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
  /** The shard's text term scorers made so far in this search, by boost, field and term (one per shard, owned by the search). */
  scorers: Map<string, TermScorer>;
  /** Query texts analyzed so far in this search (one for the search, owned by it). */
  analyzed: Map<string, string[]>;
  mappings: Mappings;
  /** The index's name (what `_index` matches). */
  index: string;
  /** `now` for date math, fixed for the whole search. */
  now: number;
  /** Text terms are matched and scored over their postings by the core's scoreTerms kernel. */
  kernels: WasmKernels;
  /** Leaf clauses built so far for this segment ({@link countClause}). */
  clauses?: { count: number };
  /**
   * The segment's live documents sorted by a numeric field (ascending, missing last), when the
   * search keeps such a run: a range over a single-valued field is then two binary searches.
   */
  sortedBy?: (field: string) => FieldRun | undefined;
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
  const { filter: filters, mustNot: exclusions, merged } = mergedRanges(filter, mustNot, context);
  const required = [...must.map((q) => matchSegment(q, context, scored, boost)), ...filters.map((q) => matchSegment(q, context, false)), ...merged];
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
  if (exclusions.length > 0) matches = subtract(matches, unite(exclusions.map((q) => matchSegment(q, context, false)), false));
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
    if (numbers.length > 1 || !scored) return constantScore(textTerms({ index, numbers, minimum: 1 }, context), scored ? boost : undefined);
    return textTerms({ index, numbers, scorers: [textScorer(field, term, boost, context)], minimum: 1 }, context);
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
  return constantScore(numbersBetween(column, lo, hi, context.live, () => context.sortedBy?.(field)), scored ? boost : undefined);
}

function rangeQuery(query: RangeQuery, context: SegmentContext): Matches {
  if (isMetadataField(query.field)) return matchMetadata(query.field, query, context, false, 1);
  const mapping = context.mappings.get(query.field);
  if (!mapping) return NO_MATCHES;
  if (mapping.type === 'text') return termsWhere('range', query.field, context, rangeTerms(query));
  const interval = columnInterval(query, context);
  return interval ? intervalMatches(query.field, interval, context) : NO_MATCHES;
}

type RangeQuery = Extract<Query, { kind: 'range' }>;

/** The values of a column in a closed interval (keywords by ordinal). */
interface ColumnInterval {
  column: FieldColumn;
  lo: number;
  hi: number;
}

/**
 * A range on a numeric, date, boolean or keyword field as a closed interval of the segment's column
 * (a keyword's terms in range are one span of its ordinals); undefined where the segment has no
 * column for the field, or the field is not one of those.
 */
function columnInterval(query: RangeQuery, context: SegmentContext): ColumnInterval | undefined {
  const mapping = context.mappings.get(query.field);
  const column = context.live.segment.columns.get(query.field);
  if (!mapping || !column || mapping.type === 'text' || isMetadataField(query.field)) return undefined;
  if (column.kind === 'keyword') {
    const set = rangeTerms(query);
    const [start, end] = termSpan(column.terms, set);
    return { column, lo: firstNotBefore(start, end, (ord) => !set.test(column.terms[ord])), hi: end - 1 };
  }
  const [lo, hi] = closedInterval(mapping, query.field, query, { now: context.now, format: query.format, timeZone: query.timeZone });
  return { column, lo, hi };
}

function intervalMatches(field: string, { column, lo, hi }: ColumnInterval, context: SegmentContext): Matches {
  return column.kind === 'number' ? numbersBetween(column, lo, hi, context.live, () => context.sortedBy?.(field)) : valuesBetween(column, lo, hi, context.live);
}

/** A range's terms, in code point order (within the span, the test holds from the first term that passes on). */
function rangeTerms(query: RangeQuery): TermSet {
  const above = (t: string) =>
    (query.gt === undefined || compareTerms(t, String(query.gt)) > 0) &&
    (query.gte === undefined || compareTerms(t, String(query.gte)) >= 0);
  const past = (t: string) =>
    (query.lt !== undefined && compareTerms(t, String(query.lt)) >= 0) ||
    (query.lte !== undefined && compareTerms(t, String(query.lte)) > 0);
  const lower = query.gte ?? query.gt;
  return { test: (t) => above(t) && !past(t), from: lower === undefined ? undefined : String(lower), past };
}

/**
 * Filter ranges and excluded ranges on one single-valued field of the segment, taken as one interval
 * where the exclusions cut the filter's interval at an end (`> a` but not `> b` is (a, b]): one run
 * lookup or pass, rather than listing both and subtracting. The clauses left, and the merged
 * intervals' matches (each merged clause still counts as a clause).
 */
function mergedRanges(filter: readonly Query[], mustNot: readonly Query[], context: SegmentContext): { filter: readonly Query[]; mustNot: readonly Query[]; merged: Matches[] } {
  if (!mustNot.some((q) => q.kind === 'range') || !filter.some((q) => q.kind === 'range')) return { filter, mustNot, merged: [] };
  const filters = [...filter];
  const exclusions = [...mustNot];
  const merged: Matches[] = [];
  for (let i = 0; i < filters.length; i++) {
    const kept = filters[i];
    if (kept.kind !== 'range') continue;
    const interval = columnInterval(kept, context);
    if (!interval || interval.column.several !== undefined) continue;
    let { lo, hi } = interval;
    let cuts = 0;
    for (let j = 0; j < exclusions.length; j++) {
      const out = exclusions[j];
      if (out.kind !== 'range' || out.field !== kept.field) continue;
      const excluded = columnInterval(out, context);
      const left = excluded && withoutInterval(lo, hi, excluded.lo, excluded.hi);
      if (!left) continue;
      [lo, hi] = left;
      exclusions.splice(j--, 1);
      cuts++;
    }
    if (cuts === 0) continue;
    for (let n = 0; n <= cuts; n++) countClause(context);
    filters.splice(i--, 1);
    merged.push(intervalMatches(kept.field, { column: interval.column, lo, hi }, context));
  }
  return { filter: filters, mustNot: exclusions, merged };
}

/** [lo, hi] without [a, b], when that is one interval (lo > hi: none); undefined when [a, b] makes a hole in it. */
function withoutInterval(lo: number, hi: number, a: number, b: number): [lo: number, hi: number] | undefined {
  if (!(a <= b) || b < lo || a > hi) return [lo, hi];
  if (a <= lo && b >= hi) return [1, 0];
  if (a <= lo) return [nextUp(b), hi];
  if (b >= hi) return [lo, nextDown(a)];
  return undefined;
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
    return textTerms({ index, numbers, minimum: 1 }, context);
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

type MatchOptions = { operator: 'or' | 'and'; minimumShouldMatch?: string; zeroTermsQuery: 'none' | 'all'; lenient: boolean };

function matchQuery(field: string, text: QueryValue, options: MatchOptions, context: SegmentContext, scored: boolean, boost: number): Matches {
  const plan = matchPlan(field, text, options, context, scored, boost);
  if (plan) return textTerms(plan, context);
  const mapping = context.mappings.get(field);
  if (!mapping) return isMetadataField(field) ? metadataMatch(field, text, context, scored, boost) : NO_MATCHES;
  if (mapping.type !== 'text') {
    if (options.lenient && mapping.type !== 'keyword' && typeof parseValue(mapping, text) !== 'number') return NO_MATCHES;
    return termQuery(field, text, false, context, scored, boost);
  }
  const terms = analyzedOnce(String(text), context);
  if (terms.length === 0) return options.zeroTermsQuery === 'all' ? allDocs(context.live.segment.count, scored ? boost : undefined) : NO_MATCHES;
  // Operator `and` over several terms.
  return intersect(terms.map((term) => termQuery(field, term, false, context, scored, boost)), scored);
}

/** A disjunction of a text field's terms in one segment: what a `match` with operator `or`, or on one term, comes to. */
interface TermDisjunction {
  /** Absent when the segment has no such field. */
  index?: TextIndex;
  /** The terms' numbers in the index (those the segment holds); none when too few are held to match. */
  numbers: number[];
  /** One per term, when scored. */
  scorers?: TermScorer[];
  /** Terms a document must hold (minimum_should_match), at least 1. */
  minimum: number;
}

/**
 * A `match` over one segment as a disjunction of its terms, for the core to match and score
 * (Lucene's BooleanQuery of SHOULD term clauses; a single term's query); undefined when it is
 * something else (another field type, operator `and` over several terms, no terms).
 */
function matchPlan(field: string, text: QueryValue, options: MatchOptions, context: SegmentContext, scored: boolean, boost: number): TermDisjunction | undefined {
  if (context.mappings.get(field)?.type !== 'text') return undefined;
  const terms = analyzedOnce(String(text), context);
  if (terms.length === 0 || (terms.length > 1 && options.operator === 'and')) return undefined;
  const minimum = terms.length === 1 || options.minimumShouldMatch === undefined ? 1 : Math.max(1, minimumShouldMatch(options.minimumShouldMatch, terms.length));
  for (let t = 0; t < terms.length; t++) countClause(context);
  const index = context.live.segment.texts.get(field);
  if (!index) return { numbers: [], minimum };
  const present = terms.flatMap((term) => {
    const n = termNumber(index, term);
    return n < 0 ? [] : [{ term, n }];
  });
  if (present.length < minimum) return { index, numbers: [], minimum };
  const scorers = scored ? present.map(({ term }) => textScorer(field, term, boost, context)) : undefined;
  return { index, numbers: present.map(({ n }) => n), scorers, minimum };
}

/**
 * A scored query's live matches over one segment, with their scores, left in the core's memory
 * (the caller frees both), when the core finds them in one call: a `match` that is a disjunction of
 * its terms. Undefined for any other query.
 */
export function scoredInCore(query: Query, context: SegmentContext): { docs: WasmArray<Uint32Array>; scores: WasmArray<Float64Array> } | undefined {
  if (query.kind === 'query_string') query = resolveQueryString(query, context.mappings);
  if (query.kind !== 'match') return undefined;
  const plan = matchPlan(query.field, query.query, query, { ...context, clauses: { count: 0 } }, true, f(query.boost));
  if (!plan || plan.numbers.length === 0) return undefined;
  const { live } = context;
  return context.kernels.scoreTermsKept(scoredTerms(plan), normsOf(plan.index!), plan.minimum, live.deletedCount > 0 ? live.deleted : undefined);
}

/** A scored query's best matches in one segment, and how many there are. */
export interface BestMatches {
  count: number;
  docs: Uint32Array;
  scores: Float64Array;
}

/**
 * The best `k` live matches of a scored query over one segment (by score, then document) and their
 * count, when the core finds them in one call without listing every match and there are surely more
 * than `atLeast` of them: a `match` (or a query string that comes to one, `q=name:paris`) that is a
 * disjunction of its terms (minimum_should_match 1), one
 * of which alone has more live documents than that. Undefined otherwise.
 */
export function bestMatches(query: Query, context: SegmentContext, k: number, atLeast: number): BestMatches | undefined {
  if (query.kind === 'query_string') query = resolveQueryString(query, context.mappings);
  if (query.kind !== 'match') return undefined;
  const plan = matchPlan(query.field, query.query, query, { ...context, clauses: { count: 0 } }, true, f(query.boost));
  if (!plan || plan.numbers.length === 0 || plan.minimum > 1) return undefined;
  const { live } = context;
  const { starts } = plan.index!;
  const longest = Math.max(...plan.numbers.map((n) => starts[n + 1] - starts[n]));
  if (longest - live.deletedCount <= atLeast) return undefined;
  return context.kernels.bestScored(scoredTerms(plan), normsOf(plan.index!), plan.minimum, k, live.deletedCount > 0 ? live.deleted : undefined);
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

/**
 * The documents holding at least `minimum` of the terms and, when scored, their BM25 scores summed
 * as Lucene's disjunction sums them: one pass of the core's scoreTerms kernel over the postings.
 */
function textTerms(terms: TermDisjunction, context: SegmentContext): Matches {
  const { index, numbers } = terms;
  if (!index || numbers.length === 0) return NO_MATCHES;
  if (!terms.scorers && numbers.length === 1) return postingsOf(index, numbers[0]);
  return context.kernels.scoreTerms(scoredTerms(terms), normsOf(index), terms.minimum, terms.scorers !== undefined);
}

/** The terms' postings with their scorers, as the core reads them. */
function scoredTerms({ index, numbers, scorers }: TermDisjunction): ScoredTerm[] {
  return numbers.map((n, t) => {
    const from = index!.starts[n], to = index!.starts[n + 1];
    return { docs: index!.docs.subarray(from, to), freqs: index!.freqs.subarray(from, to), weight: scorers ? scorers[t].weight : 0, inverse: scorers ? scorers[t].inverse : NO_TABLE };
  });
}

/** The inverse-length table of an unscored term (never read). */
const NO_TABLE = new Float32Array(256);

/** A text term's BM25 scorer over the shard, made once per search (its statistics are the shard's). */
function textScorer(field: string, term: string, boost: number, context: SegmentContext): TermScorer {
  const key = JSON.stringify([boost, field, term]);
  let scorer = context.scorers.get(key);
  if (!scorer) context.scorers.set(key, (scorer = termScorer(boost, statistics('text', field, term, context))));
  return scorer;
}

/** A query text's terms by the standard analyzer, analyzed once per search. */
function analyzedOnce(text: string, context: SegmentContext): string[] {
  let terms = context.analyzed.get(text);
  if (!terms) context.analyzed.set(text, (terms = analyze(text)));
  return terms;
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

function docsWhere(count: number, test: (doc: number) => boolean): Matches {
  const docs: number[] = [];
  for (let doc = 0; doc < count; doc++) if (test(doc)) docs.push(doc);
  return { docs: Uint32Array.from(docs) };
}
