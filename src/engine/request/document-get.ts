/**
 * Reading one document, as `GET /{index}/_doc/{id}` and each `_mget` item read it: the URI
 * parameters both take (ES's GetRequest options), and the answer for one document: found, with its
 * `_source` whole as stored or filtered, or not found.
 *
 * @example
 * const answer = getDocument(engine, { index: 'books', id: '1', fields: getFields(query) }, getOptions(query));
 * // { found: true, body: { _index: 'books', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, found: true, _source: RawJson } }
 */
import type { Engine } from '../engine.ts';
import type { SourceFilter } from '../search/request.ts';
import { sourceOf } from '../search/source-filter.ts';
import { booleanParam } from '../booleans.ts';
import { commaList, notSupported } from './request-values.ts';
import { SOURCE_PARAMS, sourceFromParams } from './search-source.ts';

type Params = Record<string, string | undefined>;

/**
 * The URI parameters of a read. `preference` picks among copies of the shard, and one node holds one
 * copy: it changes nothing here.
 */
export const GET_PARAMS = ['realtime', 'refresh', 'routing', 'preference', ...SOURCE_PARAMS, 'stored_fields', 'force_synthetic_source'];

/** How a read sees its shard: in real time (the default) or as its last refresh left it; `refresh` refreshes it first. */
export interface GetOptions {
  realtime: boolean;
  refresh: boolean;
}

/** What a found document carries: `_source` as asked for (undefined: whole), and the stored fields named. */
export interface GetFields {
  source?: SourceFilter;
  storedFields?: string[];
}

/** One document to read. */
export interface GetTarget {
  index: string;
  id: string;
  routing?: string;
  fields: GetFields;
}

export type GetAnswer =
  | { found: true; body: Record<string, unknown> }
  | { found: false; body: { _index: string; _id: string; found: false } };

/** `realtime`, `refresh`, and `force_synthetic_source`, of which only `false` is supported (the source is stored). */
export function getOptions(query: Params): GetOptions {
  if (booleanParam(query.force_synthetic_source, false)) throw notSupported('[force_synthetic_source=true]');
  return { realtime: booleanParam(query.realtime, true), refresh: booleanParam(query.refresh, false) };
}

export function getFields(query: Params): GetFields {
  return { source: sourceFromParams(query), storedFields: query.stored_fields === undefined ? undefined : commaList(query.stored_fields) };
}

/** `version` and `version_type` ask a read to check the document's version: refused, as on writes. */
export function refuseVersionCheck(given: Record<string, unknown>): void {
  for (const name of ['version', 'version_type']) if (given[name] !== undefined) throw notSupported(`[${name}] (optimistic concurrency control)`);
}

export function getDocument(engine: Engine, { index, id, routing, fields }: GetTarget, options: GetOptions): GetAnswer {
  const found = engine.get(index, id, routing, options);
  if (!found) return { found: false, body: { _index: engine.resolveOne(index).name, _id: id, found: false } };
  // Stored fields asked for, `_source` comes only if asked for too; none is stored apart from it.
  const { storedFields } = fields;
  const source = fields.source ?? (storedFields && !storedFields.includes('_source') ? false : WHOLE);
  const { doc } = found;
  const head = {
    _index: found.index.name,
    _id: id,
    _version: doc.version,
    _seq_no: found.seq,
    _primary_term: 1,
    ...(doc.routing !== undefined && { _routing: doc.routing }),
    found: true,
  };
  // The whole `_source` goes back as it was sent (sourceOf parses it only to filter it).
  return { found: true, body: source === false ? head : { ...head, _source: sourceOf(doc.source, source) } };
}

const WHOLE = { includes: [], excludes: [] };
