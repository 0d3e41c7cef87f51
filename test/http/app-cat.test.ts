/**
 * The `_cat` APIs through the app, held to Elasticsearch's layout byte for byte: text tables
 * (widths, alignment, padding), `h`, `s`, `v`, `help`, `format`, `ts`, `pri`, `bytes`, and the
 * errors ES gives for what it refuses.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardFor } from '../../src/engine/routing.ts';
import { ByteSize, type Column } from '../../src/http/cat/columns.ts';
import { javaOneDecimal } from '../../src/http/cat/health-columns.ts';
import { rowOrder } from '../../src/http/cat/row-order.ts';
import { cellText, tableOf } from '../../src/http/cat/table.ts';
import { expectError, testApp, type Reply, type TestApp } from './app-helpers.ts';

let t: TestApp;
beforeEach(() => {
  t = testApp();
});
afterEach(() => t.close());

const LONG = 'a-much-longer-index-name';

/** A GET as a terminal sends it: the body kept as text, parsed only when it is JSON. */
async function get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await t.app.request(path, { headers });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json');
  return { status: res.status, headers: res.headers, text, body: json ? JSON.parse(text) : undefined };
}

const lines = (...rows: string[]) => rows.map((row) => `${row}\n`).join('');

/**
 * `books`: 1 shard, no replica, 2 documents and 1 deleted. The long name: 2 shards with a replica
 * each (yellow), 12 documents. `logs`: empty, green.
 */
async function threeIndices(): Promise<void> {
  await t.createIndex('books', { number_of_shards: 1, number_of_replicas: 0 });
  await t.createIndex(LONG, { number_of_shards: 2 });
  await t.createIndex('logs', { number_of_replicas: 0 });
  const docs = (n: number) => Array.from({ length: n }, (_, i) => [{ index: { _id: String(i) } }, { t: `w${i}` }]).flat();
  expect((await t.bulk('/books/_bulk', docs(3), '?refresh=true')).body.errors).toBe(false);
  expect((await t.json('DELETE', '/books/_doc/2?refresh=true')).status).toBe(200);
  expect((await t.bulk(`/${LONG}/_bulk`, docs(12), '?refresh=true')).body.errors).toBe(false);
}

const index = (name: string) => t.engine.resolve(name)[0];

describe('GET /_cat/indices', () => {
  beforeEach(threeIndices);

  it('lays out the text table as ES does: widths, right-aligned numbers and their headers, no padding after the last left-aligned column', async () => {
    const res = await get('/_cat/indices?v&h=health,index,rep,docs.count,docs.deleted&s=index');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(res.text).toBe(lines(
      'health index                    rep docs.count docs.deleted',
      'yellow a-much-longer-index-name   1         12            0',
      'green  books                      0          2            1',
      'green  logs                       0          0            0',
    ));
    expect((await get('/_cat/indices?h=docs.count,index&s=index')).text).toBe(lines('12 a-much-longer-index-name', ' 2 books', ' 0 logs'));
  });

  it('shows the default columns, sizes empty (deeppage measures none) and still padded and separated', async () => {
    const { uuid } = index('books');
    expect((await get('/_cat/indices/books')).text).toBe(`green open books ${uuid} 1 0 2 1   \n`);
    const verbose = await get('/_cat/indices/books,logs?v&s=index');
    const logs = index('logs').uuid;
    expect(verbose.text).toBe(lines(
      `health status index uuid                   pri rep docs.count docs.deleted store.size pri.store.size dataset.size`,
      `green  open   books ${uuid}   1   0          2            1                                       `,
      `green  open   logs  ${logs}   1   0          0            0                                       `,
    ));
  });

  it('answers JSON with every value a string and null for a figure it does not have', async () => {
    const res = await get('/_cat/indices?format=json&s=index');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body[1]).toEqual({
      health: 'green', status: 'open', index: 'books', uuid: index('books').uuid, pri: '1', rep: '0',
      'docs.count': '2', 'docs.deleted': '1', 'store.size': null, 'pri.store.size': null, 'dataset.size': null,
    });
    expect(res.body.map((row: { index: string; health: string }) => [row.index, row.health])).toEqual([[LONG, 'yellow'], ['books', 'green'], ['logs', 'green']]);
  });

  it('h takes names, aliases (shown as written) and wildcards over both, drops unknown names, and adds pri. twins under pri', async () => {
    const books = index('books');
    const res = await get('/_cat/indices/books?format=json&h=i,dc,docs.*,nope,creation.*');
    expect(res.body).toEqual([{
      i: 'books', dc: '2', 'docs.count': '2', 'docs.deleted': '1',
      'creation.date': String(books.createdAt), 'creation.date.string': new Date(books.createdAt).toISOString(),
    }]);
    // `shards.*` matches aliases of pri and rep: shown under their names.
    expect(Object.keys((await get('/_cat/indices/books?format=json&h=shards.*')).body[0])).toEqual(['pri', 'rep']);
    expect((await get('/_cat/indices/books?format=json&h=ss,sc&pri')).body).toEqual([{ ss: null, 'pri.ss': null, sc: '1', 'pri.sc': '1' }]);
    expect((await get('/_cat/indices/books?format=json&h=ss,sc')).body).toEqual([{ ss: null, sc: '1' }]);
    expect(Object.keys((await get('/_cat/indices/books?format=json&h=*')).body[0])).toHaveLength(17);
    expect((await get('/_cat/indices/books?h=nope')).text).toBe('\n');
  });

  it('s sorts by names or aliases, numbers numerically, :desc reversing, later keys breaking ties', async () => {
    expect((await get('/_cat/indices?h=index,rep&s=rep:desc,index:desc')).text).toBe(lines(`${LONG} 1`, 'logs                     0', 'books                    0'));
    expect((await get('/_cat/indices?h=i&s=dc:desc,i')).text).toBe(lines(LONG, 'books', 'logs'));
    expect((await get('/_cat/indices?h=i&s=health,index:asc')).text).toBe(lines('books', 'logs', LONG));
  });

  it('filters on health, in any case', async () => {
    expect((await get('/_cat/indices?h=index&health=yellow')).text).toBe(lines(LONG));
    expect((await get('/_cat/indices?h=index&health=GREEN&s=index')).text).toBe(lines('books', 'logs'));
    expect((await get('/_cat/indices?h=index&health=red')).text).toBe('');
    expectError(await get('/_cat/indices?health=purple'), 400, 'illegal_argument_exception', 'unknown cluster health status [purple]');
  });

  it('resolves comma lists and wildcards; an empty result is an empty body, or the header alone with v', async () => {
    expect((await get('/_cat/indices/l*,books?h=index&s=index')).text).toBe(lines('books', 'logs'));
    expect((await get(`/_cat/indices/*,-${LONG}?h=index&s=index`)).text).toBe(lines('books', 'logs'));
    const none = await get('/_cat/indices/nothing*');
    expect(none.status).toBe(200);
    expect(none.text).toBe('');
    expect((await get('/_cat/indices/nothing*?format=json')).text).toBe('[]');
    expect((await get('/_cat/indices/nothing*?v&h=index,pri')).text).toBe('index pri\n');
    expect((await get('/_cat/indices/nope,books?h=index&ignore_unavailable=true')).text).toBe(lines('books'));
  });

  it('answers a missing index with 404 index_not_found_exception', async () => {
    expectError(await get('/_cat/indices/nope'), 404, 'index_not_found_exception', 'no such index [nope]');
    expectError(await get('/_cat/indices/nope*?allow_no_indices=false'), 404, 'index_not_found_exception', 'no such index [nope*]');
  });

  it('counts documents as _stats does: those a refresh has shown, and deleted ones still in segments', async () => {
    const stats = (await t.json('GET', '/_stats')).body.indices;
    for (const row of (await get('/_cat/indices?format=json&h=index,dc,dd')).body) {
      expect([Number(row.dc), Number(row.dd)]).toEqual([stats[row.index].primaries.docs.count, stats[row.index].primaries.docs.deleted]);
    }
    await t.bulk('/logs/_bulk', [{ index: { _id: 'a' } }, { m: 1 }]);
    expect((await get('/_cat/indices/logs?h=dc')).text).toBe('0\n');
    await t.json('POST', '/logs/_refresh');
    expect((await get('/_cat/indices/logs?h=dc,dd')).text).toBe('1 0\n');
  });
});

describe('every _cat endpoint', () => {
  beforeEach(threeIndices);

  it('refuses unknown parameters in ES words, and under help the endpoint\'s own (the path\'s index among them)', async () => {
    expectError(await get('/_cat/indices?foo=1'), 400, 'illegal_argument_exception', 'request [/_cat/indices] contains unrecognized parameter: [foo]');
    expectError(await get('/_cat/health?expand_wildcards=all'), 400, 'illegal_argument_exception', 'request [/_cat/health] contains unrecognized parameter: [expand_wildcards]');
    expectError(await get('/_cat/shards?q=x'), 400, 'illegal_argument_exception', 'request [/_cat/shards] contains unrecognized parameter: [q]');
    expectError(await get('/_cat?v'), 400, 'illegal_argument_exception', 'request [/_cat] contains unrecognized parameter: [v]');
    expectError(await get('/_cat/indices/books?help&zzz=1'), 400, 'illegal_argument_exception', 'request [/_cat/indices/books] contains unrecognized parameters: [index], [zzz]');
    expectError(await get('/_cat/indices?help&expand_wildcards=all'), 400, 'illegal_argument_exception', 'request [/_cat/indices] contains unrecognized parameter: [expand_wildcards]');
    expect((await get('/_cat/indices?help&health=green')).status).toBe(200);
    // Known names with bad values.
    expectError(await get('/_cat/indices?v=yes'), 400, 'illegal_argument_exception', 'Failed to parse value [yes] as only [true] or [false] are allowed.');
    expectError(await get('/_cat/count?ts=no'), 400, 'illegal_argument_exception', 'Failed to parse value [no] as only [true] or [false] are allowed.');
    expectError(await get('/_cat/indices?expand_wildcards=some'), 400, 'illegal_argument_exception', 'No valid expand wildcard value [some]');
    expectError(await get('/_cat/shards?master_timeout=soon'), 400, 'parse_exception');
  });

  it('answers an unknown sort key with a 400 in the words of ES (never a 500 for a bad parameter)', async () => {
    for (const path of ['/_cat/indices?s=nope', '/_cat/indices?s=index,nope:desc&format=json', '/_cat/health?s=nope', '/_cat/shards?s=nope', '/_cat/count?s=nope']) {
      expectError(await get(path), 400, 'illegal_argument_exception', `Unable to sort by unknown sort key \`nope\``);
    }
  });

  it('answers JSON for format=json or an Accept of JSON alone, text otherwise, and refuses the formats it does not write', async () => {
    const json = [{ index: 'books', pri: '1' }];
    expect((await get('/_cat/indices/books?h=index,pri&format=JSON')).body).toEqual(json);
    expect((await get('/_cat/indices/books?h=index,pri', { accept: 'application/json' })).body).toEqual(json);
    expect((await get('/_cat/indices/books?h=index,pri', { accept: 'application/vnd.elasticsearch+json; compatible-with=8' })).body).toEqual(json);
    // What the official client sends: a list, which ES does not read as one type.
    expect((await get('/_cat/indices/books?h=index,pri', { accept: 'application/vnd.elasticsearch+json; compatible-with=8,text/plain' })).text).toBe('books 1\n');
    expect((await get('/_cat/indices/books?h=index,pri&format=txt', { accept: 'application/json' })).text).toBe('books 1\n');
    for (const format of ['yaml', 'smile', 'cbor']) {
      expectError(await get(`/_cat/indices?format=${format}`), 400, 'illegal_argument_exception', `[${format}] output is not supported by deeppage yet`);
    }
    expectError(await get('/_cat/health', { accept: 'application/yaml' }), 400, 'illegal_argument_exception', '[yaml] output is not supported by deeppage yet');
    // JSON goes through the response writer: filter_path and pretty apply.
    expect((await get('/_cat/indices/books?format=json&filter_path=index')).body).toEqual([{ index: 'books' }]);
  });

  it('help lists every column, name | aliases | description, each part padded, whatever the format', async () => {
    const help = lines(
      'epoch     | t,time                  | seconds since 1970-01-01 00:00:00',
      'timestamp | ts,hms,hhmmss           | time in HH:MM:SS                 ',
      'count     | dc,docs.count,docsCount | the document count               ',
    );
    expect((await get('/_cat/count?help')).text).toBe(help);
    expect((await get('/_cat/count?help=true&format=json')).text).toBe(help);
    expect((await get('/_cat/indices?help')).text.split('\n')[0]).toMatch(/^health +\| h +\| current health status +$/);
    expect((await get('/_cat/count?help=false&h=count')).text).toBe('14\n');
  });

  it('GET /_cat lists the cat endpoints served here, the cat first', async () => {
    const res = await get('/_cat');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(res.text).toBe(lines('=^.^=', '/_cat/shards', '/_cat/shards/{index}', '/_cat/indices', '/_cat/indices/{index}', '/_cat/count', '/_cat/count/{index}', '/_cat/health', '/_cat/aliases', '/_cat/aliases/{alias}'));
  });
});

describe('GET /_cat/count', () => {
  beforeEach(threeIndices);

  it('counts exactly, after the timestamp columns ts=false drops', async () => {
    const res = await get('/_cat/count?v');
    const [header, row] = res.text.split('\n');
    expect(header).toBe('epoch      timestamp count');
    expect(row).toMatch(/^\d{10} \d\d:\d\d:\d\d  14$/);
    const epoch = Number(row.slice(0, 10));
    expect(Math.abs(epoch - Date.now() / 1000)).toBeLessThan(60);
    expect(row.slice(11, 19)).toBe(new Date(epoch * 1000).toISOString().slice(11, 19));
    expect((await get('/_cat/count?v&ts=false')).text).toBe('count\n14\n');
    expect((await get('/_cat/count/books,logs?format=json&ts=false')).body).toEqual([{ count: '2' }]);
    expect((await get('/_cat/count/b*?h=dc')).text).toBe('2\n');
  });

  it('takes the query from q or from a body (here the source parameter), as _count does', async () => {
    expect((await get(`/_cat/count/${LONG}?q=t:w3&h=count`)).text).toBe('1\n');
    expect((await get(`/_cat/count/${LONG}?q=w3 OR w4&df=t&h=count`)).text).toBe('2\n');
    const source = encodeURIComponent(JSON.stringify({ query: { match: { t: 'w5' } } }));
    expect((await get(`/_cat/count?source=${source}&source_content_type=application/json&h=count`)).text).toBe('1\n');
    expectError(await get('/_cat/count?df=t'), 400, 'illegal_argument_exception', "request [/_cat/count] contains parameters [df] but missing query string parameter 'q'.");
    expectError(await get(`/_cat/count?source=${encodeURIComponent('{"size":1}')}&source_content_type=application/json`), 400, 'parsing_exception', 'request does not support [size]');
    // With a body, q is not read, so it is an unknown parameter.
    expectError(await get(`/_cat/count?source=${source}&source_content_type=application/json&q=x`), 400, 'illegal_argument_exception', 'request [/_cat/count] contains unrecognized parameter: [q]');
    expectError(await get('/_cat/count/nope'), 404, 'index_not_found_exception', 'no such index [nope]');
  });
});

describe('GET /_cat/health', () => {
  beforeEach(threeIndices);

  it('reports the cluster as _cluster/health does: replicas on one node are unassigned, which is yellow', async () => {
    const [row] = (await get('/_cat/health?format=json')).body;
    expect(row).toEqual({
      epoch: expect.stringMatching(/^\d+$/), timestamp: expect.stringMatching(/^\d\d:\d\d:\d\d$/), cluster: 'deeppage', status: 'yellow',
      'node.total': '1', 'node.data': '1', shards: '4', pri: '4', relo: '0', init: '0', unassign: '2', 'unassign.pri': '0',
      pending_tasks: '0', max_task_wait_time: '-', active_shards_percent: '66.7%',
    });
    const health = (await t.json('GET', '/_cluster/health')).body;
    expect([health.status, health.active_shards, health.unassigned_shards]).toEqual(['yellow', 4, 2]);
    expect((await t.json('PUT', `/${LONG}/_settings`, { index: { number_of_replicas: 0 } })).status).toBe(200);
    expect((await get('/_cat/health?h=st,unassign,asp&v')).text).toBe(lines('st    unassign    asp', 'green        0 100.0%'));
  });

  it('lays out one row; ts=false drops the timestamps; an alias two columns share names the later one', async () => {
    const text = (await get('/_cat/health?ts=false')).text;
    expect(text).toBe('deeppage yellow 1 1 4 4 0 0 2 0 0 - 66.7%\n');
    // `t` is an alias of epoch and of shards: ES's lookup keeps the last.
    expect((await get('/_cat/health?format=json&h=t')).body).toEqual([{ t: '4' }]);
    expect((await get('/_cat/health?format=json&h=epoch,shards&ts=false')).body).toEqual([{ shards: '4' }]);
  });
});

describe('GET /_cat/shards', () => {
  beforeEach(threeIndices);

  it('lists each primary, started, then its replicas, unassigned with empty cells', async () => {
    const docs = [0, 1].map((shard) => Array.from({ length: 12 }, (_, i) => String(i)).filter((id) => shardFor(id, 2) === shard).length);
    const res = await get(`/_cat/shards/${LONG}?v&h=index,shard,prirep,state,docs,ip`);
    const pad = (n: number) => String(n).padStart(4);
    expect(res.text).toBe(lines(
      'index                    shard prirep state      docs ip',
      `${LONG} 0     p      STARTED    ${pad(docs[0])} 127.0.0.1`,
      `${LONG} 0     r      UNASSIGNED      `,
      `${LONG} 1     p      STARTED    ${pad(docs[1])} 127.0.0.1`,
      `${LONG} 1     r      UNASSIGNED      `,
    ));
  });

  it('answers the default columns in JSON, node and sizes null where ES has none', async () => {
    const rows = (await get('/_cat/shards/books,l*?format=json&s=index:desc')).body;
    expect(rows).toEqual([
      { index: 'logs', shard: '0', prirep: 'p', state: 'STARTED', docs: '0', store: null, dataset: null, ip: '127.0.0.1', node: expect.any(String) },
      { index: 'books', shard: '0', prirep: 'p', state: 'STARTED', docs: '2', store: null, dataset: null, ip: '127.0.0.1', node: expect.any(String) },
    ]);
    expect((await get(`/_cat/shards/${LONG}?format=json&h=prirep,node,id,sc&s=prirep:desc,shard`)).body[0]).toEqual({ prirep: 'r', node: null, id: null, sc: null });
    expectError(await get('/_cat/shards/nope'), 404, 'index_not_found_exception', 'no such index [nope]');
  });
});

describe('no indices at all', () => {
  it('lists nothing and is green', async () => {
    expect((await get('/_cat/indices')).text).toBe('');
    expect((await get('/_cat/shards?format=json')).body).toEqual([]);
    expect((await get('/_cat/count?h=count')).text).toBe('0\n');
    expect((await get('/_cat/health?format=json&h=status,shards,asp')).body).toEqual([{ status: 'green', shards: '0', asp: '100.0%' }]);
  });
});

describe('hidden indices', () => {
  it('are left out of _cat/indices unless expand_wildcards asks for them; _cat/shards and _cat/health count them', async () => {
    await t.createIndex('.secret', { number_of_replicas: 0 });
    await t.createIndex('open', { number_of_replicas: 0 });
    expect((await get('/_cat/indices?h=index')).text).toBe(lines('open'));
    expect((await get('/_cat/indices?h=index&expand_wildcards=all&s=index')).text).toBe(lines('.secret', 'open'));
    expect((await get('/_cat/indices/.secret?h=index')).text).toBe(lines('.secret'));
    expect((await get('/_cat/shards?h=index&s=index')).text).toBe(lines('.secret', 'open'));
    expect((await get('/_cat/health?h=shards')).text).toBe('2\n');
  });
});

describe('the table machinery', () => {
  it('pads with a Java byte, as ES does: a cell 128 or more characters narrower than its column is not padded', async () => {
    const name = 'x'.repeat(150);
    await t.createIndex(name, { number_of_replicas: 0 });
    await t.createIndex('books', { number_of_replicas: 0 });
    // "index" and "books" are 145 short of the name's 150: no padding for either.
    expect((await get('/_cat/indices?v&h=index,pri&s=index')).text).toBe(lines('index pri', 'books   1', `${name}   1`));
    expect((await get('/_cat/indices?h=index,pri&s=index&health=green')).text).toBe(lines('books 1', `${name} 1`));
  });

  it("writes the active shards percent as Java's %1.1f: shortest digits, rounded half up", () => {
    expect([100, 0, 60, 200 / 3, 1.45, 99.95, 12.25, 1e-7].map(javaOneDecimal)).toEqual(['100.0', '0.0', '60.0', '66.7', '1.5', '100.0', '12.3', '0.0']);
  });

  it('renders byte sizes as ByteSizeValue, or whole units cut under bytes=, and sorts them by bytes', () => {
    const size = new ByteSize(230_708);
    expect(cellText(size, undefined)).toBe('225.3kb');
    expect(['b', 'k', 'kb', 'mb', 'gb', 'foo'].map((unit) => cellText(size, unit))).toEqual(['230708', '225', '225', '0', '0', '225.3kb']);
    expect(cellText(new ByteSize(230_707), undefined)).toBe('225.2kb');
    expect(cellText(new ByteSize(1023), undefined)).toBe('1023b');
    expect(cellText(new ByteSize(5 * 1024 ** 3 + 1), 'g')).toBe('5');
    const columns: Column<number | null>[] = [{ name: 'size', aliases: ['sz'], right: true, desc: 'a size', value: (n) => (n === null ? null : new ByteSize(n)) }];
    const table = tableOf(columns, [2048, null, 900, 1024 ** 2]);
    expect(rowOrder(table, 'sz')).toEqual([1, 2, 0, 3]);
    expect(rowOrder(table, 'size:desc')).toEqual([3, 0, 2, 1]);
    expect(rowOrder(table, undefined)).toEqual([0, 1, 2, 3]);
  });
});

describe('GET /_cat/aliases', () => {
  it('lists a row per alias and index, with filter, routings and the write flag as ES shows them', async () => {
    await t.createIndex('cat-a1');
    await t.createIndex('cat-a2');
    await t.json('POST', '/_aliases', {
      actions: [
        { add: { indices: ['cat-a1', 'cat-a2'], alias: 'both' } },
        { add: { index: 'cat-a1', alias: 'filtered', filter: { term: { t: 'w1' } }, routing: '3', is_write_index: true } },
      ],
    });
    const table = await get('/_cat/aliases?v&s=alias,index');
    expect(table.text).toBe(lines(
      'alias    index  filter routing.index routing.search is_write_index',
      'both     cat-a1 -      -             -              -',
      'both     cat-a2 -      -             -              -',
      'filtered cat-a1 *      3             3              true',
    ));
    const json = await get('/_cat/aliases/filt*?format=json&h=a,i,w');
    expect(json.body).toEqual([{ a: 'filtered', i: 'cat-a1', w: 'true' }]);
    expect((await get('/_cat/aliases/none')).text).toBe('');
    expect((await get('/_cat/aliases?expand_wildcards=open&h=alias&s=alias')).text).toBe(lines('both', 'both', 'filtered'));
    expectError(await get('/_cat/aliases?expand_wildcards=x'), 400, 'illegal_argument_exception');
  });
});
