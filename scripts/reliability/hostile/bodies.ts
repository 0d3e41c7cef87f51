/**
 * Request bodies for each API: the fields the API reads, with valid values and (with probability
 * `rate`) values of the wrong type, unknown fields and repeated keys; and, in {@link encodeBody},
 * the ways a body reaches the server broken: malformed, truncated, nested 100,000 deep, with a
 * byte order mark or bytes no UTF-8 decoder takes, a bare scalar, or larger than the server's limit.
 */
import fc from 'fast-check';
import { anyJson, deeplyNested, DEPTHS, Entries, HOSTILE_INTS, HOSTILE_TIMES, MANY_STARS, mix, NUMBER_LITERALS, oddString, pick, Raw, toJson, VALID_TIMES } from './values.ts';

/** What bodies may name: indices that must not change, indices that may, documents, and live cursor ids. */
export interface BodyTargets {
  readIndex: fc.Arbitrary<string>;
  writeIndex: fc.Arbitrary<string>;
  docId: fc.Arbitrary<string>;
  /** Read by searches, never closed by a valid request. */
  pitId: string;
  scrollId: string;
  /** Closed by valid requests (then closing them again finds nothing). */
  spare: { pitId: string; scrollId: string };
}

export interface Bodies {
  search: fc.Arbitrary<unknown>;
  count: fc.Arbitrary<unknown>;
  doc: fc.Arbitrary<unknown>;
  createIndex: fc.Arbitrary<unknown>;
  settings: fc.Arbitrary<unknown>;
  reindex: fc.Arbitrary<unknown>;
  openPit: fc.Arbitrary<unknown>;
  closePit: fc.Arbitrary<unknown>;
  scroll: fc.Arbitrary<unknown>;
  clearScroll: fc.Arbitrary<unknown>;
  bulk: fc.Arbitrary<unknown[]>;
  /** `PUT /{index}/_alias/{name}`. */
  alias: fc.Arbitrary<unknown>;
  /** `POST /_aliases`. */
  aliasActions: fc.Arbitrary<unknown>;
  /** `_mget`: `docs` or `ids`. */
  mget: fc.Arbitrary<unknown>;
  /** `_msearch`: header and body lines, as `bulk`'s are. */
  msearch: fc.Arbitrary<unknown[]>;
}

const FIELDS = ['n', 'tag', 'title', 'date', 'flag', 'obj.x'];
const HOSTILE_FIELDS = ['obj', 'missing', '_id', '_doc', '_score', '_shard_doc', '', '*', 'n.x', 'tag.keyword', MANY_STARS];
const SORTS = ['n', 'tag', '_doc', '_score', { n: 'desc' }, { tag: { order: 'asc', missing: '_first' } }, { date: { order: 'desc', unmapped_type: 'long' } }, { n: { order: 'asc', mode: 'max' } }];
const HOSTILE_SORTS = ['_shard_doc', { n: 'sideways' }, { n: { order: 5 } }, { n: { mode: 'avg' } }, { '': 'asc' }, { n: { nested: {} } }, { _geo_distance: {} }, { _script: {} }, 5, null, [[]], { title: 'asc' }];

/** Every body arbitrary at one hostility rate. */
export function bodies(t: BodyTargets, rate: number): Bodies {
  const hostileInt = fc.oneof(fc.constantFrom(-1, -5, 1.5, 0.5, '10', '1e3', 'x', '', null, true, [], {}, [1], `${'1'.repeat(100_000)}x`), fc.constantFrom(...NUMBER_LITERALS).map((text) => new Raw(text)), fc.constantFrom(...HOSTILE_INTS));
  const int = (...valid: number[]) => mix(rate, fc.constantFrom(...valid), hostileInt);
  const field = mix(rate, fc.constantFrom(...FIELDS), fc.oneof(fc.constantFrom(...HOSTILE_FIELDS), oddString));
  const value = <T>(valid: fc.Arbitrary<T>) => mix<unknown>(rate, valid, anyJson);
  const time = pick(rate, VALID_TIMES, HOSTILE_TIMES);

  /** An object of some of the fields (the `required` ones, unless hostile), now and then with an unknown field or a key written twice. */
  const object = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) =>
    fc
      .tuple(
        fc.record(Object.fromEntries(Object.entries(fields).map(([k, arb]) => [k, required.includes(k) ? mix(rate / 3, arb, fc.constant(undefined)) : fc.option(arb, { nil: undefined, freq: 2 })]))),
        rate === 0 ? fc.constant(null) : fc.tuple(oddString, anyJson),
        fc.double({ min: 0, max: 1, noNaN: true }),
      )
      .map(([record, unknown, roll]) => {
        const entries = Object.entries(record).filter(([, v]) => v !== undefined) as [string, unknown][];
        if (unknown && roll < rate / 3) entries.push(unknown);
        if (roll > 1 - rate / 4 && entries.length > 0) entries.push([entries[0][0], null]);
        return new Entries(entries);
      });

  const query: fc.Arbitrary<unknown> = fc.letrec<{ query: unknown }>((tie) => {
    const clauses = fc.array(tie('query'), { maxLength: 2 });
    const valid = fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom({ match_all: {} }, { match_none: {} }, { term: { tag: 'a' } }, { terms: { tag: ['a', 'b'] } }, { range: { n: { gte: 3, lt: 10 } } }, { range: { date: { gte: '2024-01-05', lte: 'now' } } }),
      fc.constantFrom({ exists: { field: 'obj.x' } }, { ids: { values: ['1', '2', 'x'] } }, { prefix: { tag: 'a' } }, { wildcard: { tag: 'a*' } }, { match: { title: 'quick' } }, { match: { title: { query: 'quick dog', operator: 'and' } } }),
      fc.constantFrom({ match_phrase: { title: 'quick fox' } }, { multi_match: { query: 'quick', fields: ['title^2', 'tag'] } }),
      fc.record({ bool: fc.record({ must: clauses, filter: tie('query'), should: clauses, must_not: tie('query') }, { requiredKeys: [] }) }),
      fc.record({ constant_score: fc.record({ filter: tie('query'), boost: fc.constantFrom(1, 2.5) }) }),
      fc.record({ dis_max: fc.record({ queries: clauses, tie_breaker: fc.constantFrom(0, 0.3) }) }),
    );
    const any = fc.oneof(fc.constantFrom(1, 5, 'a', 'quick fox', true, '2024-01-01', 'now-1d/d', '*'), anyJson);
    const hostile = fc.oneof(
      fc.constantFrom({}, { boool: {} }, { fuzzy: { tag: 'a' } }, { query_string: { query: 'a' } }, [], 'match_all', null, { match_all: { boost: 'x' } }, { term: {} }, { bool: { must: {} } }),
      fc.record({ term: fc.dictionary(field, fc.oneof(any, fc.record({ value: any, boost: any })), { maxKeys: 2 }) }),
      fc.record({ terms: fc.dictionary(field, fc.oneof(fc.array(any, { maxLength: 3 }), any), { maxKeys: 2 }) }),
      fc.record({ range: fc.dictionary(field, fc.oneof(fc.record({ gte: any, lt: any, format: any, time_zone: any, relation: any }, { requiredKeys: [] }), any), { maxKeys: 1 }) }),
      fc.record({ match: fc.dictionary(field, fc.oneof(any, fc.record({ query: any, operator: any, minimum_should_match: any, lenient: any }, { requiredKeys: [] })), { maxKeys: 1 }) }),
      fc.record({ wildcard: fc.dictionary(field, fc.oneof(any, fc.constantFrom('*a?', '?', '**', '\\\\\\', MANY_STARS)), { maxKeys: 1 }) }),
      fc.record({ multi_match: fc.record({ query: any, fields: fc.array(fc.oneof(field, fc.constantFrom('ti*', '^', 'tag^x', 'title^1e400', MANY_STARS, `title^${'1'.repeat(100_000)}x`)), { maxLength: 3 }), type: any }, { requiredKeys: [] }) }),
      fc.record({ bool: fc.record({ must: any, should: any, minimum_should_match: any }, { requiredKeys: [] }) }),
      fc.constantFrom(...DEPTHS).map((depth) => new Raw(`${'{"bool":{"must":'.repeat(depth)}{"match_all":{}}${'}}'.repeat(depth)}`)),
      fc.constantFrom(...DEPTHS).map((depth) => new Raw(`{"bool":{"must":${'['.repeat(depth)}{"match_all":{}}${']'.repeat(depth)}}}`)),
      fc.constantFrom(...DEPTHS).map((depth) => new Raw(`{"term":{"tag":${'['.repeat(depth)}1${']'.repeat(depth)}}}`)),
      anyJson,
    );
    return { query: mix(rate, valid, hostile) };
  }).query;

  const sortClause = pick<unknown>(rate, SORTS, HOSTILE_SORTS);
  const doc = mix<unknown>(
    rate,
    fc.record({ n: fc.integer({ min: -1000, max: 1000 }), tag: fc.constantFrom('a', 'b', 'c'), title: fc.constantFrom('quick fox', 'lazy dog', 'é😀 ünï') }, { requiredKeys: ['n'] }),
    fc.oneof(
      object({
        n: value(fc.constant(1)),
        tag: value(fc.constant('a')),
        title: fc.oneof(anyJson, fc.array(anyJson, { maxLength: 3 })),
        date: fc.oneof(fc.constantFrom('2024-01-01', '2024-13-45', 'now', '1e400', -1, new Raw('1e400'), new Raw('9223372036854775808')), anyJson),
        flag: fc.oneof(fc.constantFrom(true, 'false', 'yes', 0), anyJson),
        obj: fc.oneof(fc.record({ x: anyJson }), anyJson, fc.constantFrom(...DEPTHS).map((d) => deeplyNested(d, 'object'))),
        'obj.x': anyJson,
        arr: fc.oneof(fc.constantFrom(...DEPTHS).map((d) => deeplyNested(d, 'array')), fc.array(anyJson, { maxLength: 3 })),
        big: fc.constantFrom(...NUMBER_LITERALS).map((text) => new Raw(text)),
      }),
      fc.dictionary(oddString, anyJson, { maxKeys: 4 }),
    ),
  );

  const search = object({
    from: int(0, 1, 5, 20),
    size: int(0, 1, 3, 10),
    query,
    sort: fc.oneof(sortClause, fc.array(sortClause, { maxLength: 3 })),
    _source: value(fc.constantFrom(true, false, 'n', ['n', 'tag'], { includes: ['n'], excludes: ['tag'] }, 'obj.*')),
    track_total_hits: value(fc.constantFrom(true, false, 10, -1, 'true')),
    search_after: value(fc.constantFrom([1], ['a'], [1, 'x'], [5, 12884901890])),
    pit: value(fc.constantFrom({ id: t.pitId, keep_alive: '1m' }, { id: t.pitId })),
    min_score: value(fc.constantFrom(0, 0.5, '0.1')),
    track_scores: value(fc.constantFrom(true, false)),
    version: value(fc.constantFrom(true, false)),
    seq_no_primary_term: value(fc.constantFrom(true, false)),
    timeout: value(fc.constantFrom('1s', '10ms')),
    stored_fields: value(fc.constantFrom('_none_', ['n', '_source'], '_source')),
    docvalue_fields: value(fc.constantFrom(['n'], [{ field: 'date', format: 'yyyy' }], ['tag', 'obj.x'])),
    ...(rate > 0 && { aggs: fc.constant({ a: { terms: { field: 'tag' } } }), explain: fc.constantFrom(true, 'x'), slice: fc.constant({ id: 0, max: 2 }) }),
  });

  const shards = pick<unknown>(rate, [1, 2, 3, '2'], [0, -1, 1025, 1.5, 'x', 2147483648, null, [], {}]);
  const replicas = pick<unknown>(rate, [0, 1], [-1, 1025, 'x', null, 1.5]);
  // No `-1` or long intervals: a `refresh=wait_for` write would then wait as long, in ES too.
  const refreshInterval = pick<unknown>(rate, ['1s', '200ms'], ['x', '-2', 5, null, '1e400s', true, '', '0x1s']);
  const indexSettings = object({
    number_of_shards: shards,
    number_of_replicas: replicas,
    refresh_interval: refreshInterval,
    'index.max_result_window': int(10, 1000, 20000, 2147483647),
    ...(rate > 0 && { 'index.number_of_routing_shards': hostileInt, analysis: fc.constant({ analyzer: { a: { type: 'custom', tokenizer: 'standard' } } }) }),
    index: fc.record({ sort: fc.record({ field: mix<unknown>(rate, fc.constantFrom('n', 'tag'), fc.oneof(field, fc.array(field, { maxLength: 2 }))), order: pick<unknown>(rate, ['asc', 'desc'], ['x', 5, null]) }) }),
  });
  const fieldType = pick<unknown>(rate, ['keyword', 'text', 'long', 'integer', 'short', 'double', 'float', 'half_float', 'date', 'boolean'], ['object', 'nested', 'geo_point', 'x', '', 5, 'byte ']);
  const mapping: fc.Arbitrary<unknown> = fc.letrec<{ props: unknown }>((tie) => ({
    props: fc.dictionary(
      field,
      fc.oneof(
        { depthSize: 'small' },
        fc.record({ type: fieldType }),
        fc.record({ type: fc.constantFrom('text', 'keyword'), fields: fc.record({ raw: fc.record({ type: fieldType }) }) }),
        fc.record({ properties: tie('props') }),
        value(fc.record({ type: fc.constant('date'), format: fc.constantFrom('yyyy-MM-dd', 'epoch_millis') })),
      ),
      { maxKeys: 3 },
    ),
  })).props;

  const createIndex = object({
    settings: value(indexSettings),
    mappings: value(object({ properties: mapping, dynamic: pick<unknown>(rate, [true, false, 'strict'], ['runtime', 'x', 5]) })),
    ...(rate > 0 && { aliases: fc.oneof(fc.constant({}), fc.constant({ a: {} }), anyJson) }),
  });

  const source = object({
    index: mix<unknown>(rate, fc.oneof(t.readIndex, fc.array(t.readIndex, { minLength: 1, maxLength: 2 })), anyJson),
    query,
    size: int(1, 5, 100),
    _source: value(fc.constantFrom(true, ['n'], 'tag')),
    ...(rate > 0 && {
      remote: fc.record({ host: fc.constantFrom('http://127.0.0.1:1', 'x', 'http://[::1', ''), username: anyJson, socket_timeout: time }, { requiredKeys: [] }),
      slice: fc.constant({ id: 0, max: 2 }),
      sort: fc.constant(['n']),
    }),
  }, ['index']);
  const dest = object({
    index: mix<unknown>(rate, t.writeIndex, anyJson),
    op_type: pick<unknown>(rate, ['index', 'create'], ['x', 5]),
    routing: pick<unknown>(rate, ['keep', 'discard', '=r'], ['=', 'x', 5]),
    ...(rate > 0 && { version_type: fc.constantFrom('internal', 'external', 'x'), pipeline: anyJson }),
  }, ['index']);

  const anyId = (valid: string[], hostile: unknown[]) => mix<unknown>(rate, fc.constantFrom(...valid), fc.oneof(fc.constantFrom(...hostile), anyJson));
  const broken = (id: string) => [`${id}x`, 'AAAA', '', 5, [id], id.slice(0, -2), `${id}==`];

  const bulkAction = mix<unknown>(
    rate,
    fc.tuple(fc.constantFrom('index', 'create', 'delete', 'update'), object({ _index: mix<unknown>(rate, t.writeIndex, anyJson), _id: mix<unknown>(rate, t.docId, anyJson), routing: value(fc.constant('r1')) })).map(([action, meta]) => new Entries([[action, meta]])),
    fc.oneof(
      fc.tuple(fc.constantFrom('index', 'delete'), object({ version: hostileInt, if_seq_no: hostileInt, retry_on_conflict: hostileInt, pipeline: anyJson, _source: anyJson })).map(([action, meta]) => new Entries([[action, meta]])),
      fc.constantFrom({}, [], 'index', { index: 5 }, { index: {}, delete: {} }, { upsert: {} }, null),
    ),
  );
  const updateSource = object({ doc: mix(rate, doc, anyJson), upsert: mix(rate, doc, anyJson), doc_as_upsert: pick<unknown>(rate, [true, false], ['x', 1]), ...(rate > 0 && { detect_noop: fc.constant(false), script: fc.constant({ source: 'x' }) }) });

  const aliasName = mix(rate, fc.constantFrom('al-a', 'al-b', 'al-*'), fc.oneof(fc.constantFrom('', '_x', 'A', 'a,b', '*', MANY_STARS), oddString));
  const alias = object({
    filter: value(query),
    routing: pick<unknown>(rate, ['1', 'r'], [5, [], {}]),
    index_routing: pick<unknown>(rate, ['1'], ['a,b', true]),
    search_routing: pick<unknown>(rate, ['1,2'], [{}, null]),
    is_write_index: pick<unknown>(rate, [true, false], ['x', 1]),
    is_hidden: pick<unknown>(rate, [false], ['yes']),
  });
  const aliasAction = fc.oneof(
    object({ add: object({ index: t.writeIndex, alias: aliasName, is_write_index: pick<unknown>(rate, [true, false], ['x']), filter: value(query) }, ['index', 'alias']) }, ['add']),
    object({ remove: object({ index: t.writeIndex, alias: aliasName, must_exist: pick<unknown>(rate, [true, false], ['x', 2]) }, ['index', 'alias']) }, ['remove']),
    object({ remove_index: object({ index: t.writeIndex }, ['index']) }, ['remove_index']),
  );
  const aliasActions = object({ actions: mix<unknown>(rate, fc.array(aliasAction, { minLength: 1, maxLength: 3 }), fc.oneof(fc.constant([]), anyJson)) }, ['actions']);

  const mgetDoc = object({ _index: t.readIndex, _id: t.docId, routing: pick<unknown>(rate, ['r1'], [5, {}]), _source: value(fc.constantFrom(true, false, ['n'])) }, ['_id']);
  const mget = fc.oneof(object({ docs: mix<unknown>(rate, fc.array(mgetDoc, { minLength: 1, maxLength: 3 }), anyJson) }, ['docs']), object({ ids: mix<unknown>(rate, fc.array(t.docId, { minLength: 1, maxLength: 3 }), anyJson) }, ['ids']));
  const msearchHeader = object({ index: mix<unknown>(rate, t.readIndex, anyJson), routing: pick<unknown>(rate, ['r1'], [5]), ignore_unavailable: pick<unknown>(rate, [true, false], ['x']) });
  const msearch = fc.array(fc.tuple(msearchHeader, search), { minLength: rate === 0 ? 1 : 0, maxLength: 3 }).map((pairs) => pairs.flat());

  return {
    mget,
    msearch,
    alias,
    aliasActions,
    search,
    count: object({ query, ...(rate > 0 && { size: int(1) }) }),
    doc,
    createIndex,
    settings: mix(rate, fc.oneof(fc.record({ index: indexSettings }), indexSettings, fc.record({ settings: indexSettings })), anyJson),
    reindex: object({ source, dest, conflicts: pick<unknown>(rate, ['abort', 'proceed'], ['x', 5]), max_docs: int(1, 5, 100), ...(rate > 0 && { size: hostileInt, script: fc.constant({ source: 'ctx' }) }) }, ['source', 'dest']),
    openPit: mix<unknown>(rate, fc.constant({}), fc.oneof(fc.constant({ index_filter: { match_all: {} } }), anyJson)),
    closePit: object({ id: anyId([t.spare.pitId], broken(t.pitId)) }, ['id']),
    scroll: object({ scroll_id: anyId([t.scrollId], broken(t.scrollId)), scroll: value(time) }, ['scroll_id']),
    clearScroll: object({ scroll_id: anyId([t.spare.scrollId], [...broken(t.scrollId), ['_all'], [], [5], [t.spare.scrollId, 'AAAA']]) }, ['scroll_id']),
    bulk: fc
      .array(fc.tuple(bulkAction, fc.oneof({ arbitrary: doc, weight: 4 }, { arbitrary: updateSource, weight: 2 }), fc.boolean()), { minLength: rate === 0 ? 1 : 0, maxLength: 4 })
      // A delete has no source line; a hostile body sometimes gives it one anyway, which ES then reads as the next action.
      .map((items) => items.flatMap(([action, source, extra]) => (isDelete(action) && !(rate > 0 && extra) ? [action] : [action, source]))),
  };
}

const isDelete = (action: unknown) => action instanceof Entries && action.entries[0]?.[0] === 'delete';

/** How the JSON text reaches the server. */
const BROKEN_INSERTS = ['}', ']', ',', ':', '"', "'", 'x', '\u0000', '//', '/*', 'NaN', '\\', '{', '\n'];
const TRAILERS = [' x', '}', ',', '\n{}', '{}', '\u0000', ' ', '\n'];
const SCALAR_BODIES = ['null', '5', '"x"', '[]', 'true', '[{}]', '{}', '""'];
/** Bytes a strict UTF-8 decoder refuses: a lone continuation, an overlong slash, a surrogate, a truncated sequence, 0xFF. */
const INVALID_UTF8 = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff], [0xf4, 0x90, 0x80, 0x80]];

export type Encoding = 'json' | 'truncated' | 'broken' | 'trailing' | 'bom' | 'invalid-utf8' | 'blank' | 'scalar' | 'deep' | 'oversized';

const HOSTILE_ENCODINGS: Encoding[] = ['truncated', 'broken', 'trailing', 'bom', 'invalid-utf8', 'blank', 'scalar', 'deep', 'oversized'];
export const encoding = (rate: number) => pick<Encoding>(rate / 2, ['json'], HOSTILE_ENCODINGS);

/**
 * The bytes of a body: `text` written as `how` says. `at` (0 to 1) picks where a body is cut or
 * broken; `limit` is the server's body limit, which an oversized body passes by a little.
 */
export function encodeBody(text: string, how: Encoding, at: number, limit: number): Uint8Array {
  const cut = Math.floor(at * text.length);
  const choose = <T>(list: readonly T[]) => list[Math.floor(at * list.length) % list.length];
  switch (how) {
    case 'json':
      return Buffer.from(text);
    case 'truncated':
      return Buffer.from(text.slice(0, cut));
    case 'broken':
      return Buffer.from(text.slice(0, cut) + choose(BROKEN_INSERTS) + text.slice(cut));
    case 'trailing':
      return Buffer.from(text + choose(TRAILERS));
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    case 'invalid-utf8': {
      const bytes = Buffer.from(text);
      const where = Math.floor(at * bytes.length);
      return Buffer.concat([bytes.subarray(0, where), Buffer.from(choose(INVALID_UTF8)), bytes.subarray(where)]);
    }
    case 'blank':
      return Buffer.from(choose(['', ' ', '\n', '\r\n\t ', '\u00a0']));
    case 'scalar':
      return Buffer.from(choose(SCALAR_BODIES));
    case 'deep':
      return Buffer.from(toJson(deeplyNested(choose(DEPTHS), at < 0.5 ? 'array' : 'object')));
    case 'oversized':
      return Buffer.from(`{"a":"${'x'.repeat(limit + Math.floor(at * 1000))}"}`);
  }
}

/** NDJSON: each line's JSON, then how the whole reaches the server (`trailing`: the last newline missing, CRLF endings, or blank lines). */
export function encodeNdjson(lines: unknown[], how: Encoding, at: number, limit: number): Uint8Array {
  const texts = lines.map(toJson);
  const body = texts.join('\n') + '\n';
  if (how !== 'trailing') return encodeBody(body, how, at, limit);
  return Buffer.from(at < 0.33 ? body.slice(0, -1) : at < 0.66 ? texts.join('\r\n') + '\r\n' : texts.join('\n\n \n') + '\n');
}
