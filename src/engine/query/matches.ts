/**
 * What a query matches in one segment: local ordinals in ascending order and, when the query
 * scores, each match's score (float32 values). The set operations combine scores as Lucene's
 * scorers do: a conjunction or a disjunction adds its clauses' scores in double and rounds to
 * float once (reference §1.7).
 */
import { gallop } from '../binary-search.ts';

export interface Matches {
  readonly docs: Uint32Array;
  /** Per match, when scored. */
  readonly scores?: Float64Array;
  /**
   * Set by sources that know their matches without listing them (a range read from a field's
   * sorted run of the snapshot, which leaves out its deletes): how many there are and whether a
   * document is one, so a page that needs a few of them never lists them all. `docs` is then listed
   * when first read.
   */
  readonly known?: KnownMatches;
}

export interface KnownMatches {
  readonly count: number;
  has(doc: number): boolean;
}

/** How many documents match, without listing them when the matches are known. */
export function matchCount(matches: Matches): number {
  return matches.known ? matches.known.count : matches.docs.length;
}

export const NO_MATCHES: Matches = { docs: new Uint32Array(0) };

/** Every document of a segment of `count`, each scoring `score` when given. */
export function allDocs(count: number, score?: number): Matches {
  const docs = new Uint32Array(count);
  for (let i = 0; i < count; i++) docs[i] = i;
  return score === undefined ? { docs } : { docs, scores: new Float64Array(count).fill(score) };
}

/** Documents matching every input; the scores of the scored inputs summed (double, then float32). */
export function intersect(inputs: readonly Matches[], scored: boolean): Matches {
  if (inputs.length === 0) return NO_MATCHES;
  if (inputs.length === 1) return alone(inputs[0], scored);
  const order = inputs.map((_, i) => i).sort((a, b) => inputs[a].docs.length - inputs[b].docs.length);
  const smallest = inputs[order[0]];
  const cursors = new Int32Array(inputs.length);
  const docs: number[] = [];
  const scores: number[] = [];
  outer: for (let i = 0; i < smallest.docs.length; i++) {
    const doc = smallest.docs[i];
    let sum = 0;
    for (let k = 0; k < inputs.length; k++) {
      const input = inputs[k];
      const at = gallop(input.docs, doc, cursors[k]);
      cursors[k] = at;
      if (at >= input.docs.length || input.docs[at] !== doc) continue outer;
      if (input.scores) sum += input.scores[at];
    }
    docs.push(doc);
    if (scored) scores.push(Math.fround(sum));
  }
  return scored ? { docs: Uint32Array.from(docs), scores: Float64Array.from(scores) } : { docs: Uint32Array.from(docs) };
}

/** One input combined with nothing: its own documents, and its scores (0 where it has none) when scored. */
function alone(only: Matches, scored: boolean): Matches {
  if (!scored) return only.scores ? { docs: only.docs } : only;
  return only.scores ? only : { docs: only.docs, scores: new Float64Array(only.docs.length) };
}

/**
 * Documents matching at least `minimum` inputs (1 by default); the matching inputs' scores summed
 * (double, then float32).
 */
export function unite(inputs: readonly Matches[], scored: boolean, minimum = 1): Matches {
  const live = inputs.filter((input) => input.docs.length > 0);
  if (live.length < minimum || live.length === 0) return NO_MATCHES;
  if (live.length === 1) return alone(live[0], scored);
  if (!scored && minimum === 1 && live.length > 2) return union(live);
  const cursors = new Int32Array(live.length);
  const docs: number[] = [];
  const scores: number[] = [];
  for (;;) {
    let doc = Infinity;
    for (let k = 0; k < live.length; k++) if (cursors[k] < live[k].docs.length && live[k].docs[cursors[k]] < doc) doc = live[k].docs[cursors[k]];
    if (doc === Infinity) break;
    let count = 0, sum = 0;
    for (let k = 0; k < live.length; k++) {
      if (cursors[k] >= live[k].docs.length || live[k].docs[cursors[k]] !== doc) continue;
      count++;
      if (live[k].scores) sum += live[k].scores![cursors[k]];
      cursors[k]++;
    }
    if (count < minimum) continue;
    docs.push(doc);
    if (scored) scores.push(Math.fround(sum));
  }
  return scored ? { docs: Uint32Array.from(docs), scores: Float64Array.from(scores) } : { docs: Uint32Array.from(docs) };
}

/**
 * The documents of many lists, unscored: all of them, sorted, each once. Stepping every list for
 * each document costs lists × documents: a prefix over a few hundred terms took tens of ms.
 */
function union(inputs: readonly Matches[]): Matches {
  let total = 0;
  for (const input of inputs) total += input.docs.length;
  const docs = new Uint32Array(total);
  let at = 0;
  for (const input of inputs) {
    docs.set(input.docs, at);
    at += input.docs.length;
  }
  docs.sort();
  let n = 0;
  for (let i = 0; i < total; i++) if (n === 0 || docs[i] !== docs[n - 1]) docs[n++] = docs[i];
  return { docs: n === total ? docs : docs.slice(0, n) };
}

/** Lucene's DisjunctionMaxScorer: the best clause score plus `tieBreaker` times the others' sum. */
export function disjunctionMax(inputs: readonly Matches[], scored: boolean, tieBreaker: number): Matches {
  const union = unite(inputs, false);
  if (!scored) return union;
  const scores = new Float64Array(union.docs.length);
  const cursors = new Int32Array(inputs.length);
  union.docs.forEach((doc, i) => {
    let max = -Infinity, others = 0;
    for (let k = 0; k < inputs.length; k++) {
      const input = inputs[k];
      const at = gallop(input.docs, doc, cursors[k]);
      cursors[k] = at;
      if (at >= input.docs.length || input.docs[at] !== doc) continue;
      const score = input.scores ? input.scores[at] : 0;
      if (score > max) {
        if (max !== -Infinity) others += max;
        max = score;
      } else others += score;
    }
    scores[i] = Math.fround(max + Math.fround(tieBreaker) * others);
  });
  return { docs: union.docs, scores };
}

/** `matches` minus the documents of `excluded`. */
export function subtract(matches: Matches, excluded: Matches): Matches {
  if (excluded.docs.length === 0) return matches;
  const keep: number[] = [];
  let at = 0;
  matches.docs.forEach((doc, i) => {
    at = gallop(excluded.docs, doc, at);
    if (at >= excluded.docs.length || excluded.docs[at] !== doc) keep.push(i);
  });
  return pick(matches, keep);
}

/** Only the matches whose document passes `keep`. */
export function filterMatches(matches: Matches, keep: (doc: number, i: number) => boolean): Matches {
  const kept: number[] = [];
  matches.docs.forEach((doc, i) => keep(doc, i) && kept.push(i));
  return kept.length === matches.docs.length ? matches : pick(matches, kept);
}

/** The same documents, each scoring `score` (or unscored). */
export function constantScore(matches: Matches, score: number | undefined): Matches {
  if (score === undefined) return matches.scores ? { docs: matches.docs } : matches;
  return { docs: matches.docs, scores: new Float64Array(matches.docs.length).fill(Math.fround(score)) };
}

function pick(matches: Matches, indices: readonly number[]): Matches {
  const docs = Uint32Array.from(indices, (i) => matches.docs[i]);
  return matches.scores ? { docs, scores: Float64Array.from(indices, (i) => matches.scores![i]) } : { docs };
}
