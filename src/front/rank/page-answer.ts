/**
 * The client's answer to an accelerated search, made from the cluster's answer to the page request
 * by editing its text (never re-serializing it: `_source` and sort values stay the cluster's bytes):
 * the point in time's id goes (the client opened none), hits before the page are dropped, each hit's
 * `sort` loses the `_shard_doc` tie-breaker the point in time added, `hits.total` is the rank index's
 * count shown as the request's `track_total_hits` asks, and aggregations computed beside the page are
 * put in.
 */
import { elements, members, type Member } from '../json-text.ts';

export interface PageEdits {
  /** Hits of the cluster's answer before the page. */
  skip: number;
  /** Hits in the page, at most. */
  size: number;
  /** Whether each hit's `sort` ends with a tie-breaker the client did not ask for. */
  dropTieBreaker: boolean;
  /** The number of matches; with `trackTotalHits` and `restTotalHitsAsInt`, what `hits.total` shows. */
  total: number;
  trackTotalHits: boolean | number;
  restTotalHitsAsInt: boolean;
  /** The JSON text of `aggregations`, if the search asked for some. */
  aggregations?: string;
}

/** The JSON text of the client's answer. */
export function pageAnswer(text: string, edits: PageEdits): string {
  const parts: string[] = [];
  for (const m of members(text, 0)) {
    if (m.key === 'pit_id' || m.key === 'aggregations') continue;
    parts.push(`${JSON.stringify(m.key)}:${m.key === 'hits' ? hitsText(text, m, edits) : text.slice(m.start, m.end)}`);
  }
  if (edits.aggregations !== undefined) parts.push(`"aggregations":${edits.aggregations}`);
  return `{${parts.join(',')}}`;
}

function hitsText(text: string, hits: Member, edits: PageEdits): string {
  const parts: string[] = [];
  const total = totalText(edits);
  if (total !== undefined) parts.push(`"total":${total}`);
  for (const m of members(text, hits.start)) {
    if (m.key === 'total') continue;
    if (m.key !== 'hits') {
      parts.push(`${JSON.stringify(m.key)}:${text.slice(m.start, m.end)}`);
      continue;
    }
    const page = elements(text, m.start).slice(edits.skip, edits.skip + edits.size);
    parts.push(`"hits":[${page.map((hit) => (edits.dropTieBreaker ? withoutTieBreaker(text, hit.start, hit.end) : text.slice(hit.start, hit.end))).join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}

function withoutTieBreaker(text: string, start: number, end: number): string {
  const sort = members(text, start).find((m) => m.key === 'sort');
  if (sort === undefined) return text.slice(start, end);
  const values = elements(text, sort.start);
  const kept = values.slice(0, -1).map((v) => text.slice(v.start, v.end));
  return `${text.slice(start, sort.start)}[${kept.join(',')}]${text.slice(sort.end, end)}`;
}

/** `hits.total` as Elasticsearch shows it for this `track_total_hits` (absent for false). */
function totalText({ total, trackTotalHits, restTotalHitsAsInt }: PageEdits): string | undefined {
  // search-shape.ts lets `rest_total_hits_as_int` through with an exact count only, as ES does.
  if (restTotalHitsAsInt) return String(total);
  if (trackTotalHits === false) return undefined;
  if (trackTotalHits === true || total <= trackTotalHits) return `{"value":${total},"relation":"eq"}`;
  return `{"value":${trackTotalHits},"relation":"gte"}`;
}
