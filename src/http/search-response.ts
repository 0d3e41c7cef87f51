/**
 * A search response as JSON text, its hits written one by one so that each stored `_source` is
 * spliced in as the text it was stored as: never parsed, never serialized again. Everything else
 * is written by `JSON.stringify`, so the text is what serializing the response would give.
 */
import { RawJson } from '../engine/raw-json.ts';
import type { Hit, SearchResponse } from '../engine/search/search.ts';

export function searchResponseJson(body: SearchResponse): string {
  const { hits } = body;
  // The hits array comes last (`hits` is the response's last field, and `hits.hits` its own).
  const shell = JSON.stringify({ ...body, hits: { ...hits, hits: [] } });
  if (!shell.endsWith(EMPTY_HITS)) return JSON.stringify(body);
  const parts: string[] = new Array(hits.hits.length);
  for (let i = 0; i < hits.hits.length; i++) parts[i] = hitJson(hits.hits[i]);
  return `${shell.slice(0, -EMPTY_HITS.length)}"hits":[${parts.join(',')}]}}`;
}

const EMPTY_HITS = '"hits":[]}}';

function hitJson(hit: Hit): string {
  let text = '{';
  for (const key in hit) {
    const value = hit[key as keyof Hit];
    if (value === undefined) continue;
    // Hit keys are plain names (`_index`, `_source`, …): they need no escaping.
    text += `${text.length > 1 ? ',' : ''}"${key}":${value instanceof RawJson ? value.text : JSON.stringify(value)}`;
  }
  return `${text}}`;
}
