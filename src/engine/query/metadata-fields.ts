/**
 * The metadata fields a query may name (`_id`, `_index`, `_routing`, `_seq_no`, …), answered as
 * Elasticsearch 8's field types for them answer: what each matches over one segment, and the error
 * for what it refuses. A metadata field is never in the mappings; without this home a query on one
 * would match nothing in silence.
 *
 * - `_id` (ES's `IdFieldType`): `term`, `terms`, `match` and the query string find documents by id,
 *   constant-scoring (a `TermInSetQuery`); `exists` matches every document; `prefix`, `wildcard` and
 *   `range` are refused.
 * - `_index` (`IndexFieldType`, a constant field): a term matches the index's name with `*` as a
 *   wildcard, a prefix or wildcard tests the name: every document or none, constant-scoring.
 * - `_routing` (`RoutingFieldType`, a string field): terms, patterns and term ranges over the custom
 *   routing values, a `term` scored by BM25 as a keyword without norms.
 * - `_seq_no` (`SeqNoFieldType`, a long point): `term`, `terms` and `range` as a long, constant-scoring.
 * - `_version` and `_source` are not searchable (`exists` on `_version` matches every document).
 * - Fields deeppage keeps nothing for (`_ignored`, `_field_names`, `_tier`, …) are refused as unsupported.
 */
import { badRequest, illegalArgument, notSupported, type EsError } from '../errors.ts';
import { closedInterval, parseBound } from './bounds.ts';
import { termScorer, type TermStatistics } from './bm25.ts';
import { allDocs, constantScore, NO_MATCHES, type Matches } from './matches.ts';
import type { QueryValue } from './query.ts';
import { globPattern } from '../patterns.ts';
import type { LiveSegment } from '../shard/shard-snapshot.ts';
import { compareTerms } from '../terms.ts';

/** What a query on a metadata field runs against. */
export interface MetadataContext {
  live: LiveSegment;
  /** Every segment of the shard, for term statistics. */
  shard: readonly LiveSegment[];
  /** The index the segment belongs to. */
  index: string;
  now: number;
}

/** The leaf queries a field answers; `terms` reaches a field as its `term`s. */
export type FieldQuery =
  | { kind: 'term'; value: QueryValue; caseInsensitive: boolean }
  | { kind: 'range'; gt?: QueryValue; gte?: QueryValue; lt?: QueryValue; lte?: QueryValue; format?: string; timeZone?: string }
  | { kind: 'exists' }
  /** Text a `match` (or a query string's clause) gives the field. */
  | { kind: 'match'; value: QueryValue }
  /** `prefix` and `wildcard`: the terms that pass `test`. */
  | { kind: 'prefix' | 'wildcard'; test: (term: string) => boolean };

const LONG = { type: 'long' } as const;

/**
 * How one metadata field answers each leaf query; a kind it has no answer for is refused as
 * Elasticsearch's field type refuses it ({@link refusal}). Each answer returns unscored matches,
 * but for a `term`, which gets `scored` and `boost` (constant-scoring unless it says otherwise).
 */
interface MetadataField {
  /** Whether `match` reads its text as a `term` (ES's `TextSearchInfo.SIMPLE_MATCH_ONLY`); else refused. */
  matchesAsTerm: boolean;
  term?(query: Extract<FieldQuery, { kind: 'term' }>, context: MetadataContext, scored: boolean, boost: number): Matches;
  range?(query: Extract<FieldQuery, { kind: 'range' }>, context: MetadataContext): Matches;
  exists?(context: MetadataContext): Matches;
  /** `prefix` and `wildcard`. */
  pattern?(test: (term: string) => boolean, context: MetadataContext): Matches;
}

const every = (context: MetadataContext) => allDocs(context.live.segment.count);
const everyOrNone = (yes: boolean, context: MetadataContext) => (yes ? every(context) : NO_MATCHES);

const METADATA_FIELDS: ReadonlyMap<string, MetadataField> = new Map<string, MetadataField>([
  ['_id', { matchesAsTerm: true, exists: every, term: (q, context, scored, boost) => constantScore(idMatches(String(q.value), q.caseInsensitive, context.live), scored ? boost : undefined) }],
  [
    '_index',
    {
      matchesAsTerm: true,
      exists: every,
      term: (q, context, scored, boost) => constantScore(everyOrNone(indexMatches(String(q.value), q.caseInsensitive, context.index), context), scored ? boost : undefined),
      pattern: (test, context) => everyOrNone(test(context.index), context),
    },
  ],
  [
    '_routing',
    {
      matchesAsTerm: true,
      exists: (context) => routingsWhere(context.live.segment.routings, () => true),
      term: routingTerm,
      range: (q, context) => routingsWhere(context.live.segment.routings, (routing) => withinTerms(routing, q)),
      pattern: (test, context) => routingsWhere(context.live.segment.routings, test),
    },
  ],
  [
    '_seq_no',
    {
      matchesAsTerm: true,
      exists: every,
      term: (q, context, scored, boost) => {
        const local = context.live.segment.localOfSeq(parseBound(LONG, '_seq_no', q.value, { roundUp: false, now: context.now }));
        return constantScore(local < 0 ? NO_MATCHES : { docs: Uint32Array.of(local) }, scored ? boost : undefined);
      },
      range: seqsBetween,
    },
  ],
  ['_version', { matchesAsTerm: false, exists: every }],
  ['_source', { matchesAsTerm: false }],
]);

/** Metadata fields Elasticsearch has and deeppage keeps nothing for: a query on one is refused, not answered empty. */
const NOT_KEPT = new Set(['_ignored', '_field_names', '_tier', '_doc_count', '_data_stream_timestamp', '_nested_path', '_feature']);

export function isMetadataField(field: string): boolean {
  return METADATA_FIELDS.has(field) || NOT_KEPT.has(field);
}

/**
 * The documents of the segment a query on metadata field `field` matches (deleted ones left in, as
 * every query leaves them), scored with `boost` when `scored` (a `term` or `match`; the caller
 * scores the others).
 */
export function matchMetadata(field: string, query: FieldQuery, context: MetadataContext, scored: boolean, boost: number): Matches {
  const answers = METADATA_FIELDS.get(field);
  if (!answers) throw notSupported(`a query on the metadata field [${field}]`);
  switch (query.kind) {
    case 'match':
      if (!answers.matchesAsTerm) throw refusal(field, query.kind);
      return matchMetadata(field, { kind: 'term', value: query.value, caseInsensitive: false }, context, scored, boost);
    case 'term':
      if (answers.term) return answers.term(query, context, scored, boost);
      break;
    case 'range':
      if (answers.range) return answers.range(query, context);
      break;
    case 'exists':
      if (answers.exists) return answers.exists(context);
      break;
    default:
      if (answers.pattern) return answers.pattern(query.test, context);
  }
  throw refusal(field, query.kind);
}

/** What Elasticsearch answers for a query kind a metadata field's type does not take (its type is named as the field). */
function refusal(field: string, kind: FieldQuery['kind']): EsError {
  switch (kind) {
    case 'prefix':
    case 'wildcard':
      return cannotUse(kind, field, field);
    case 'range':
      return badRequest('query_shard_exception', `failed to create query: Field [${field}] of type [${field}] does not support range queries`);
    case 'match':
      return badRequest('query_shard_exception', `failed to create query: Field [${field}] of type [${field}] does not support match queries`);
    default:
      return badRequest('query_shard_exception', `The ${field} field is not searchable`);
  }
}

/**
 * Why the metadata field has no per-document values to sort on or to list in `docvalue_fields`, as
 * Elasticsearch says it; undefined for the fields that have them (`_index`, `_seq_no`, `_version`).
 */
export function fielddataRefusal(field: string): EsError | undefined {
  if (field === '_id') return illegalArgument('Fielddata access on the _id field is disallowed, you can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled');
  if (field === '_routing' || field === '_source') return illegalArgument(`Can't load fielddata on [${field}] because fielddata is unsupported on fields of type [${field}]. Use doc values instead.`);
  return undefined;
}

/** `prefix` or `wildcard` on a field whose type has no terms to expand (MappedFieldType's refusal). */
export function cannotUse(kind: 'prefix' | 'wildcard', field: string, type: string): EsError {
  return badRequest('query_shard_exception', `Can only use ${kind} queries on keyword, text and wildcard fields - not on [${field}] which is of type [${type}]`);
}

/** A routing value's documents, scored by BM25 as a string field without norms: every match as freq 1, length 1. */
function routingTerm(query: Extract<FieldQuery, { kind: 'term' }>, context: MetadataContext, scored: boolean, boost: number): Matches {
  const value = String(query.value);
  const { routings } = context.live.segment;
  if (query.caseInsensitive) return constantScore(routingsWhere(routings, (routing) => routing.toLowerCase() === value.toLowerCase()), scored ? boost : undefined);
  const docs = routingsWhere(routings, (routing) => routing === value);
  if (!scored) return docs;
  const score = termScorer(boost, routingStatistics(value, context.shard)).score(1, 1);
  return { docs: docs.docs, scores: new Float64Array(docs.docs.length).fill(score) };
}

/** ES's `indexMatches`: the value is the index's name, `*` standing for any run of characters. */
function indexMatches(value: string, caseInsensitive: boolean, name: string): boolean {
  return caseInsensitive ? globPattern(value.toLowerCase()).test(name.toLowerCase()) : globPattern(value).test(name);
}

/** The documents of the segment whose id is `id` (or equals it but for case). */
function idMatches(id: string, caseInsensitive: boolean, live: LiveSegment): Matches {
  const { ids, count } = live.segment;
  if (!caseInsensitive) {
    const local = ids.find(id);
    return local < 0 ? NO_MATCHES : { docs: Uint32Array.of(local) };
  }
  const wanted = id.toLowerCase();
  const docs: number[] = [];
  for (let local = 0; local < count; local++) if (ids.id(local).toLowerCase() === wanted) docs.push(local);
  return { docs: Uint32Array.from(docs) };
}

function routingsWhere(routings: ReadonlyMap<number, string>, test: (routing: string) => boolean): Matches {
  const docs: number[] = [];
  for (const [local, routing] of routings) if (test(routing)) docs.push(local);
  return { docs: Uint32Array.from(docs.sort((a, b) => a - b)) };
}

/** A term range's test on a string, bounds compared as terms are ordered. */
function withinTerms(term: string, range: Extract<FieldQuery, { kind: 'range' }>): boolean {
  const { gt, gte, lt, lte } = range;
  return (
    (gt === undefined || compareTerms(term, String(gt)) > 0) &&
    (gte === undefined || compareTerms(term, String(gte)) >= 0) &&
    (lt === undefined || compareTerms(term, String(lt)) < 0) &&
    (lte === undefined || compareTerms(term, String(lte)) <= 0)
  );
}

/** A routing value's statistics over the shard: one value per document that has one. */
function routingStatistics(value: string, shard: readonly LiveSegment[]): TermStatistics {
  let docFreq = 0, docCount = 0;
  for (const { segment } of shard) {
    docCount += segment.routings.size;
    for (const routing of segment.routings.values()) if (routing === value) docFreq++;
  }
  return { docFreq, docCount, sumTotalTermFreq: docCount };
}

/** Documents whose `_seq_no` is within the range's bounds, read as longs. */
function seqsBetween(query: Extract<FieldQuery, { kind: 'range' }>, context: MetadataContext): Matches {
  const [lo, hi] = closedInterval(LONG, '_seq_no', query, { now: context.now });
  const { seqs, count } = context.live.segment;
  const docs: number[] = [];
  for (let local = 0; local < count; local++) if (seqs[local] >= lo && seqs[local] <= hi) docs.push(local);
  return { docs: Uint32Array.from(docs) };
}
