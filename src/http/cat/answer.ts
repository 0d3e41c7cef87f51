/**
 * A `_cat` table as the answer the request asks for (ES's `RestTable.buildResponse`): JSON, an
 * array with one object per row whose values are all strings (null for no value), or the text
 * table. `format` decides (`json`, `yaml`, `smile` or `cbor`; any other value means text), else an
 * `Accept` header naming one of those types; an `Accept` listing several types counts as none, as
 * ES takes a comma for a media range. deeppage writes no YAML, Smile or CBOR and says so rather than
 * answer in another format.
 */
import type { Context } from 'hono';
import { booleanParam } from '../../engine/booleans.ts';
import { notSupported } from '../../engine/request/request-values.ts';
import { queryOf } from '../request-uri.ts';
import { PRODUCT_HEADER, send } from '../respond.ts';
import { rowOrder } from './row-order.ts';
import { shownColumns } from './shown-columns.ts';
import { cellText, type CatTable } from './table.ts';
import { textTable } from './text-table.ts';

type XContent = 'json' | 'yaml' | 'smile' | 'cbor';

/** `Accept` types ES answers in XContent (`XContentType`'s header values), by essence. */
const ACCEPTED: ReadonlyMap<string, XContent> = new Map([
  ['application/json', 'json'], ['application/x-ndjson', 'json'], ['application/*', 'json'],
  ['application/vnd.elasticsearch+json', 'json'], ['application/vnd.elasticsearch+x-ndjson', 'json'],
  ['application/yaml', 'yaml'], ['application/vnd.elasticsearch+yaml', 'yaml'],
  ['application/smile', 'smile'], ['application/vnd.elasticsearch+smile', 'smile'],
  ['application/cbor', 'cbor'], ['application/vnd.elasticsearch+cbor', 'cbor'],
]);

const FORMATS: ReadonlySet<string> = new Set<XContent>(['json', 'yaml', 'smile', 'cbor']);

export function sendTable<R>(c: Context, table: CatTable<R>): Response {
  const query = queryOf(c);
  if (answersJson(c)) {
    // ES orders the rows before it picks the columns here, and after for text: which of a bad `s` and a bad `ts` is reported first differs, as there.
    const order = rowOrder(table, query.s);
    const shown = shownColumns(table.columns, query);
    const at = shown.map(({ column }) => table.columns.indexOf(column));
    return send(c, 200, order.map((row) => Object.fromEntries(shown.map(({ display }, i) => [display, cellText(table.rows[row][at[i]], query.bytes)]))));
  }
  const verbose = booleanParam(query.v, false);
  const shown = shownColumns(table.columns, query);
  const order = rowOrder(table, query.s);
  const columns = shown.map((column) => {
    const at = table.columns.indexOf(column.column);
    return { shown: column, cells: order.map((row) => cellText(table.rows[row][at], query.bytes)) };
  });
  return sendText(textTable(columns, order.length, verbose));
}

/** Plain text as ES sends it (`RestResponse.TEXT_CONTENT_TYPE`), with the product header the official client checks on every 2xx. */
export function sendText(text: string): Response {
  return new Response(text, { status: 200, headers: { 'content-type': 'text/plain; charset=UTF-8', ...PRODUCT_HEADER } });
}

/** True for JSON, false for text; the formats deeppage does not write are refused. */
function answersJson(c: Context): boolean {
  const format = queryOf(c).format;
  const wanted = format !== undefined ? formatNamed(format) : acceptedFormat(c.req.header('accept'));
  if (wanted !== undefined && wanted !== 'json') throw notSupported(`[${wanted}] output`);
  return wanted === 'json';
}

function formatNamed(format: string): XContent | undefined {
  const name = format.toLowerCase();
  return FORMATS.has(name) ? (name as XContent) : undefined;
}

function acceptedFormat(accept: string | undefined): XContent | undefined {
  if (accept === undefined || accept.includes(',')) return undefined;
  return ACCEPTED.get(accept.split(';')[0].trim().toLowerCase());
}
