/**
 * A search response's body, its hits written one by one so that each stored `_source` goes in as
 * the text it was stored as: never parsed or serialized again. Everything else is written as
 * `JSON.stringify` writes it, so the body is what serializing the response would give.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';

export function searchResponseBody(body: SearchResponse): string {
  const { hits } = body;
  // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
  const shell = JSON.stringify({ ...body, hits: { ...hits, hits: [] } });
  if (!shell.endsWith(EMPTY_HITS)) return JSON.stringify(body);
  let text = `${shell.slice(0, -EMPTY_HITS.length)}"hits":[`;
  // The JSON of each index name, written once.
  const names = new Map<string, string>();
  for (let i = 0; i < hits.hits.length; i++) text += hitJson(hits.hits[i], i > 0, names);
  return `${text}]}}`;
}

const EMPTY_HITS = '"hits":[]}}';

/** The fields {@link writeHit} writes: a field added to {@link Hit} and not written here fails to compile. */
const WRITTEN = ['_index', '_id', '_version', '_seq_no', '_primary_term', '_score', '_routing', '_source', 'fields', 'sort'] as const;
const everyHitField: Exclude<keyof Hit, (typeof WRITTEN)[number]> extends never ? true : never = true;
void everyHitField;

/** A hit, its fields in ES's order (those of {@link Hit}). */
function hitJson(hit: Hit, comma: boolean, names: Map<string, string>): string {
  let index = names.get(hit._index);
  if (index === undefined) names.set(hit._index, (index = JSON.stringify(hit._index)));
  let text = `${comma ? ',' : ''}{"_index":${index}`;
  if (hit._id !== undefined) text += `,"_id":${scalar(hit._id)}`;
  if (hit._version !== undefined) text += `,"_version":${hit._version}`;
  if (hit._seq_no !== undefined) text += `,"_seq_no":${hit._seq_no},"_primary_term":${hit._primary_term}`;
  text += `,"_score":${scalar(hit._score)}`;
  if (hit._routing !== undefined) text += `,"_routing":${JSON.stringify(hit._routing)}`;
  if (hit._source instanceof RawJson) {
    text += `,"_source":${hit._source.text}`;
  } else if (hit._source !== undefined) {
    text += `,"_source":${JSON.stringify(hit._source)}`;
  }
  if (hit.fields !== undefined) text += `,"fields":${JSON.stringify(hit.fields)}`;
  if (hit.sort !== undefined) text += `,"sort":${sortValues(hit.sort)}`;
  return `${text}}`;
}

/**
 * A hit's id, score or sort value as `JSON.stringify` writes it, without calling it for the common
 * cases (a page of ten hits called it thirty times): finite numbers, and strings with nothing to escape.
 */
function scalar(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) return `"${value}"`;
  return JSON.stringify(value) ?? 'null';
}

function sortValues(values: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += i === 0 ? scalar(values[i]) : `,${scalar(values[i])}`;
  return `${text}]`;
}

// Quotes, backslashes, control characters and lone surrogates (which JSON.stringify writes as escapes).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
