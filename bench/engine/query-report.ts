/**
 * The engine suite's summary of searches with a query (groups `query` and `text`): the tables, and
 * issue 12's and issue 39's targets judged on this run's figures.
 */
import { CITY_WORD } from '../lib/corpus.ts';
import { count, ms, ratio, table } from '../lib/format.ts';
import type { Row } from '../lib/results.ts';
import { BASELINE, QUERY_GROUP, STATES } from './queries.ts';
import { ORAMA, TEXT_GROUP } from './text-search.ts';

/** Issue 12's targets. */
const LATER_PAGE_OVER_MATCH_ALL = 2;
const FILTER_FIRST_PAGE_MS = 5;
const FILTER_TARGET_DOCS = 1_000_000;
const OVER_ORAMA = 10;
/** Issue 39's targets for new queries (`deeppage-new-query`), judged at 1,000,000 documents. */
const NEW_FILTER_FIRST_MS = 1;
const NEW_FILTER_LAST_MS = 2;
const NEW_FILTER_LAST_OVER_FIRST = 2;
const NEW_MATCH_FIRST_MS = 3;
const NEW_MATCH_DEEP_FROM = 100_000;
const NEW_MATCH_DEEP_MS = 5;
const NEW_MATCH_DEEP_OVER_FIRST = 3;

export function queryMarkdown(rows: Row[]): string {
  return [...searchesMarkdown(rows.filter((r) => r.group === QUERY_GROUP)), ...textMarkdown(rows.filter((r) => r.group === TEXT_GROUP))].join('\n');
}

const met = (ok: boolean) => (ok ? '**met**' : '**not met**');
const find = (rows: Row[], strategy: string, search: unknown, from: unknown) => rows.find((r) => r.strategy === strategy && r.params.search === search && r.params.from === from);
const cell = (row: Row | undefined) => (row ? ms(row.median) : '—');
const over = (a: Row | undefined, b: Row | undefined) => (a && b ? ratio(a.median / b.median) : '—');
const depthOf = (row: Row) => (row.params.depth === 'last' ? `last (${count(row.params.from)})` : count(row.params.from));

/** Issue 39's targets on `deeppage-new-query`: a new 10% filter's first and last pages, a new match's first page and its page at from 100,000. */
function newQueryTargets(rows: Row[], judged: boolean): string[] {
  const at = (search: string, pick: (row: Row) => boolean) => rows.find((r) => r.strategy === STATES.fresh && r.params.search === search && pick(r));
  const verdict = (ok: boolean) => (judged ? met(ok) : 'not judged here (fewer than 1,000,000 documents)');
  const out: string[] = [];
  const first = at('filter 10%', (r) => r.params.from === 0), last = at('filter 10%', (r) => r.params.depth === 'last');
  if (first && last) {
    const x = last.median / first.median;
    out.push(
      `- Target: a new 10% filter's first page at most ${NEW_FILTER_FIRST_MS} ms, its last page at most ${NEW_FILTER_LAST_MS} ms and ${NEW_FILTER_LAST_OVER_FIRST}× its first (\`${STATES.fresh}\`): ` +
        `first ${ms(first.median)} ms (${verdict(first.median <= NEW_FILTER_FIRST_MS)}), last ${ms(last.median)} ms, ${ratio(x)} (${verdict(last.median <= NEW_FILTER_LAST_MS && x <= NEW_FILTER_LAST_OVER_FIRST)}).`,
    );
  }
  const top = at('match', (r) => r.params.from === 0), deep = at('match', (r) => r.params.from === NEW_MATCH_DEEP_FROM);
  if (top && deep) {
    const x = deep.median / top.median;
    out.push(
      `- Target: a new two-word \`match\` (a quarter of the documents) first page at most ${NEW_MATCH_FIRST_MS} ms, its page at from ${count(NEW_MATCH_DEEP_FROM)} at most ${NEW_MATCH_DEEP_MS} ms and ${NEW_MATCH_DEEP_OVER_FIRST}× its first (\`${STATES.fresh}\`): ` +
        `first ${ms(top.median)} ms (${verdict(top.median <= NEW_MATCH_FIRST_MS)}), from ${count(NEW_MATCH_DEEP_FROM)} ${ms(deep.median)} ms, ${ratio(x)} (${verdict(deep.median <= NEW_MATCH_DEEP_MS && x <= NEW_MATCH_DEEP_OVER_FIRST)}).`,
    );
  }
  return out;
}

function searchesMarkdown(rows: Row[]): string[] {
  const base = rows.find((r) => r.strategy === STATES.warm && r.params.search === BASELINE);
  if (!base) return [];
  const { corpus, docs, shards } = base.params;
  const searches = [...new Set(rows.map((r) => String(r.params.search)))];
  const out = [
    `## Searches with a query: ${corpus}, ${count(docs)} documents, ${shards} shards`,
    '',
    'Median ms per search in process, size 10, `_source: false`, each page checked against a plain reference first (see engine.json, notes.queries).',
    `\`${STATES.warm}\`: sorted runs, the same search asked before (its runs built): a later page. \`${STATES.fresh}\`: every sample a search never asked`,
    `before (a filter of the same selectivity, or a \`match\` of the same kind), on a node that has served the sort and this kind of search: a new search on a busy node.`,
    `\`${STATES.cold}\`: right after \`clearCaches\`: a new search on a cold node. \`${STATES.topK}\`: Elasticsearch's algorithm on the same engine.`,
    `Ratios are over the \`${BASELINE}\` first page (\`${STATES.warm}\`, ${ms(base.median)} ms), except the last (top-k over \`${STATES.warm}\`).`,
    '',
  ];
  const described = searches.map((name) => {
    const any = rows.find((r) => r.params.search === name)!;
    return [name, `\`${queryOf(rows, name)}\``, count(any.params.matches)];
  });
  out.push(table(['search', 'request', 'matches'], described, 'llr'), '');

  const lines: string[][] = [];
  for (const name of searches) {
    for (const warm of rows.filter((r) => r.strategy === STATES.warm && r.params.search === name)) {
      const at = (state: string) => find(rows, state, name, warm.params.from);
      lines.push([name, depthOf(warm), ...[STATES.warm, STATES.fresh, STATES.cold, STATES.topK].map((s) => cell(at(s))), over(warm, base), over(at(STATES.fresh), base), over(at(STATES.cold), base), over(at(STATES.topK), warm)]);
    }
  }
  out.push(
    table(['search', 'from', `${STATES.warm} ms`, `${STATES.fresh} ms`, `${STATES.cold} ms`, `${STATES.topK} ms`, 'warm / match_all', 'new / match_all', 'cold / match_all', 'top-k / warm'], lines),
    '',
  );

  // Target: a later page of any query costs at most 2× a match_all first page.
  const later = rows.filter((r) => r.strategy === STATES.warm && r.params.search !== BASELINE);
  if (later.length > 0) {
    const worst = later.reduce((a, b) => (b.median > a.median ? b : a));
    const x = worst.median / base.median;
    out.push(
      `- Target: any page of a query after its first costs at most ${LATER_PAGE_OVER_MATCH_ALL}× a \`${BASELINE}\` first page. The dearest later page (\`${STATES.warm}\`) is ` +
        `${worst.params.search} at from ${depthOf(worst)}: ${ms(worst.median)} ms, ${ratio(x)}: ${met(x <= LATER_PAGE_OVER_MATCH_ALL)}.`,
    );
  }
  // Target: a first page of a 10%-selective filter over 1,000,000 documents in at most 5 ms.
  const firsts = [STATES.fresh, STATES.cold].map((state) => find(rows, state, 'filter 10%', 0)).filter((row) => row !== undefined);
  if (firsts.length > 0) {
    const target = `- Target: a first page of a 10%-selective filter over ${count(FILTER_TARGET_DOCS)} documents in at most ${FILTER_FIRST_PAGE_MS} ms`;
    const judged = Number(docs) >= FILTER_TARGET_DOCS;
    const figures = firsts.map((row) => `\`${row.strategy}\` ${ms(row.median)} ms${judged ? ` (${met(row.median <= FILTER_FIRST_PAGE_MS)})` : ''}`).join(', ');
    out.push(judged ? `${target}: ${figures}.` : `${target}: not judged here (${count(docs)} documents; the full run has ${count(FILTER_TARGET_DOCS)}). Here: ${figures}.`);
  }
  out.push(...newQueryTargets(rows, Number(docs) >= FILTER_TARGET_DOCS));
  out.push('');
  return out;
}

function textMarkdown(rows: Row[]): string[] {
  const mine = rows.filter((r) => r.strategy === STATES.warm);
  const theirs = rows.filter((r) => r.strategy === ORAMA);
  if (mine.length === 0 || theirs.length === 0) return [];
  const { corpus, docs, shards } = mine[0].params;
  const out = [
    `## Full-text search on the ${corpus}' names: deeppage \`match\` beside Orama`,
    '',
    `The word \`${CITY_WORD}\` in ${count(docs)} city names. deeppage: \`${queryOf(rows, String(mine[0].params.search))}\` (standard analyzer, BM25, ${shards} shards), ` +
      `${count(mine[0].params.matches)} matches. Orama: \`search(db, { term: '${CITY_WORD}', properties: ['name'], offset, limit: 10 })\` on \`{ name: 'string' }\`, ` +
      `${count(theirs[0].params.matches)} matches (its default tokenizer, and every word that starts with the term). Each at from 0, 100, 1,000 and its own last page.`,
    `Median ms per page; ratios are Orama over deeppage at the same depth (above 1: deeppage is faster).`,
    '',
  ];
  const byDepth = (list: Row[], depth: unknown) => list.find((r) => r.params.depth === depth);
  const lines = mine.map((warm) => {
    const at = (state: string) => byDepth(rows.filter((r) => r.strategy === state), warm.params.depth);
    const orama = byDepth(theirs, warm.params.depth);
    return [String(warm.params.depth), count(warm.params.from), cell(warm), cell(at(STATES.cold)), cell(at(STATES.topK)), orama ? count(orama.params.from) : '—', cell(orama), over(orama, warm), over(orama, at(STATES.cold))];
  });
  out.push(table(['depth', 'deeppage from', `${STATES.warm} ms`, `${STATES.cold} ms`, `${STATES.topK} ms`, 'orama from', 'orama ms', `orama / ${STATES.warm}`, `orama / ${STATES.cold}`], lines), '');
  const ratios = mine.map((warm) => ({ depth: warm.params.depth, x: (byDepth(theirs, warm.params.depth)?.median ?? NaN) / warm.median })).filter((r) => !Number.isNaN(r.x));
  if (ratios.length > 0) {
    const worst = ratios.reduce((a, b) => (b.x < a.x ? b : a));
    out.push(`- Target: \`match\` on the cities at least ${OVER_ORAMA}× faster than Orama at every depth: the least is ${ratio(worst.x)} (depth ${worst.depth}, \`${STATES.warm}\`): ${met(worst.x >= OVER_ORAMA)}.`, '');
  }
  return out;
}

/** A search's request body, as its rows carry it. */
function queryOf(rows: Row[], search: string): string {
  return String(rows.find((r) => r.params.search === search && r.params.request !== undefined)?.params.request ?? search);
}
