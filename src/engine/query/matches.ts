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
  /** Every live document of the segment (everyDoc), and how many documents the segment has: a conjunction leaves it out. */
  readonly every?: number;
}

export interface KnownMatches {
  readonly count: number;
  has(doc: number): boolean;
  /**
   * When the matches are the documents whose value in a single-valued column lies in [lo, hi] (NaN
   * and ordinal -1 never do), live ones only: what a pass can test without a call per document.
   */
  readonly between?: { values: Float64Array | Int32Array; lo: number; hi: number };
  /** The matches in some order (a slice of a field's sorted run), when they are at hand without listing them in order. */
  unordered?(): Uint32Array;
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

/**
 * Every live document of a segment of `count` (deletes marked in `deleted`), unscored, known without
 * listing them (listed when first read).
 */
export function everyDoc(count: number, deleted?: Uint8Array, deletedCount = 0): Matches {
  let docs: Uint32Array | undefined;
  return {
    every: count,
    known: { count: count - deletedCount, has: deleted ? (doc) => deleted[doc] !== 1 : () => true },
    get docs() {
      if (docs) return docs;
      if (!deleted) return (docs = allDocs(count).docs);
      docs = new Uint32Array(count - deletedCount);
      for (let doc = 0, at = 0; doc < count; doc++) if (deleted[doc] !== 1) docs[at++] = doc;
      return docs;
    },
  };
}

/**
 * Documents matching every input; the scores of the scored inputs summed (double, then float32).
 * With the segment's document `count`, an unscored input holding every document is left out: it
 * changes nothing (`match_all`, `exists` on a field every document has; deleted documents are left
 * out of every result later).
 */
export function intersect(inputs: readonly Matches[], scored: boolean, count?: number): Matches {
  if (count !== undefined && inputs.length > 1) {
    const narrowing = inputs.filter((input) => input.scores !== undefined || !(input.every !== undefined || (!input.known && input.docs.length === count)));
    inputs = narrowing.length > 0 ? narrowing : inputs.slice(0, 1);
  }
  if (inputs.length === 0) return NO_MATCHES;
  if (inputs.length === 1) return alone(inputs[0], scored);
  const order = inputs.map((_, i) => i).sort((a, b) => inputs[a].docs.length - inputs[b].docs.length);
  const smallest = inputs[order[0]].docs;
  const lists = order.slice(1).map((i) => inputs[i].docs);
  const cursors = new Int32Array(lists.length);
  /** Per input in its own order, where the current document sits in it (scores are summed in that order, as Lucene's conjunction adds them). */
  const places = new Int32Array(inputs.length);
  const docs = new Uint32Array(smallest.length);
  const scores = scored ? new Float64Array(smallest.length) : undefined;
  let n = 0;
  outer: for (let i = 0; i < smallest.length; i++) {
    const doc = smallest[i];
    for (let k = 0; k < lists.length; k++) {
      const list = lists[k];
      const at = seek(list, doc, cursors[k]);
      cursors[k] = at;
      if (at >= list.length) break outer;
      if (list[at] !== doc) continue outer;
    }
    if (scores) {
      places[order[0]] = i;
      for (let k = 0; k < lists.length; k++) places[order[k + 1]] = cursors[k];
      let sum = 0;
      for (let k = 0; k < inputs.length; k++) {
        const s = inputs[k].scores;
        if (s) sum += s[places[k]];
      }
      scores[n] = Math.fround(sum);
    }
    docs[n++] = doc;
  }
  return scores ? { docs: docs.subarray(0, n), scores: scores.subarray(0, n) } : { docs: docs.subarray(0, n) };
}

/** The first index at or after `from` whose document is not below `doc`: exponential steps, then halving. */
function seek(list: Uint32Array, doc: number, from: number): number {
  if (from >= list.length || list[from] >= doc) return from;
  let lo = from, hi = from + 1, step = 1;
  while (hi < list.length && list[hi] < doc) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > list.length) hi = list.length;
  // list[lo] < doc, and list[hi] ≥ doc or hi is the end.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < doc) lo = mid;
    else hi = mid;
  }
  return hi;
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
  // Counted, not listed: one input known by a test stays unlisted.
  const live = inputs.filter((input) => matchCount(input) > 0);
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

/**
 * `matches` minus the documents of `excluded`. Excluded matches known by a test are tested, not
 * listed; every document of a segment is walked by position, not listed either.
 */
export function subtract(matches: Matches, excluded: Matches): Matches {
  const { known } = excluded;
  if (known && matches.every !== undefined && !matches.scores) {
    const count = matches.every;
    // One slot of room for the write past the last kept.
    const kept = new Uint32Array(count + 1);
    let n = 0;
    const { between } = known;
    if (between) {
      // Every document outside the range (deleted ones too: they are left out later), without a branch per document.
      const { values, lo, hi } = between;
      for (let doc = 0; doc < count; doc++) {
        kept[n] = doc;
        n += 1 - (+(values[doc] >= lo) & +(values[doc] <= hi));
      }
    } else {
      const live = matches.known!.has;
      for (let doc = 0; doc < count; doc++) if (live(doc) && !known.has(doc)) kept[n++] = doc;
    }
    return { docs: kept.subarray(0, n) };
  }
  const { docs, scores } = matches;
  if (known ? known.count === 0 : excluded.docs.length === 0) return matches;
  const out = known ? undefined : excluded.docs;
  const keptDocs = new Uint32Array(docs.length);
  const keptScores = scores ? new Float64Array(docs.length) : undefined;
  let n = 0, at = 0;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i];
    if (out) {
      at = seek(out, doc, at);
      if (at < out.length && out[at] === doc) continue;
    } else if (known!.has(doc)) continue;
    if (keptScores) keptScores[n] = scores![i];
    keptDocs[n++] = doc;
  }
  if (n === docs.length) return matches;
  return keptScores ? { docs: keptDocs.subarray(0, n), scores: keptScores.subarray(0, n) } : { docs: keptDocs.subarray(0, n) };
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
