/**
 * Hostile requests over every route of the app (src/http/routes/*.ts), as fast-check arbitraries:
 * the route's methods (and others), its path with index names and ids valid, invalid, encoded,
 * traversing, very long or of odd Unicode; the query parameters it reads with valid and hostile
 * values, repeated, bare and broken; content types; bodies (bodies.ts); credentials.
 *
 * Each request first draws a hostility rate, the chance that each part of it is hostile: a run
 * holds fully valid requests (rate 0, which succeed and change the scratch data), requests broken in
 * one or two places (which reach deep into the code before failing), and requests broken all over.
 *
 * What may change data is aimed only at indices other than the fixture: writes, deletes and
 * settings updates name the scratch indices (or invalid names), never a pattern or a list that
 * could take the fixture in. So the fixture must read the same after any number of these requests.
 *
 * @example
 * const requests = fc.sample(hostileRequest(targets), { numRuns: 1000, seed: 42 });
 */
import fc from 'fast-check';
import { bodies, encodeBody, encodeNdjson, encoding, type Bodies } from './bodies.ts';
import {
  BROKEN_ESCAPES, HOSTILE_BOOLS, HOSTILE_INTS, HOSTILE_TIMES, MANY_STARS, mix, ODD_STRINGS, oddString, pick, toJson, uriPart, VALID_BOOLS, VALID_INTS, VALID_TIMES,
} from './values.ts';

export interface HostileRequest {
  /** The route the request was made for (a request with another method or a broken path may reach another). */
  route: string;
  method: string;
  /** Path and query string, as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Send the body in pieces with pauses between them (only a socket can). */
  slow: boolean;
}

export interface HostileTargets {
  /** The index whose documents, mappings and settings must never change. */
  fixture: string;
  fixtureIds: readonly string[];
  /** Indices writes may go to (they may or may not exist); at least two. */
  scratch: readonly string[];
  /** A point in time and a scroll over the fixture that searches read (only hostile requests close them). */
  pitId: string;
  scrollId: string;
  /** A point in time and a scroll that valid requests close. */
  spare: { pitId: string; scrollId: string };
  /** The node's id, as task ids start. */
  nodeId: string;
  /** An `Authorization` header the server accepts; without one, requests carry none. */
  authorization?: string;
  /** Whether `.` and `..` path segments reach the server as sent (a real socket), rather than resolved away by the client's URL parser first. */
  dotSegments: boolean;
  /** The server's body limit in bytes (`http.max_content_length`). */
  maxBodyBytes: number;
}

/** Chances that a part of a request is hostile; each request draws one. */
const RATES = [0, 0.1, 0.3, 0.7];

/** Index names ES refuses (invalid_index_name_exception), none of which can be read as the fixture's. */
const INVALID_NAMES = [
  'A', 'Abc', '_x', '-x', '+x', 'a b', 'a"b', 'a*b', 'a?b', 'a<b', 'a>b', 'a|b', 'a\\b', 'a/b', 'a,b', 'a#b', 'a:b', '', ' ', '\u0000', '\ud800',
  'a'.repeat(256), 'é'.repeat(128), '..', '.', '%', '\uFF21',
];
const DOT_NAMES = new Set(['.', '..']);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
/** Other methods for a path that may name the fixture: none that writes, on any route (`DELETE /fixture,scratch` deletes both). */
const SAFE_METHODS = ['GET', 'HEAD', 'PATCH', 'OPTIONS'];

const RESPONSE = ['pretty', 'human', 'error_trace', 'filter_path'];
const INDICES_OPTIONS = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices'];
const WRITE = ['refresh', 'routing', 'timeout', 'wait_for_active_shards', 'pipeline', 'require_alias', 'include_source_on_error'];
const CONCURRENCY = ['version', 'version_type', 'if_seq_no', 'if_primary_term'];
const SEARCH = [
  'from', 'size', 'sort', '_source', '_source_includes', '_source_excludes', 'track_total_hits', 'rest_total_hits_as_int', 'paging', 'scroll', 'track_scores',
  'q', 'df', 'default_operator', 'lenient', 'analyzer', 'version', 'seq_no_primary_term', 'explain', 'timeout', 'stored_fields', 'docvalue_fields',
  'allow_partial_search_results', 'search_type', 'routing', 'preference', 'request_cache', 'batched_reduce_size', 'max_concurrent_shard_requests',
  'source', 'source_content_type',
];

/** Valid and hostile values of each URI parameter, by name; the ones not listed are flags. */
const PARAM_VALUES: Record<string, [valid: string[], hostile: string[]]> = {
  from: [VALID_INTS, HOSTILE_INTS],
  size: [VALID_INTS, HOSTILE_INTS],
  max_docs: [VALID_INTS, HOSTILE_INTS],
  batched_reduce_size: [['2', '5', '512'], HOSTILE_INTS],
  max_concurrent_shard_requests: [['1', '5'], HOSTILE_INTS],
  version: [['1', 'true'], HOSTILE_INTS],
  if_seq_no: [['0', '1'], HOSTILE_INTS],
  if_primary_term: [['1'], HOSTILE_INTS],
  scroll: [VALID_TIMES, HOSTILE_TIMES],
  keep_alive: [VALID_TIMES, HOSTILE_TIMES],
  master_timeout: [['30s', '1m'], HOSTILE_TIMES],
  // Waits ES honours in full (cluster health, tasks) get short values, so that the run does not stall.
  timeout: [['0s', '10ms', '1ms'], ['-1', '1x', '', 'NaN', '1e400s', '-2s']],
  refresh: [['true', 'false', 'wait_for', ''], ['WAIT_FOR', 'x', '1', 'null']],
  track_total_hits: [['true', 'false', '10', '-1', '2147483647'], ['-2', ...HOSTILE_INTS]],
  sort: [['n:asc', 'tag:desc', 'n', '_doc', '_score', 'n:asc,tag:desc', 'date:desc'], ['_shard_doc', 'x:sideways', ':asc', 'n:', ',', 'title', 'missing:asc', '%00', 'n:asc:desc']],
  _source: [['n', 'false', 'true', 'n,tag', 'obj.*'], ['', '_none_', ',', '*,-', MANY_STARS, ...ODD_STRINGS.slice(0, 8)]],
  _source_includes: [['n', 'obj.*', 'n,tag'], ['', ',', '\u0000', '**']],
  _source_excludes: [['n', 'title'], ['', ',', '**']],
  stored_fields: [['_none_', '_source', 'n,_source'], ['_none_,n', '', '*']],
  docvalue_fields: [['n', 'tag,date'], ['', ',', 'title', 'missing']],
  filter_path: [['hits.hits._id', 'took', 'hits.total', '-hits'], ['*.x', '', '**', 'error', 'a..b', ',', '*', 'took,-took', MANY_STARS]],
  q: [['n:1', 'tag:a', '*', 'title:quick', 'n:[1 TO 5]', 'n:>5', '_exists_:n', 'quick AND fox'], ['tag:(a OR', 'title:"quick', 'n:[1 TO', 'a AND OR b', '\\', '((((', 'n:1^x', '/re/', 'a~2', '"', 'n:1e400', 'date:[now TO x]', `tag:${MANY_STARS}`, `${MANY_STARS}:a`]],
  df: [['title', 'tag'], ['missing', '', '*', MANY_STARS]],
  default_operator: [['AND', 'or'], ['XOR', '']],
  analyzer: [['standard'], ['whitespace', '']],
  paging: [['sorted_runs', 'top_k'], ['x', '']],
  search_type: [['query_then_fetch'], ['dfs_query_then_fetch', 'query_and_fetch', 'x']],
  expand_wildcards: [['open', 'all', 'open,hidden', 'none'], ['closed', 'x', '']],
  op_type: [['index', 'create'], ['x', '', 'CREATE']],
  wait_for_active_shards: [['1', '0'], ['all', '2', '-1', 'x', '']],
  slices: [['1', 'auto', '2'], ['0', '-1', 'x', '1025', '']],
  // No small positive rate: ES would throttle the copy for that long.
  requests_per_second: [['-1', '100000'], ['0', '-5', 'x', '1e400', 'Infinity', '']],
  conflicts: [['abort', 'proceed'], ['x', '']],
  level: [['cluster', 'indices', 'shards'], ['x', '', 'SHARDS']],
  wait_for_status: [['yellow', 'red'], ['green', 'x', '']],
  wait_for_nodes: [['1', '>=1', 'ge(1)'], ['2', 'x', '', 'ge(1']],
  wait_for_events: [['languid', 'urgent'], ['x']],
  group_by: [['nodes', 'parents', 'none'], ['x']],
  actions: [['*reindex', '*', 'indices:data/write/reindex'], ['', '**', '\\', MANY_STARS]],
  nodes: [['_all', '_local', 'data:true'], ['x', 'master:false', '', ...ODD_STRINGS.slice(20, 30)]],
  parent_task_id: [['node:1', 'unset'], ['x', ':1', 'n:-1', 'n:9223372036854775808', '']],
  min_score: [['0', '0.5'], ['-1', 'x', '1e400', 'NaN', '']],
  source: [['{"query":{"match_all":{}}}', '{"size":1}'], ['{', '', 'null', '{"size":"x"}', '[]']],
  source_content_type: [['application/json'], ['application/x-ndjson', 'text/plain', 'x']],
  routing: [['r1', '1', 'é'], ['', ',', ...ODD_STRINGS.slice(40, 50)]],
  preference: [['_local', 'abc'], ['', '_shards:0', '_only_nodes:x']],
  pipeline: [['_none'], ['x', '']],
  version_type: [['internal'], ['external', 'x']],
  index: [['fixture'], ['', '*', '\u0000']],
  fields: [['n'], ['']],
  features: [['aliases'], ['x']],
  metric: [['docs'], ['x']],
  include_type_name: [['false'], ['true']],
  // The _cat APIs' table parameters.
  format: [['json', 'txt', 'text'], ['yaml', 'cbor', 'x', '']],
  h: [['index,health', 'i,dc', '*', 'docs.*', 'alias,index'], ['', ',', 'nope', MANY_STARS]],
  s: [['index', 'index:desc', 'docs.count,index'], ['nope', 'index:sideways', ':', '', ',']],
  bytes: [['b', 'kb', 'mb'], ['x', '', 'KB']],
  time: [['ms', 's'], ['x', '']],
  health: [['green', 'yellow', 'RED'], ['x', '']],
  // _msearch's own.
  max_concurrent_searches: [['1', '5'], HOSTILE_INTS],
  pre_filter_shard_size: [['1', '128'], HOSTILE_INTS],
};

function paramValue(name: string, rate: number, t: HostileTargets): fc.Arbitrary<string> {
  if (name === 'scroll_id') return pick(rate, [t.scrollId], [`${t.scrollId}x`, 'AAAA', '', '_all', t.scrollId.slice(0, -3)]);
  const [valid, hostile] = PARAM_VALUES[name] ?? [VALID_BOOLS, HOSTILE_BOOLS];
  return mix(rate, fc.constantFrom(...valid), fc.oneof(fc.constantFrom(...hostile), oddString));
}

/** The query string: some of the route's parameters; at higher rates unknown names, a parameter twice (`?size=1&size=2`), bare names and broken escapes. */
function queryString(names: readonly string[], required: readonly string[], rate: number, t: HostileTargets): fc.Arbitrary<string> {
  const pool = [...names, ...RESPONSE];
  const known = fc.constantFrom(...pool).chain((name) => fc.tuple(fc.constant(name), paramValue(name, rate, t)));
  const unknown = fc.tuple(fc.constantFrom('unknown', 'Size', 'size[]', 'a.b', '', '%00', 'from ', '_source_include', 'ignore_throttled', ...BROKEN_ESCAPES), oddString);
  const param = mix(rate / 3, known, unknown).chain(([name, value]) => fc.tuple(uriPart(name), uriPart(value)).map(([n, v]) => `${n}=${v}`));
  const part = mix(rate / 4, param, fc.oneof(fc.constantFrom(...pool).chain(uriPart), fc.constantFrom('', '=', '=1', '&', 'a=1=2', ...BROKEN_ESCAPES.map((e) => `size=${e}`))));
  const needed = fc.tuple(...required.map((name) => mix(rate / 3, paramValue(name, rate, t).chain(uriPart).map((value) => [`${name}=${value}`]), fc.constant<string[]>([]))));
  return fc.tuple(needed, fc.array(part, { maxLength: rate === 0 ? 2 : 4 }), fc.double({ min: 0, max: 1, noNaN: true })).map(([given, optional, roll]) => {
    const parts = [...given.flat(), ...optional];
    if (parts.length === 0) return roll < rate / 4 ? '?' : '';
    const all = roll < rate / 3 ? [...parts, parts[0].replace(/=.*$/, '=2')] : parts;
    return `?${all.join('&')}`;
  });
}

/** A path segment: a valid name, or (at the rate) an invalid one or a broken escape; `.` and `..` only where they reach the server. */
function segment(valid: fc.Arbitrary<string>, hostile: fc.Arbitrary<string>, rate: number, t: HostileTargets): fc.Arbitrary<string> {
  const sendable = (name: string) => t.dotSegments || !DOT_NAMES.has(name);
  const broken = fc.oneof(
    { arbitrary: hostile.filter(sendable).chain(uriPart), weight: 6 },
    { arbitrary: fc.constantFrom(...BROKEN_ESCAPES).map((escape) => `s${escape}`), weight: 1 },
    ...(t.dotSegments ? [{ arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2E.', '.%2e', '%2e', '..%2F..%2Ffixture', '..%5C..%5Cfixture'), weight: 1 }] : []),
  );
  return mix(rate, valid.chain(uriPart), broken);
}

interface Route {
  name: string;
  methods: readonly string[];
  paths: fc.Arbitrary<string>;
  params: readonly string[];
  body?: fc.Arbitrary<unknown>;
  ndjson?: boolean;
  /** The path may name the fixture: no other method may write. */
  reads?: boolean;
  /** Parameters a valid request always has. */
  required?: readonly string[];
  /** A valid request always has a body. */
  bodyRequired?: boolean;
  /** Appended to every query: a short `timeout` where ES would wait up to 30 s for a condition that may never hold here. */
  bounded?: boolean;
}

function routes(t: HostileTargets, rate: number): Route[] {
  const invalid = fc.constantFrom(...INVALID_NAMES);
  const scratch = fc.constantFrom(...t.scratch);
  // Names that read the fixture, or more, or nothing: only in requests that change no data.
  const readNames = fc.constantFrom(t.fixture, `${t.fixture}*`, '*', '_all', `${t.fixture},${t.scratch[0]}`, t.scratch[0], `*,-${t.scratch[0]}`);
  const badReadNames = fc.oneof(fc.constantFrom(`${t.fixture},missing`, 'missing', `-${t.fixture}`, `${t.fixture},`, `,${t.fixture}`, 'fix*,-*', MANY_STARS, `*,-${MANY_STARS}`), invalid);
  // Names writes may take: scratch indices (alone or listed) and invalid names, never a pattern or the fixture.
  const writeNames = scratch;
  const badWriteNames = fc.oneof(fc.constantFrom(`${t.scratch[0]},${t.scratch[1]}`, `${t.scratch[0]}*`, `${t.scratch[0]},missing`), invalid);
  const readIndex = segment(readNames, badReadNames, rate, t);
  const concreteIndex = segment(fc.constantFrom(t.fixture, t.scratch[0]), badReadNames, rate, t);
  const writeIndex = segment(writeNames, badWriteNames, rate, t);
  const ids = fc.oneof(fc.constantFrom(...t.fixtureIds), fc.constantFrom('1', '2', 'new', 'é😀'));
  const badIds = fc.oneof(fc.constantFrom('_all', 'x'.repeat(513), 'é'.repeat(257), '..', '.', ''), fc.constantFrom(...ODD_STRINGS));
  const id = segment(ids, badIds, rate, t);
  const b: Bodies = bodies({ readIndex: mix(rate, readNames, badReadNames), writeIndex: mix(rate, writeNames, badWriteNames), docId: mix(rate, ids, badIds), pitId: t.pitId, scrollId: t.scrollId, spare: t.spare }, rate);
  const path = (...parts: (string | fc.Arbitrary<string>)[]) => fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p))).map((segments) => `/${segments.join('/')}`);
  const either = (...paths: fc.Arbitrary<string>[]) => fc.oneof(...paths);
  const taskId = segment(fc.nat({ max: 20 }).map((n) => `${t.nodeId}:${n}`), fc.oneof(fc.constantFrom('x', ':1', 'a:b', 'n:-1', 'n:9223372036854775808', 'unset', ''), oddString), rate, t);
  const scrollPath = segment(fc.constant(t.scrollId), fc.constantFrom('AAAA', '_all', `${t.scrollId}x`), rate, t);
  const clearPath = segment(fc.constant(t.spare.scrollId), fc.constantFrom('AAAA', '_all', `${t.scrollId},AAAA`), rate, t);
  const node = segment(fc.constantFrom('_all', '_local'), fc.oneof(fc.constantFrom('x', '_master'), oddString), rate, t);
  // Alias names valid requests use live on scratch indices only; wildcards read them.
  const aliasName = segment(fc.constantFrom('al-a', 'al-b', 'al-*'), fc.oneof(fc.constantFrom('_x', 'A', '*', MANY_STARS), oddString), rate, t);

  return [
    { name: 'root', methods: ['GET', 'HEAD'], paths: fc.constant('/'), params: [] },
    { reads: true, name: 'cluster health', methods: ['GET'], paths: either(path('_cluster', 'health'), path('_cluster', 'health', readIndex)), params: ['level', 'local', 'master_timeout', 'timeout', 'wait_for_status', 'wait_for_nodes', 'wait_for_active_shards', 'wait_for_events', 'wait_for_no_relocating_shards', ...INDICES_OPTIONS], bounded: true },
    { name: 'bulk', methods: ['POST', 'PUT'], paths: either(path('_bulk'), path(writeIndex, '_bulk')), params: [...WRITE, ...(rate > 0 ? ['_source', 'list_executed_pipelines'] : [])], body: b.bulk, bodyRequired: true, ndjson: true },
    { reads: true, name: 'open point in time', methods: ['POST'], paths: rate === 0 ? path(readIndex, '_pit') : either(path(readIndex, '_pit'), path('_pit')), params: ['routing', 'preference', ...INDICES_OPTIONS], required: ['keep_alive'], body: b.openPit },
    { name: 'close point in time', methods: ['DELETE'], paths: path('_pit'), params: [], body: b.closePit, bodyRequired: true },
    { name: 'scroll', methods: ['GET', 'POST'], paths: either(path('_search', 'scroll'), path('_search', 'scroll', scrollPath)), params: ['scroll', 'scroll_id', 'rest_total_hits_as_int'], body: b.scroll },
    { name: 'clear scroll', methods: ['DELETE'], paths: either(path('_search', 'scroll'), path('_search', 'scroll', clearPath)), params: rate === 0 ? [] : ['scroll_id'], body: b.clearScroll },
    { reads: true, name: 'search', methods: ['GET', 'POST'], paths: either(path('_search'), path(readIndex, '_search')), params: [...SEARCH, ...INDICES_OPTIONS], body: b.search },
    { reads: true, name: 'count', methods: ['GET', 'POST'], paths: either(path('_count'), path(readIndex, '_count')), params: ['q', 'df', 'default_operator', 'lenient', 'min_score', 'routing', 'preference', 'source', 'source_content_type', ...INDICES_OPTIONS], body: b.count },
    { name: 'node stats', methods: ['GET'], paths: either(path('_nodes', 'stats'), path('_nodes', node, 'stats')), params: rate === 0 ? [] : ['level', 'metric'] },
    { reads: true, name: 'index stats', methods: ['GET'], paths: either(path('_stats'), path(readIndex, '_stats')), params: ['level', ...INDICES_OPTIONS] },
    { name: 'list tasks', methods: ['GET'], paths: path('_tasks'), params: ['actions', 'detailed', 'group_by', 'nodes', 'parent_task_id', 'wait_for_completion', 'timeout'], bounded: true },
    { name: 'get task', methods: ['GET'], paths: path('_tasks', taskId), params: ['wait_for_completion', 'timeout'], bounded: true },
    { name: 'cancel tasks', methods: ['POST'], paths: either(path('_tasks', '_cancel'), path('_tasks', taskId, '_cancel')), params: ['actions', 'parent_task_id', 'wait_for_completion', 'group_by', ...(rate > 0 ? ['nodes'] : [])] },
    { name: 'reindex', methods: ['POST'], paths: path('_reindex'), params: ['refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'scroll', 'slices', 'max_docs', 'conflicts', ...(rate > 0 ? ['require_alias'] : [])], body: b.reindex, bodyRequired: true },
    { name: 'index a document', methods: ['PUT', 'POST'], paths: either(path(writeIndex, '_doc', id), path(writeIndex, '_doc'), path(writeIndex, '_create', id)), params: [...WRITE, 'op_type', ...(rate > 0 ? CONCURRENCY : [])], body: b.doc, bodyRequired: true },
    { reads: true, name: 'get a document', methods: ['GET', 'HEAD'], paths: either(path(concreteIndex, '_doc', id), path(writeIndex, '_doc', id)), params: ['realtime', 'refresh', 'routing', 'preference', '_source', '_source_includes', '_source_excludes', 'stored_fields', ...(rate > 0 ? ['version', 'version_type', 'force_synthetic_source'] : [])] },
    { name: 'delete a document', methods: ['DELETE'], paths: path(writeIndex, '_doc', id), params: [...WRITE, ...(rate > 0 ? CONCURRENCY : [])] },
    { reads: true, name: 'refresh', methods: ['GET', 'POST'], paths: either(path('_refresh'), path(readIndex, '_refresh')), params: INDICES_OPTIONS },
    { reads: true, name: 'flush', methods: ['GET', 'POST'], paths: either(path('_flush'), path(readIndex, '_flush')), params: ['force', 'wait_if_ongoing', ...INDICES_OPTIONS] },
    { reads: true, name: 'clear caches', methods: ['POST'], paths: either(path('_cache', 'clear'), path(readIndex, '_cache', 'clear')), params: ['fielddata', 'query', 'request', 'index', ...INDICES_OPTIONS, ...(rate > 0 ? ['fields'] : [])] },
    { reads: true, name: 'get mappings', methods: ['GET'], paths: either(path(readIndex, '_mapping'), path('_mapping')), params: ['master_timeout', 'local', ...INDICES_OPTIONS] },
    { reads: true, name: 'get settings', methods: ['GET'], paths: path(readIndex, '_settings'), params: ['flat_settings', 'master_timeout', 'local', ...INDICES_OPTIONS, ...(rate > 0 ? ['include_defaults'] : [])] },
    { name: 'update settings', methods: ['PUT'], paths: path(writeIndex, '_settings'), params: ['flat_settings', 'master_timeout', 'timeout', ...INDICES_OPTIONS, ...(rate > 0 ? ['preserve_existing', 'reopen'] : [])], body: b.settings },
    { name: 'create an index', methods: ['PUT'], paths: path(writeIndex), params: ['wait_for_active_shards', 'master_timeout', 'timeout', ...(rate > 0 ? ['include_type_name'] : [])], body: b.createIndex },
    { reads: true, name: 'get an index', methods: ['GET', 'HEAD'], paths: path(readIndex), params: ['flat_settings', 'local', ...INDICES_OPTIONS, ...(rate > 0 ? ['include_defaults', 'features'] : [])] },
    { name: 'delete an index', methods: ['DELETE'], paths: path(writeIndex), params: ['master_timeout', 'timeout', ...INDICES_OPTIONS] },
    { name: 'authenticate', methods: ['GET'], paths: path('_security', '_authenticate'), params: [] },
    { reads: true, name: 'get aliases', methods: ['GET', 'HEAD'], paths: either(path('_alias'), path('_alias', aliasName), path(readIndex, '_alias'), path(readIndex, '_alias', aliasName)), params: ['local', 'master_timeout', ...INDICES_OPTIONS] },
    { name: 'put an alias', methods: ['PUT', 'POST'], paths: either(path(writeIndex, '_alias', aliasName), path(writeIndex, '_aliases', aliasName)), params: ['master_timeout', 'timeout'], body: b.alias },
    { name: 'delete an alias', methods: ['DELETE'], paths: path(writeIndex, '_alias', aliasName), params: ['master_timeout', 'timeout'] },
    { name: 'update aliases', methods: ['POST'], paths: path('_aliases'), params: ['master_timeout', 'timeout'], body: b.aliasActions, bodyRequired: true },
    {
      reads: true,
      name: 'cat',
      methods: ['GET'],
      paths: either(path('_cat'), path('_cat', fc.constantFrom('indices', 'health', 'shards', 'count', 'aliases')), path('_cat', fc.constantFrom('indices', 'shards', 'count'), readIndex), path('_cat', 'aliases', aliasName)),
      params: ['format', 'h', 'v', 's', 'help', 'bytes', 'time', 'ts', 'pri', 'health', 'local', 'master_timeout', 'q', 'df', ...INDICES_OPTIONS],
    },
    { reads: true, name: 'multi get', methods: ['GET', 'POST'], paths: either(path('_mget'), path(readIndex, '_mget')), params: ['realtime', 'refresh', 'routing', 'preference', '_source', '_source_includes', '_source_excludes', 'stored_fields'], body: b.mget, bodyRequired: true },
    { reads: true, name: 'multi search', methods: ['GET', 'POST'], paths: either(path('_msearch'), path(readIndex, '_msearch')), params: ['max_concurrent_searches', 'max_concurrent_shard_requests', 'rest_total_hits_as_int', 'typed_keys', 'search_type', 'pre_filter_shard_size', ...INDICES_OPTIONS], body: b.msearch, bodyRequired: true, ndjson: true },
    { reads: true, name: 'browser page', methods: ['GET', 'HEAD'], paths: fc.constantFrom('/_deeppage', '/_deeppage/', '/_deeppage/app.js', '/_deeppage/style.css', '/_deeppage/nope', '/_deeppage/a/b', '/_deeppage/%2e%2e/package.json', '/_deeppage/..%2fpackage.json'), params: [] },
    { name: 'node info', methods: ['GET'], paths: either(path('_nodes'), path('_nodes', node), path('_nodes', node, fc.constantFrom('http', 'os,process', '_all', 'x'))), params: rate === 0 ? [] : ['flat_settings', 'timeout'] },
    {
      reads: true,
      name: 'no such route',
      methods: ['GET', 'POST'],
      paths: fc.constantFrom('/_unknown', `/${t.fixture}/_unknown`, '/a/b/c/d/e', '//', '/_search/x/y', '/_SEARCH', `/${t.fixture}//_search`, '/_search/', `/${t.fixture}/_doc/`, '/_all/_mapping'),
      params: [],
    },
  ];
}

const CONTENT_TYPES = [
  'application/x-www-form-urlencoded', 'text/plain', 'text/plain; charset=ISO-8859-1', 'application/json; charset=UTF-8', 'application/json; charset=latin1',
  'APPLICATION/JSON', 'application/vnd.elasticsearch+json; compatible-with=7', 'application/vnd.elasticsearch+json; compatible-with=8',
  'application/vnd.elasticsearch+json; compatible-with=9', 'application/vnd.elasticsearch+json; compatible-with=10', 'application/vnd.elasticsearch+json',
  'application/vnd.elasticsearch+x-ndjson; compatible-with=9', 'application/xml', 'application/cbor', 'application/smile', 'application/yaml',
  '', 'garbage', 'application/json;;;', '*/*', 'application/json, text/plain', 'multipart/form-data; boundary=x', undefined,
];

/** Headers that are not credentials: none, the accepted one, other schemes, broken base64, wrong passwords. */
function authorization(accepted: string, rate: number): fc.Arbitrary<string | undefined> {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
  const refused = [
    undefined, '', 'Basic', 'Basic ', 'Basic !!!', 'Basic ====', 'Basic YQ', basic('nocolon'), basic(':'), basic('hostile:wrong'), basic('nobody:x'),
    'ApiKey', 'ApiKey ', 'ApiKey x', `ApiKey ${Buffer.from(':').toString('base64')}`, `ApiKey ${Buffer.from('id:key').toString('base64')}`, 'Bearer abc', 'Digest x',
    `Basic ${'A'.repeat(10_000)}`, `${accepted} trailing`, accepted.toLowerCase(), basic('\u00e9:\u00e9'),
  ];
  // Credentials refused often would only test the 401: a request in twenty, at most.
  return pick(rate / 14, [accepted], refused);
}

/** One request at one hostility rate. */
function requestAt(t: HostileTargets, rate: number): fc.Arbitrary<HostileRequest> {
  return fc.constantFrom(...routes(t, rate)).chain((r) =>
    fc
      .record({
        method: pick(rate / 5, r.methods, r.reads ? SAFE_METHODS : METHODS),
        path: r.paths,
        query: queryString(r.params, r.required ?? [], rate, t),
        value: !r.body ? fc.constant(null) : r.bodyRequired && rate === 0 ? r.body : fc.option(r.body, { freq: 6 }),
        encoding: encoding(rate),
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        contentType: pick(rate / 4, [r.ndjson ? 'application/x-ndjson' : 'application/json'], CONTENT_TYPES),
        auth: t.authorization ? authorization(t.authorization, rate) : fc.constant(undefined),
        slow: fc.boolean(),
      })
      .map(({ method, path, query, value, encoding: how, at, contentType, auth, slow }): HostileRequest => {
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        let body: Uint8Array | undefined;
        if (value !== null) {
          body = r.ndjson ? encodeNdjson(value as unknown[], how, at, t.maxBodyBytes) : encodeBody(toJson(value), how, at, t.maxBodyBytes);
          if (contentType !== undefined) headers['content-type'] = contentType;
        }
        const bounded = r.bounded ? `${query === '' ? '?' : '&'}timeout=10ms` : '';
        return { route: r.name, method, target: `${path}${query}${bounded}`, headers, body, slow: slow && body !== undefined };
      }),
  );
}

/** One hostile request over any route, at any hostility rate. */
export function hostileRequest(t: HostileTargets): fc.Arbitrary<HostileRequest> {
  return fc.oneof(...RATES.map((rate) => requestAt(t, rate)));
}
