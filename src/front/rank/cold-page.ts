/**
 * A cold page: a page past the cluster's `max_result_window` asked before its rank index exists,
 * answered by bisecting the first sort key with `_count` requests rather than by the whole walk.
 *
 * The order is [the documents without a value, if `missing: _first`] [the documents with a value, by
 * the key: the least value first for `asc` (a multi-valued field sorts by its min), the greatest first
 * for `desc` (by its max)] [the documents without a value, if `missing: _last`], ties by the cluster's
 * own tie-break. For a bound `b`, `before(b)` is `range k < b` (asc) or `range k > b` (desc): it
 * matches a document exactly when the document's sort value is before `b`, so the documents ranked
 * before the first one at or after `b` are `before(b)` and those without a value placed first, and
 * everything from that one on is the query `Q ∧ ¬before(b)` (`∧ exists k` when missing come first).
 * The cluster breaks ties by shard and document the same way under a narrower query, so rank `from`
 * of the user's order is rank `from − c(b)` of that narrower query.
 *
 * Requests: the mapping (is the key a number, a date or a keyword?), two size-1 searches (the total, the count of
 * documents with a value, the least and greatest values), then `_count`s bisecting the bound over the
 * values between them (integers for longs and dates, the ordering of doubles for doubles) until
 * `c(b) ≤ from` and `from − c(b) + size ≤ window`, then one `_search` at `from − c(b)` (under
 * `Q ∧ ¬before(b) ∧ before(b')` when a bound b' with `c(b') ≥ from + size` was counted on the way:
 * the search then matches the documents between the two bounds only). A step whose
 * half of the bounds held no document is followed by a size-1 search that moves the bound on to the
 * nearest value: values sparse in their range, or a tie, cost a few steps rather than all of them
 * (62 for doubles). At most 2·log2(max − min + 1) + 4 requests in all, far fewer in practice. A
 * keyword's bounds are strings (keywordBound): at most three requests a step.
 * Where one value (or the block of documents without one) holds more documents than the window, no
 * bound can narrow the page enough: the page is then walked to inside that tie with `search_after` in
 * a point in time (`_shard_doc` as the last key; Elasticsearch's `_pit` or OpenSearch's
 * `_search/point_in_time`, by the product header), one request per `window` documents skipped, and
 * read from it, its answer given the shape of a plain search's.
 *
 * A cold page is not a point-in-time view: a write or a delete between the counts and the page can
 * shift it by the documents it moved. A cluster out of reach throws the `EsError` of
 * `ClusterCalls.call`.
 */
import type { ClusterAnswer, ClusterCalls, CallPurpose } from '../cluster-calls.ts';
import { elements, member, members, parseExact, stringifyExact, EXACT_INTEGER } from '../json-text.ts';
import { closePointInTime, openPointInTime, type Distribution } from './point-in-time.ts';
import { indexPath } from './search-shape.ts';
import { compareCodePoints, sortClauses } from './sort-order.ts';
import { between } from './string-bounds.ts';
import type { FrontSearch } from './search-shape.ts';

export interface ColdPage {
  /**
   * The cluster's answer to a plain from/size `_search` (no point in time) whose hits, from the first,
   * are the user's ranks [from, from+size) (inside a tie, a point-in-time answer in that shape: no
   * `pit_id`, no `_shard_doc` in the hits' `sort`). A status other than 200 is the cluster's refusal of
   * a count or of the page (a bad query, credentials without access), to be passed on as it is
   * (`total` 0).
   */
  answer: ClusterAnswer;
  /** The number of matches of the user's query (hits.total to show). */
  total: number;
}

/** The page, or undefined when this search's first sort key cannot be bisected (then the caller waits for the rank index). */
export async function coldPage(calls: ClusterCalls, search: FrontSearch, window = 10_000, distribution: Distribution = 'elasticsearch'): Promise<ColdPage | undefined> {
  try {
    return await answer(new Cluster(calls, search, distribution), search, window);
  } catch (e) {
    if (e instanceof Refused) return { answer: e.answer, total: 0 };
    if (e instanceof NotBisectable) return undefined;
    throw e;
  }
}

/** The first sort key, when it is a plain field sort. */
interface FirstKey {
  field: string;
  desc: boolean;
  missingFirst: boolean;
  unmappedType?: string;
}

/** How the key's values are bisected: whole numbers (longs, dates as epoch millis), doubles, or keywords (strings in code point order). */
type Domain = 'integer' | 'double' | 'date' | 'keyword';

type Query = Record<string, unknown>;

async function answer(cluster: Cluster, search: FrontSearch, window: number): Promise<ColdPage | undefined> {
  const { from, size, walkBody } = search;
  if (from + size <= window) return shallow(cluster, search);
  if (size > window) return undefined;
  if (walkBody.min_score !== undefined || walkBody.post_filter !== undefined || walkBody.indices_boost !== undefined) return undefined;
  const key = firstKey(walkBody.sort);
  if (!key || runtimeFields(walkBody).has(key.field)) return undefined;
  const domain = await cluster.domainOf(key.field);
  if (!domain) return undefined;

  const q = (walkBody.query ?? { match_all: {} }) as Query;
  const exists: Query = { exists: { field: key.field } };
  // The least value (asc, over Q: its first hit has a value when any has) with the total, and the greatest with the count of values.
  const low = await cluster.firstValue(q, key, 'asc', true);
  const high = await cluster.firstValue(and([q, exists]), key, 'desc', true);
  const total = low.total;
  const valued = high.total;
  const missing = total - valued;

  if (from >= total) return { answer: await cluster.page(and([q], [{ match_all: {} }]), 0, size), total };
  const first = key.missingFirst ? missing : 0;
  // Ranks from the start of the order: inside the block of documents without a value, placed first.
  if (from < first) return { answer: await cluster.pageAt(q, from, size, window), total };
  // Ranks past every value: inside the block of documents without a value, placed last.
  if (from >= first + valued) return { answer: await cluster.pageAt(and([q], [exists]), from - first - valued, size, window), total };

  const found =
    domain.domain === 'keyword'
      ? await keywordBound(cluster, { q, key, first, valued, from, size, window }, String(low.value), String(high.value))
      : await numericBound(cluster, { q, key, first, valued, from, size, window }, domain, low.value, high.value);
  const rest = and([...(key.missingFirst ? [q, exists] : [q]), ...found.filters], found.exclusions);
  return { answer: await cluster.pageAt(rest, from - found.ranksBefore, size, window), total };
}

/** What a bisection starts from: the query, the key, the ranks before the first value, the documents with one, the page and the window. */
interface Bisection {
  q: Query;
  key: FirstKey;
  first: number;
  valued: number;
  from: number;
  size: number;
  window: number;
}

/**
 * How far past a bound the page may start for the bisection to stop: the cluster's own from/size
 * then reads that many documents more, and a from of thousands costs it more than a count or two
 * (on the stand-in cluster, a page at from 5,600 cost what one at 9,990 does, 20 ms; a count 7-15
 * ms), so a bound is sought within SLACK of the page, and within the window in any case.
 */
function slackOf(window: number, size: number): number {
  return Math.min(window - size, SLACK);
}

const SLACK = 1000;

/**
 * Where the page is read from: the clauses added to the query (`filters`, `exclusions`) that leave
 * out the documents before the bound, and how many ranks those hold. When the bisection also found a
 * bound the whole page lies before, the documents from that one on are left out too, so that the
 * page's query matches the few documents between the two rather than every one after the first: a
 * cheaper search for the cluster, a shorter walk inside a tie. (Two clauses, not one range between
 * the bounds: a document with several values sorts by its least (asc) or greatest (desc), and a
 * range matches any of them.)
 */
interface Bound {
  ranksBefore: number;
  filters: Query[];
  exclusions: Query[];
}

/** The clauses for the documents from `lo` on (every one when undefined), before `hi` when given. */
function fromTo(lo: Query | undefined, hi: Query | undefined): Pick<Bound, 'filters' | 'exclusions'> {
  return { filters: hi === undefined ? [] : [hi], exclusions: lo === undefined ? [] : [lo] };
}

/** The bound for a number or date key: bisection over its whole values (or the order of doubles), counts interpolated every other step. */
async function numericBound(cluster: Cluster, { q, key, first, valued, from, size, window }: Bisection, domain: { domain: Domain; exactValues: boolean }, least: unknown, greatest: unknown): Promise<Bound> {
  const exists: Query = { exists: { field: key.field } };
  const axis = axisOf(domain.domain, key.desc, least, greatest);
  const before = (i: bigint): Query => ({ range: { [key.field]: { [key.desc ? 'gt' : 'lt']: axis.bound(i), ...(domain.domain === 'date' ? { format: 'epoch_millis' } : {}) } } });
  const valuedFrom = (i: bigint): Query => and([q, exists], i === 0n ? [] : [before(i)]);
  // c(i) ranks come before bound i: c(0) = first (nothing is before the first value), c(steps) = first + valued > from.
  let [lo, ranksBefore] = [0n, first];
  let [hi, ranksBeforeHi] = [axis.steps, first + valued];
  // Where the page would start halfway into the slack above a bound: the rank to aim at.
  const reach = from - slackOf(window, size);
  const aim = from - Math.floor(slackOf(window, size) / 2);
  for (let step = 0; ranksBefore < reach && hi - lo > 1n; step++) {
    // Every other step interpolates between the bounds' counts (few steps where values spread evenly); the others halve (log2 steps at worst).
    const span = ranksBeforeHi - ranksBefore;
    const guess = step % 2 === 0 && span > 0 ? interpolated(axis, lo, hi, Math.max(0, aim - ranksBefore) / span) : (lo + hi) / 2n;
    const mid = guess <= lo ? lo + 1n : guess >= hi ? hi - 1n : guess;
    const c = first + (await cluster.count(and([q, before(mid)])));
    const emptyHalf = c === (c <= from ? ranksBefore : ranksBeforeHi);
    if (c <= from) [lo, ranksBefore] = [mid, c];
    else [hi, ranksBeforeHi] = [mid, c];
    // Half the bounds held no document: the values are sparse here, or one value holds the page. The
    // bound that moved goes on to the nearest value (same count), so a tie is pinned in a few steps.
    if (!emptyHalf || !domain.exactValues || hi - lo <= 1n) continue;
    // The nearest value lies inside the bounds (a document is there): a cluster that says otherwise is not bisected.
    if (c <= from) lo = within(axis.index((await cluster.firstValue(valuedFrom(lo), key, key.desc ? 'desc' : 'asc')).value), lo, hi - 1n);
    else hi = within(axis.index((await cluster.firstValue(and([q, exists, before(hi)]), key, key.desc ? 'asc' : 'desc')).value) + 1n, lo + 1n, hi);
  }
  // The page ends before bound hi when that one has enough documents before it.
  const upTo = hi < axis.steps && ranksBeforeHi >= from + size ? before(hi) : undefined;
  return { ranksBefore, ...fromTo(lo === 0n ? undefined : before(lo), upTo) };
}

/** Steps a keyword bisection takes at most; past them the page is walked to from the bound reached. */
const KEYWORD_STEPS = 64;

/**
 * The bound for a keyword key: strings in code point order. Bounds are values the cluster showed:
 * each step takes a string between the two (string-bounds.ts), moves it on to the first value at or
 * after it (a size-1 search), or, when that is not before the upper bound, back to the last value
 * before it, and counts the documents before that value: at most three requests a step. It ends
 * when the page starts within a window of the lower bound, or when no value lies between the
 * bounds (the page is inside the lower bound's value, walked to).
 */
async function keywordBound(cluster: Cluster, { q, key, first, valued, from, size, window }: Bisection, least: string, greatest: string): Promise<Bound> {
  const exists: Query = { exists: { field: key.field } };
  const before = (b: string): Query => ({ range: { [key.field]: { [key.desc ? 'gt' : 'lt']: b } } });
  const count = async (b: string) => first + (await cluster.count(and([q, before(b)])));
  // In the sort's order: the first value, and the last.
  const [start, end] = key.desc ? [greatest, least] : [least, greatest];
  // The page starts inside the last value.
  const beforeEnd = await count(end);
  if (beforeEnd <= from) return { ranksBefore: beforeEnd, ...fromTo(before(end), undefined) };
  let [lo, ranksBefore] = [start, first];
  let [hi, ranksBeforeHi] = [end, beforeEnd];
  const order = (a: string, b: string) => (key.desc ? compareCodePoints(b, a) : compareCodePoints(a, b));
  const reach = from - slackOf(window, size);
  for (let step = 0; ranksBefore < reach && step < KEYWORD_STEPS; step++) {
    const mid = key.desc ? between(hi, lo) : between(lo, hi);
    if (mid === undefined) break;
    // The first value at or after mid in the order; if it is not before hi, the last value before mid.
    let value = valueOf(await cluster.firstValue(and([q, exists], [before(mid)]), key, key.desc ? 'desc' : 'asc'));
    if (value === undefined || order(value, hi) >= 0) {
      value = valueOf(await cluster.firstValue(and([q, exists, before(mid)], [before(lo)]), key, key.desc ? 'asc' : 'desc'));
      // Nothing between the bounds: the page lies inside the lower bound's value.
      if (value === undefined || order(value, lo) <= 0) break;
    }
    if (order(value, lo) <= 0 || order(value, hi) >= 0) throw new NotBisectable();
    const c = await count(value);
    if (c <= from) [lo, ranksBefore] = [value, c];
    else [hi, ranksBeforeHi] = [value, c];
  }
  return { ranksBefore, ...fromTo(lo === start ? undefined : before(lo), ranksBeforeHi >= from + size ? before(hi) : undefined) };
}

/** A page inside the window: the cluster's own from/size, its total read from the answer. */
async function shallow(cluster: Cluster, search: FrontSearch): Promise<ColdPage> {
  const body = { ...search.hitsBody, ...search.walkBody, from: search.from, size: search.size, track_total_hits: true };
  const answer = await cluster.post('page', body, search.pageParams);
  if (answer.status !== 200) return { answer, total: 0 };
  const { hits } = JSON.parse(answer.text) as { hits: { total: { value: number } } };
  return { answer, total: hits.total.value };
}

/** A keyword sort value the cluster showed. */
function valueOf({ value }: { value: unknown }): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The first clause of a sort, if it is a field sorted by its min (asc) or max (desc) with `missing` first or last. */
export function firstKey(sort: unknown): FirstKey | undefined {
  const clause = sortClauses(sort)?.[0];
  // _score, _script, _geo_distance, _doc and the metadata fields are not bisected.
  if (clause === undefined || clause.name.startsWith('_')) return undefined;
  const { name: field, options: spec, desc, missingFirst } = clause;
  if (spec === undefined || spec === 'asc' || spec === 'desc') return { field, desc, missingFirst: false };
  if (!isObject(spec)) return undefined;
  // numeric_type casts the values (two longs may become one double: a tie the range query does not see); nested picks other values.
  for (const option of Object.keys(spec)) if (!['order', 'missing', 'mode', 'format', 'unmapped_type'].includes(option)) return undefined;
  const { order = 'asc', missing = '_last', mode, unmapped_type: unmappedType } = spec;
  if (order !== 'asc' && order !== 'desc') return undefined;
  if (missing !== '_last' && missing !== '_first') return undefined;
  if (mode !== undefined && mode !== (order === 'asc' ? 'min' : 'max')) return undefined;
  if (unmappedType !== undefined && typeof unmappedType !== 'string') return undefined;
  return { field, desc, missingFirst, ...(unmappedType === undefined ? {} : { unmappedType }) };
}

const DOMAINS: Record<string, Domain> = {
  long: 'integer', integer: 'integer', short: 'integer', byte: 'integer', unsigned_long: 'integer',
  double: 'double', float: 'double', half_float: 'double', scaled_float: 'double',
  date: 'date',
  keyword: 'keyword',
};

/** The field's mapping in one index's `properties`: a dotted path through objects and multi-fields; 'nested' below a nested object. */
export function mappedType(properties: unknown, path: string): string | undefined {
  if (!isObject(properties)) return undefined;
  const parts = path.split('.');
  for (let i = parts.length; i > 0; i--) {
    const node = properties[parts.slice(0, i).join('.')];
    if (!isObject(node)) continue;
    if (i === parts.length) return typeof node.type === 'string' ? node.type : 'object';
    const rest = parts.slice(i).join('.');
    const inner = mappedType(node.properties, rest) ?? mappedType(node.fields, rest);
    if (inner !== undefined) return node.type === 'nested' ? 'nested' : inner;
  }
  return undefined;
}

/** The bounds bisected over: `steps` + 1 of them from the first value in the order (step 0) to just past the last (step `steps`). */
interface Axis {
  steps: bigint;
  /** The bound at step i (0 ≤ i < steps), as a range query takes it. */
  bound(i: bigint): number | string;
  /** The step of a sort value the cluster showed. */
  index(value: unknown): bigint;
}

/** The step whose value lies `fraction` of the way from step lo's value to step hi's (values, not steps: a double's steps are not evenly spread). */
function interpolated(axis: Axis, lo: bigint, hi: bigint, fraction: number): bigint {
  const [from, to] = [Number(axis.bound(lo)), Number(axis.bound(hi))];
  const value = from + (to - from) * fraction;
  if (!Number.isFinite(value)) return (lo + hi) / 2n;
  try {
    return axis.index(Number.isInteger(from) && Number.isInteger(to) ? Math.round(value) : value);
  } catch {
    return (lo + hi) / 2n;
  }
}

function axisOf(domain: Domain, desc: boolean, least: unknown, greatest: unknown): Axis {
  if (domain === 'double') {
    const [min, max] = [orderedKey(doubleOf(least)), orderedKey(doubleOf(greatest))];
    return { steps: max - min + 1n, bound: (i) => fromOrderedKey(desc ? max - i : min + i), index: (v) => (desc ? max - orderedKey(doubleOf(v)) : orderedKey(doubleOf(v)) - min) };
  }
  const [min, max] = [integerOf(least), integerOf(greatest)];
  return { steps: max - min + 1n, bound: (i) => integerBound(desc ? max - i : min + i), index: (v) => (desc ? max - integerOf(v) : integerOf(v) - min) };
}

function doubleOf(value: unknown): number {
  if (typeof value === 'number') return value;
  throw new NotBisectable();
}

function within(step: bigint, least: bigint, greatest: bigint): bigint {
  if (step < least || step > greatest) throw new NotBisectable();
  return step;
}

function integerOf(value: unknown): bigint {
  if (typeof value === 'string' && value.startsWith(EXACT_INTEGER)) return BigInt(value.slice(1));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw new NotBisectable();
}

/** A JSON number when a double holds it; else its digits as a string, which a range on a long or date reads exactly. */
function integerBound(value: bigint): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value.toString();
}

const SIGN = 1n << 63n;
const BITS = (1n << 64n) - 1n;
const scratch = new DataView(new ArrayBuffer(8));

/** A double's place in the order of doubles, as an unsigned 64-bit integer. */
function orderedKey(value: number): bigint {
  scratch.setFloat64(0, value);
  const bits = scratch.getBigUint64(0);
  return bits & SIGN ? ~bits & BITS : bits | SIGN;
}

function fromOrderedKey(key: bigint): number {
  scratch.setBigUint64(0, key & SIGN ? key ^ SIGN : ~key & BITS);
  return scratch.getFloat64(0);
}

/** `Q ∧ filters ∧ ¬exclusions` as a bool filter (no scores: the order is the sort's). */
function and(filters: Query[], exclusions: Query[] = []): Query {
  return { bool: { filter: filters, ...(exclusions.length > 0 ? { must_not: exclusions } : {}) } };
}

function runtimeFields(walkBody: Record<string, unknown>): Set<string> {
  return new Set(isObject(walkBody.runtime_mappings) ? Object.keys(walkBody.runtime_mappings) : []);
}

/** The cluster's requests for one search: with its credentials, its index options, routing and preference. */
class Cluster {
  constructor(
    private readonly calls: ClusterCalls,
    private readonly search: FrontSearch,
    /** The point-in-time dialect (point-in-time.ts). */
    private readonly distribution: Distribution,
  ) {}

  /**
   * Whether the field is bisected as integers, doubles or dates in every index that maps it, and whether
   * a range bounded by a sort value the cluster shows is bounded by that very value (not for
   * scaled_float, whose bounds are scaled and rounded); undefined if not.
   */
  async domainOf(field: string): Promise<{ domain: Domain; exactValues: boolean } | undefined> {
    const options = new URLSearchParams([...this.search.pitParams].filter(([name]) => ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'].includes(name)));
    const answer = await this.calls.call('count', 'GET', target(indexPath(this.search.indices), '_mapping', options), this.search.headers);
    // Reading mappings takes a privilege searching does not: a refusal here only means no bisection.
    if (answer.status !== 200) return undefined;
    const domains = new Set<Domain | undefined>();
    let exactValues = true;
    for (const index of Object.values(JSON.parse(answer.text) as Record<string, { mappings?: Record<string, unknown> }>)) {
      const mappings = index.mappings ?? {};
      if (isObject(mappings.runtime) && field in mappings.runtime) return undefined;
      const type = mappedType(mappings.properties, field);
      if (type !== undefined) domains.add(DOMAINS[type]);
      if (type === 'scaled_float') exactValues = false;
    }
    const [domain] = domains;
    return domains.size === 1 && domain !== undefined ? { domain, exactValues } : undefined;
  }

  /** The sort value of a query's first hit sorted by the key alone (the user's mode, missing last) in this order, and (`counted`) its total. */
  async firstValue(query: Query, key: FirstKey, order: 'asc' | 'desc', counted = false): Promise<{ total: number; value: unknown }> {
    const sort = [{ [key.field]: { order, mode: key.desc ? 'max' : 'min', missing: '_last', ...(key.unmappedType === undefined ? {} : { unmapped_type: key.unmappedType }) } }];
    const text = this.complete(await this.post('count', { query, sort, size: 1, _source: false, track_total_hits: counted }));
    const { hits } = parseExact(text) as { hits: { total?: { value: number }; hits: { sort: unknown[] }[] } };
    return { total: hits.total?.value ?? 0, value: hits.hits[0]?.sort[0] };
  }

  async count(query: Query): Promise<number> {
    const { runtime_mappings } = this.search.walkBody;
    // _count reads a query only: with runtime fields, a search counts.
    if (runtime_mappings !== undefined) return this.totalOf(query);
    const answer = await this.calls.call('count', 'POST', target(indexPath(this.search.indices), '_count', this.search.pitParams), this.search.headers, { query });
    return (JSON.parse(this.complete(answer)) as { count: number }).count;
  }

  private async totalOf(query: Query): Promise<number> {
    const text = this.complete(await this.post('count', { query, size: 0, track_total_hits: true }));
    return (JSON.parse(text) as { hits: { total: { value: number } } }).hits.total.value;
  }

  /** Ranks [offset, offset+size) of the user's order over `query`: from/size inside the window, else walked to in a point in time. */
  async pageAt(query: Query, offset: number, size: number, window: number): Promise<ClusterAnswer> {
    return offset + size <= window ? this.page(query, offset, size) : this.walkedPage(query, offset, size, window);
  }

  /** The user's page over `query` from `offset`, a plain from/size search. */
  async page(query: Query, offset: number, size: number): Promise<ClusterAnswer> {
    return this.post('page', this.pageBody(query, { from: offset, size }), this.search.pageParams);
  }

  private pageBody(query: Query, rest: Record<string, unknown>): Record<string, unknown> {
    const { sort, runtime_mappings } = this.search.walkBody;
    return { ...this.search.hitsBody, query, sort, ...(runtime_mappings === undefined ? {} : { runtime_mappings }), ...rest, track_total_hits: false };
  }

  /**
   * Ranks [offset, offset+size) of `query` when offset is past the window: inside a tie, where only the
   * cluster's tie-break (shard, document) orders documents, which a plain search cannot resume from.
   * In a point in time with `_shard_doc` as the last key, `window` documents a request, then the page
   * after the last one skipped; `pit_id` and the `_shard_doc` values are taken out of its answer.
   */
  private async walkedPage(query: Query, offset: number, size: number, window: number): Promise<ClusterAnswer> {
    const { walkBody, indices, pitParams, headers } = this.search;
    const sort = [...(Array.isArray(walkBody.sort) ? walkBody.sort : [walkBody.sort]), { _shard_doc: 'asc' }];
    const runtime = walkBody.runtime_mappings === undefined ? {} : { runtime_mappings: walkBody.runtime_mappings };
    let id: string;
    try {
      id = await openPointInTime(this.calls, this.distribution, indices, pitParams, '1m', headers);
    } catch {
      // A cluster without points in time (or that refuses one) leaves the tie to the rank index.
      throw new NotBisectable();
    }
    try {
      let after: string | undefined;
      for (let skipped = 0; skipped < offset; ) {
        const step = Math.min(offset - skipped, window);
        const body = { pit: { id, keep_alive: '1m' }, query, sort, ...runtime, _source: false, stored_fields: '_none_', track_total_hits: false, ...(after === undefined ? { from: step - 1, size: 1 } : { size: step }) };
        // Only the sort values are read: the cluster leaves the rest of each hit out of its answer.
        const walked = await this.calls.call('walk', 'POST', `/_search?${WALK_FILTER}`, headers, withSearchAfter(body, after));
        // A point in time lost mid-walk: the rank index's walk starts again on a new one.
        if (walked.status !== 200) throw new NotBisectable();
        const text = this.complete(walked);
        id = (JSON.parse(text) as { pit_id?: string }).pit_id ?? id;
        after = lastSort(text);
        // Fewer documents than the offset: the page is empty, as past the end of any order.
        if (after === undefined) return await this.page(and([query], [{ match_all: {} }]), 0, size);
        skipped += step;
      }
      const body = { ...this.pageBody(query, { size }), sort, pit: { id, keep_alive: '1m' } };
      const answer = await this.calls.call('page', 'POST', target('', '_search', this.search.pageParams), headers, withSearchAfter(body, after));
      return answer.status === 200 ? withoutPit(answer) : answer;
    } finally {
      // A point in time left open expires with its keep-alive.
      await closePointInTime(this.calls, this.distribution, id, headers).catch(() => undefined);
    }
  }

  post(purpose: CallPurpose, body: Record<string, unknown>, extra?: URLSearchParams): Promise<ClusterAnswer> {
    const { runtime_mappings } = this.search.walkBody;
    const withRuntime = runtime_mappings === undefined || 'runtime_mappings' in body ? body : { ...body, runtime_mappings };
    const params = new URLSearchParams([...this.search.pitParams, ...(extra ?? [])]);
    return this.calls.call(purpose, 'POST', target(indexPath(this.search.indices), '_search', params), this.search.headers, withRuntime);
  }

  /** An answer's text, when it is whole: a refusal is passed on; a count missing shards' documents would misplace the page. */
  private complete(answer: ClusterAnswer): string {
    if (answer.status !== 200) throw new Refused(answer);
    const { _shards } = JSON.parse(answer.text) as { _shards?: { failed?: number } };
    if ((_shards?.failed ?? 0) > 0) throw new NotBisectable();
    return answer.text;
  }
}

/** What a walk inside a tie reads of each answer (pit_id, whether shards failed, the hits' sort values). */
const WALK_FILTER = 'filter_path=pit_id,_shards.failed,hits.hits.sort';

/** The body's JSON with the cluster's own sort values (their text as sent: longs beyond 2^53 stay exact) as `search_after`. */
function withSearchAfter(body: Record<string, unknown>, after: string | undefined): string {
  const text = stringifyExact(body);
  return after === undefined ? text : `${text.slice(0, -1)},"search_after":${after}}`;
}

/** The text of the last hit's `sort` array, if there are hits. */
function lastSort(text: string): string | undefined {
  const hits = hitSpans(text);
  const last = hits.at(-1);
  const sort = last && member(text, last.start, 'sort');
  return sort && text.slice(sort.start, sort.end);
}

function hitSpans(text: string) {
  const outer = member(text, 0, 'hits');
  const inner = outer && member(text, outer.start, 'hits');
  return inner ? elements(text, inner.start) : [];
}

/** A point-in-time answer as a plain search's: without `pit_id`, and each hit's `sort` without its last value (`_shard_doc`). */
function withoutPit(answer: ClusterAnswer): ClusterAnswer {
  const { text } = answer;
  const cuts: [number, number][] = [];
  const root = members(text, 0);
  const at = root.findIndex((m) => m.key === 'pit_id');
  if (at > 0) cuts.push([root[at - 1].end, root[at].end]);
  else if (at === 0) cuts.push([text.indexOf('{') + 1, text.indexOf('"', text.indexOf(',', root[0].end))]);
  for (const hit of hitSpans(text)) {
    const sort = member(text, hit.start, 'sort');
    const values = sort ? elements(text, sort.start) : [];
    if (values.length >= 2) cuts.push([values.at(-2)!.end, values.at(-1)!.end]);
  }
  let out = '';
  let from = 0;
  for (const [start, end] of cuts.sort((a, b) => a[0] - b[0])) {
    out += text.slice(from, start);
    from = end;
  }
  out += text.slice(from);
  const length = String(Buffer.byteLength(out));
  const rawHeaders = answer.rawHeaders.map((line, i) => (i % 2 === 1 && answer.rawHeaders[i - 1].toLowerCase() === 'content-length' ? length : line));
  return { status: answer.status, rawHeaders, text: out };
}

function target(path: string, endpoint: string, params: URLSearchParams): string {
  const query = params.toString();
  return `${path}/${endpoint}${query === '' ? '' : `?${query}`}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One of the requests was refused: its answer is the page's. */
class Refused {
  constructor(readonly answer: ClusterAnswer) {}
}

/** The page cannot be found by bisection (a shard missing from a count, an unexpected value). */
class NotBisectable {}
